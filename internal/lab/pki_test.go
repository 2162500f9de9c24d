package lab

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"io"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestServingCertificateVerifiesForEveryLoopbackName(t *testing.T) {
	now := time.Now()
	ca := mustCA(t, now)
	srv, err := ca.issueServing("kube-apiserver test", now)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	for _, name := range []string{"127.0.0.1", "::1", "localhost"} {
		_, err := srv.cert.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
		if err != nil {
			t.Errorf("serving certificate for %q: %v", name, err)
		}
	}
	if _, err := srv.cert.Verify(x509.VerifyOptions{DNSName: "example.com", Roots: roots}); err == nil {
		t.Error("serving certificate verified for example.com; want only loopback names")
	}
	other := mustCA(t, now)
	otherRoots := x509.NewCertPool()
	otherRoots.AddCert(other.cert)
	if _, err := srv.cert.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: otherRoots}); err == nil {
		t.Error("serving certificate verified against another CA")
	}
}

func TestClientCertificateCarriesUserAndGroups(t *testing.T) {
	now := time.Now()
	ca := mustCA(t, now)
	c, err := ca.issueClient("alice", []string{"system:masters", "devs"}, now)
	if err != nil {
		t.Fatal(err)
	}
	// The groups form one DER SET, whose encoding sorts them.
	groups := slices.Sorted(slices.Values(c.cert.Subject.Organization))
	if c.cert.Subject.CommonName != "alice" || !slices.Equal(groups, []string{"devs", "system:masters"}) {
		t.Errorf("subject = %v, want CN=alice O=[system:masters devs]", c.cert.Subject)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	if _, err := c.cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("client certificate does not verify for client auth: %v", err)
	}
	if _, err := c.cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err == nil {
		t.Error("client certificate verifies for server auth")
	}
	if _, err := ca.issueClient("", nil, now); err == nil {
		t.Error("client certificate without a user: no error")
	}
}

// TestMutualTLSHandshake runs the certificates through crypto/tls the way
// kube-apiserver and its clients use them: the client verifies the server
// against the CA, the server requires a client certificate from the same CA.
func TestMutualTLSHandshake(t *testing.T) {
	now := time.Now()
	ca := mustCA(t, now)
	srv, err := ca.issueServing("server", now)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := ca.issueClient("alice", nil, now)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.certPEM) {
		t.Fatal("CA PEM does not parse")
	}
	srvPair, err := tls.X509KeyPair(srv.certPEM, srv.keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	cliPair, err := tls.X509KeyPair(cli.certPEM, cli.keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{srvPair},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			peer <- err.Error()
			return
		}
		defer c.Close()
		tc := c.(*tls.Conn)
		if err := tc.Handshake(); err != nil {
			peer <- err.Error()
			return
		}
		peer <- tc.ConnectionState().PeerCertificates[0].Subject.CommonName
		_, _ = io.WriteString(c, "ok")
	}()
	c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cliPair}})
	if err != nil {
		t.Fatalf("client handshake: %v", err)
	}
	defer c.Close()
	if _, err := io.ReadAll(c); err != nil {
		t.Fatal(err)
	}
	if got := <-peer; got != "alice" {
		t.Errorf("server saw client %q, want alice", got)
	}
}

func TestKeyPairRoundTrip(t *testing.T) {
	now := time.Now()
	ca := mustCA(t, now)
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	if err := ca.write(certPath, keyPath); err != nil {
		t.Fatal(err)
	}
	loaded, err := loadKeyPair(certPath, keyPath)
	if err != nil {
		t.Fatal(err)
	}
	if !loaded.cert.Equal(ca.cert) || !loaded.key.Equal(ca.key) {
		t.Fatal("loaded pair differs from the written one")
	}
	// A certificate signed by the loaded CA must chain to the original.
	leaf, err := loaded.issueClient("bob", nil, now)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	if _, err := leaf.cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("certificate signed by the reloaded CA: %v", err)
	}
}

func TestServiceAccountKeyPairMatches(t *testing.T) {
	privPEM, pubPEM, err := newServiceAccountKey()
	if err != nil {
		t.Fatal(err)
	}
	priv, pub := decodePEM(t, privPEM, "EC PRIVATE KEY"), decodePEM(t, pubPEM, "PUBLIC KEY")
	key, err := x509.ParseECPrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := x509.ParsePKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	if !key.PublicKey.Equal(pk) {
		t.Error("public key does not match the private key")
	}
}

func mustCA(t *testing.T, now time.Time) keyPair {
	t.Helper()
	ca, err := newCA("test CA", now)
	if err != nil {
		t.Fatal(err)
	}
	if !ca.cert.IsCA || ca.cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		t.Fatal("CA certificate cannot sign certificates")
	}
	return ca
}

func decodePEM(t *testing.T, b []byte, typ string) []byte {
	t.Helper()
	blk, rest := pem.Decode(b)
	if blk == nil || blk.Type != typ || len(rest) != 0 {
		t.Fatalf("want one PEM block of type %s", typ)
	}
	return blk.Bytes
}
