//go:build tools

// Package tools pins the version of a command the project builds for itself.
package tools

import _ "github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs"
