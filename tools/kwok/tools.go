//go:build tools

// Package tools pins kwok, which simulates the lab members' nodes and pods.
package tools

import _ "sigs.k8s.io/kwok/cmd/kwok"
