//go:build tools

// Package tools pins the newest OpenTofu the acceptance tests run on, beside
// the older one in tools/opentofu.
package tools

import _ "github.com/opentofu/opentofu/cmd/tofu"
