//go:build tools

// Package tools pins the Kubernetes components that the lab runs: the version
// in go.mod is the version the lab builds, for all three binaries.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
