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

// writeComponentKubeconfig writes the kubeconfig of a control component:
// straight to its cluster's kube-apiserver (components run inside the
// cluster, not behind the latency proxy), as the user of its client
// certificate.
func writeComponentKubeconfig(path, server, caFile, certFile, keyFile string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["lab"] = &clientcmdapi.Cluster{Server: server, CertificateAuthority: caFile}
	cfg.AuthInfos["lab"] = &clientcmdapi.AuthInfo{ClientCertificate: certFile, ClientKey: keyFile}
	cfg.Contexts["lab"] = &clientcmdapi.Context{Cluster: "lab", AuthInfo: "lab"}
	cfg.CurrentContext = "lab"
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b, 0o600)
}
