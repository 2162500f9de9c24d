package member

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"k8s.io/client-go/rest"
)

// The TLS checks a KubeFedCluster may disable, as KubeFed names them.
const (
	TLSAll            = "*"
	TLSSubjectName    = "SubjectName"
	TLSValidityPeriod = "ValidityPeriod"
)

// Connection is how the federation reaches a member cluster: the fields of
// a KubeFedCluster's spec together with the credentials of its Secret.
type Connection struct {
	APIEndpoint            string
	CABundle               []byte
	Token                  string
	ClientCertificate      []byte
	ClientKey              []byte
	DisabledTLSValidations []string
	ProxyURL               string
}

// DialsAhead reports whether a connection to the member can be opened
// before its credentials are known: it authenticates with a bearer token,
// which is sent only once the connection is open, not with a client
// certificate, which the TLS handshake sends; and it verifies the member's
// certificate in full and reaches it directly.
func (c Connection) DialsAhead() bool {
	return c.Token != "" && len(c.ClientCertificate) == 0 && len(c.ClientKey) == 0 && c.ProxyURL == "" &&
		len(c.DisabledTLSValidations) == 0
}

// RESTConfig is the client-go configuration that reaches the member.
func (c Connection) RESTConfig() (*rest.Config, error) {
	cfg := &rest.Config{
		Host:        c.APIEndpoint,
		BearerToken: c.Token,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   c.CABundle,
			CertData: c.ClientCertificate,
			KeyData:  c.ClientKey,
		},
	}
	if c.ProxyURL != "" {
		proxy, err := url.Parse(c.ProxyURL)
		if err != nil {
			return nil, fmt.Errorf("proxy_url %q: %w", c.ProxyURL, err)
		}
		cfg.Proxy = http.ProxyURL(proxy)
	}
	skipAll := slices.Contains(c.DisabledTLSValidations, TLSAll)
	skipName := slices.Contains(c.DisabledTLSValidations, TLSSubjectName)
	skipValidity := slices.Contains(c.DisabledTLSValidations, TLSValidityPeriod)
	switch {
	case skipAll:
		// client-go refuses a CA together with insecure; the CA means
		// nothing once every check is off.
		cfg.CAData = nil
		cfg.Insecure = true
	case skipName || skipValidity:
		// client-go cannot skip one check alone, so the transport verifies
		// the chain itself and client-go only adds the credentials.
		transport, err := partialVerificationTransport(cfg, skipName, skipValidity)
		if err != nil {
			return nil, err
		}
		cfg.Transport = transport
		cfg.Proxy = nil
		cfg.TLSClientConfig = rest.TLSClientConfig{}
	}
	return cfg, nil
}

func partialVerificationTransport(cfg *rest.Config, skipName, skipValidity bool) (*http.Transport, error) {
	tlsConfig, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	if tlsConfig == nil {
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	endpoint, err := url.Parse(cfg.Host)
	if err != nil {
		return nil, err
	}
	roots := tlsConfig.RootCAs
	hostname := endpoint.Hostname()
	tlsConfig.InsecureSkipVerify = true
	tlsConfig.VerifyPeerCertificate = func(rawCerts [][]byte, _ [][]*x509.Certificate) error {
		if len(rawCerts) == 0 {
			return errors.New("the server presented no certificate")
		}
		certs := make([]*x509.Certificate, 0, len(rawCerts))
		for _, raw := range rawCerts {
			cert, err := x509.ParseCertificate(raw)
			if err != nil {
				return err
			}
			certs = append(certs, cert)
		}
		opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
		for _, cert := range certs[1:] {
			opts.Intermediates.AddCert(cert)
		}
		if !skipName {
			opts.DNSName = hostname
		}
		if skipValidity {
			// Verify as of a moment the leaf was valid: the chain and the
			// name still count, the clock does not.
			opts.CurrentTime = certs[0].NotBefore
		}
		_, err := certs[0].Verify(opts)
		return err
	}
	transport := &http.Transport{TLSClientConfig: tlsConfig, Proxy: http.ProxyFromEnvironment}
	if cfg.Proxy != nil {
		transport.Proxy = cfg.Proxy
	}
	return transport, nil
}
