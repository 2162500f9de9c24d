package kube

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
)

const bearerToken = "bearer-token-that-must-stay-secret"

// credentialServer answers like an API server and counts the requests that
// carried both credentials, so the test knows they were really sent.
func credentialServer(t *testing.T, authenticated *atomic.Int32) *httptest.Server {
	t.Helper()
	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer "+bearerToken && len(r.TLS.PeerCertificates) > 0 {
			authenticated.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/configmaps/absent") {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
			return
		}
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n"}}`))
	}))
	server.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	server.StartTLS()
	t.Cleanup(server.Close)
	return server
}

func TestRequestLog_namesTheRequestAndNoCredential(t *testing.T) {
	var authenticated atomic.Int32
	server := credentialServer(t, &authenticated)
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("client", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	clients, err := NewClientFactory().NewClients(&rest.Config{
		Host:            server.URL,
		BearerToken:     bearerToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: caPEM, CertData: certPEM, KeyData: keyPEM},
	})
	if err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	ctx := WithCluster(tflogtest.RootLogger(context.Background(), &out), "berlin")
	configMaps := clients.Kubernetes.CoreV1().ConfigMaps("n")
	if _, err := configMaps.Get(ctx, "c", metav1.GetOptions{ResourceVersion: "query-value-not-logged"}); err != nil {
		t.Fatal(err)
	}
	if _, err := configMaps.Get(ctx, "absent", metav1.GetOptions{}); err == nil {
		t.Fatal("want the server's 404")
	}
	if authenticated.Load() != 2 {
		t.Fatalf("%d of 2 requests carried the token and the client certificate: the test proves nothing", authenticated.Load())
	}

	text := out.String()
	for _, secret := range append([]string{bearerToken, "Bearer", "query-value-not-logged"}, pemBodyLines(keyPEM)...) {
		if strings.Contains(text, secret) {
			t.Fatalf("the log holds %q:\n%s", secret, text)
		}
	}
	entries, err := tflogtest.MultilineJSONDecode(&out)
	if err != nil {
		t.Fatal(err)
	}
	host := mustHost(t, server.URL)
	want := []map[string]any{
		{"path": "/api/v1/namespaces/n/configmaps/c", "status": float64(200)},
		{"path": "/api/v1/namespaces/n/configmaps/absent", "status": float64(404)},
	}
	if len(entries) != len(want) {
		t.Fatalf("%d log lines, want one per request:\n%s", len(entries), text)
	}
	for i, entry := range entries {
		for key, value := range map[string]any{
			"@level": "debug", "@message": "cluster request", "method": "GET", "server": host, "cluster": "berlin",
			"path": want[i]["path"], "status": want[i]["status"],
		} {
			if entry[key] != value {
				t.Errorf("line %d: %s = %v, want %v", i, key, entry[key], value)
			}
		}
		if d, _ := entry["duration"].(string); d == "" {
			t.Errorf("line %d has no duration: %v", i, entry)
		}
	}
}

func TestRequestLog_failedRequest(t *testing.T) {
	server := httptest.NewServer(http.NotFoundHandler())
	server.Close()
	clients, err := NewClientFactory().NewClients(&rest.Config{Host: server.URL, BearerToken: bearerToken})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx := WithCluster(tflogtest.RootLogger(context.Background(), &out), "new-york")
	if _, err := clients.Kubernetes.CoreV1().Namespaces().Get(ctx, "n", metav1.GetOptions{}); err == nil {
		t.Fatal("want a connection error from a closed server")
	}
	entries, err := tflogtest.MultilineJSONDecode(&out)
	if err != nil {
		t.Fatal(err)
	}
	// client-go retries some failures; each attempt is a line of its own.
	if len(entries) == 0 {
		t.Fatal("a failed request left no log line")
	}
	for _, entry := range entries {
		if entry["@message"] != "cluster request failed" || entry["cluster"] != "new-york" ||
			entry["path"] != "/api/v1/namespaces/n" || !strings.Contains(entry["error"].(string), "connection refused") {
			t.Errorf("unexpected line %v", entry)
		}
		if _, ok := entry["status"]; ok {
			t.Errorf("a request without an answer has no status: %v", entry)
		}
	}
	if strings.Contains(out.String(), bearerToken) {
		t.Fatalf("the token is in the log: %s", out.String())
	}
}

// pemBodyLines are the base64 lines of a PEM block, any of which in a log
// would leak part of the key.
func pemBodyLines(data []byte) []string {
	var lines []string
	for _, line := range strings.Split(string(data), "\n") {
		if line != "" && !strings.HasPrefix(line, "-----") {
			lines = append(lines, line)
		}
	}
	return lines
}

func mustHost(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}
