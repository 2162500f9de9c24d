package kube

import "testing"

func TestHasPEMCertificate(t *testing.T) {
	const cert = "-----BEGIN CERTIFICATE-----\nAAEC\n-----END CERTIFICATE-----\n"
	const key = "-----BEGIN PRIVATE KEY-----\nAAEC\n-----END PRIVATE KEY-----\n"
	for _, tc := range []struct {
		name string
		data string
		want bool
	}{
		{"a certificate", cert, true},
		{"a key, then a certificate", key + cert, true},
		{"a key alone", key, false},
		{"no PEM", "not pem", false},
		{"nothing", "", false},
	} {
		if got := HasPEMCertificate([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}
