package kube

import "encoding/pem"

// HasPEMCertificate reports whether data is PEM text holding at least one
// certificate, as a cluster's CA bundle must.
func HasPEMCertificate(data []byte) bool {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return false
		}
		if block.Type == "CERTIFICATE" {
			return true
		}
	}
}
