package kube

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
)

// ServiceAccountDir is where Kubernetes mounts a pod's service-account token
// and CA certificate: the files rest.InClusterConfig reads. It is a variable
// so that tests can simulate a pod.
var ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// inClusterPossible reports whether the provider runs in a pod: the service
// environment variables are set and a service account token is mounted, as
// clientcmd decides it.
func inClusterPossible() bool {
	return os.Getenv("KUBERNETES_SERVICE_HOST") != "" && os.Getenv("KUBERNETES_SERVICE_PORT") != "" &&
		fileExists(filepath.Join(ServiceAccountDir, "token"))
}

// inClusterConfig is rest.InClusterConfig reading from ServiceAccountDir.
// The token file is kept so that client-go rereads it as the kubelet
// rotates it.
func inClusterConfig() (*rest.Config, error) {
	tokenFile := filepath.Join(ServiceAccountDir, "token")
	token, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, fmt.Errorf("in-cluster configuration: reading the service account token: %w", err)
	}
	cfg := &rest.Config{
		Host:            "https://" + net.JoinHostPort(os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")),
		BearerToken:     string(token),
		BearerTokenFile: tokenFile,
	}
	// As rest.InClusterConfig: without the CA file, the system's roots.
	if caFile := filepath.Join(ServiceAccountDir, "ca.crt"); fileExists(caFile) {
		cfg.CAFile = caFile
	}
	return cfg, nil
}

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}
