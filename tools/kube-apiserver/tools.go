//go:build tools

// Package tools pins the kube-apiserver that the lab runs: the version in
// go.mod is the version the lab builds.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
