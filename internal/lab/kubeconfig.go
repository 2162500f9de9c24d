package lab

import (
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes one context per cluster; cluster, user and context
// are all named after the cluster, and the host is the current context.
func writeKubeconfig(path string, clusters []Cluster) error {
	cfg := clientcmdapi.NewConfig()
	for _, c := range clusters {
		cfg.Clusters[c.Name] = &clientcmdapi.Cluster{
			Server:                   c.URL,
			CertificateAuthorityData: c.CAPEM,
		}
		cfg.AuthInfos[c.Name] = &clientcmdapi.AuthInfo{Token: c.Token}
		cfg.Contexts[c.Name] = &clientcmdapi.Context{Cluster: c.Name, AuthInfo: c.Name}
	}
	if len(clusters) > 0 {
		cfg.CurrentContext = clusters[0].Name
	}
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	// The file holds admin tokens.
	return writeFileAtomic(path, b, 0o600)
}

// RESTConfig returns a client-go configuration for the cluster's admin,
// verifying the server against the cluster's CA.
func (c Cluster) RESTConfig() *rest.Config {
	return &rest.Config{
		Host:            c.URL,
		BearerToken:     c.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: c.CAPEM},
	}
}
