//go:build tools

// Package tools pins the Kubernetes components that the lab runs, and the
// kubectl the demo reads the members with when none is on PATH: the version
// in go.mod is the version built, for all four binaries.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
