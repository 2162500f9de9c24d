package lab

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// Certificate lifetimes. A lab lives for hours, but a long-lived one left
// running over a holiday should not break, and nothing here is secret.
const (
	caLifetime   = 10 * 365 * 24 * time.Hour
	leafLifetime = 2 * 365 * 24 * time.Hour
	// clockSkew backdates certificates so a client whose clock is slightly
	// behind still accepts them.
	clockSkew = time.Hour
)

// keyPair is a certificate with its private key, parsed and as PEM.
type keyPair struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
	keyPEM  []byte
}

// newCA creates a self-signed certificate authority.
func newCA(commonName string, now time.Time) (keyPair, error) {
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"kubefed lab"}},
		NotBefore:             now.Add(-clockSkew),
		NotAfter:              now.Add(caLifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	return sign(tmpl, nil)
}

// issueServing signs a TLS server certificate valid for loopback under every
// name a client may use for it.
func (ca keyPair) issueServing(commonName string, now time.Time) (keyPair, error) {
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: commonName},
		NotBefore:   now.Add(-clockSkew),
		NotAfter:    now.Add(leafLifetime),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	return sign(tmpl, &ca)
}

// issueClient signs a client certificate. kube-apiserver maps the common
// name to the user name and each organization to a group.
func (ca keyPair) issueClient(user string, groups []string, now time.Time) (keyPair, error) {
	if user == "" {
		return keyPair{}, errors.New("a client certificate needs a user name")
	}
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: user, Organization: groups},
		NotBefore:   now.Add(-clockSkew),
		NotAfter:    now.Add(leafLifetime),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	return sign(tmpl, &ca)
}

// sign creates a key for tmpl and signs it with parent, or self-signs when
// parent is nil.
func sign(tmpl *x509.Certificate, parent *keyPair) (keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return keyPair{}, fmt.Errorf("generating a key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return keyPair{}, fmt.Errorf("generating a serial number: %w", err)
	}
	tmpl.SerialNumber = serial
	issuer, signer := tmpl, key
	if parent != nil {
		issuer, signer = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, &key.PublicKey, signer)
	if err != nil {
		return keyPair{}, fmt.Errorf("signing the certificate for %q: %w", tmpl.Subject.CommonName, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return keyPair{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return keyPair{}, err
	}
	return keyPair{
		cert:    cert,
		key:     key,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// write stores the pair; the key is readable by its owner only.
func (kp keyPair) write(certPath, keyPath string) error {
	if err := os.WriteFile(certPath, kp.certPEM, 0o644); err != nil {
		return err
	}
	return os.WriteFile(keyPath, kp.keyPEM, 0o600)
}

// loadKeyPair reads a pair written by write.
func loadKeyPair(certPath, keyPath string) (keyPair, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return keyPair{}, err
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return keyPair{}, err
	}
	cb, _ := pem.Decode(certPEM)
	if cb == nil || cb.Type != "CERTIFICATE" {
		return keyPair{}, fmt.Errorf("%s: no PEM certificate", certPath)
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return keyPair{}, fmt.Errorf("%s: %w", certPath, err)
	}
	kb, _ := pem.Decode(keyPEM)
	if kb == nil || kb.Type != "EC PRIVATE KEY" {
		return keyPair{}, fmt.Errorf("%s: no PEM EC private key", keyPath)
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return keyPair{}, fmt.Errorf("%s: %w", keyPath, err)
	}
	return keyPair{cert: cert, key: key, certPEM: certPEM, keyPEM: keyPEM}, nil
}

// newServiceAccountKey creates the key kube-apiserver signs service-account
// tokens with, and the public half it verifies them with.
func newServiceAccountKey() (privPEM, pubPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	privDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: privDER}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), nil
}
