//go:build tools

// Package tools pins etcd, the store behind the lab's API servers.
package tools

import _ "go.etcd.io/etcd/server/v3"
