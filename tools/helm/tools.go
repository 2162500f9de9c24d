//go:build tools

// Package tools pins Helm, whose `helm template` renders the example chart
// that the guides and acceptance tests federate.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
