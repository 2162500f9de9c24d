package member

import (
	"context"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// A member's clients take over the connection dialled ahead to it when the
// host still records that endpoint and a token; otherwise the connection is
// closed unused and the clients dial their own.
func TestPoolClients_takeTheConnectionDialledAhead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(c *Connection)
		moved  bool
		taken  bool
	}{
		{name: "same endpoint, a token", change: func(*Connection) {}, taken: true},
		// The member moved since the endpoint dialled ahead was noted.
		{name: "another endpoint", moved: true, change: func(*Connection) {}},
		{name: "every TLS check off", change: func(c *Connection) { c.DisabledTLSValidations = []string{TLSAll} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var opened, closed atomic.Int32
			server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = w.Write([]byte("ok"))
			}))
			server.EnableHTTP2 = true
			server.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				switch s {
				case http.StateNew:
					opened.Add(1)
				case http.StateClosed:
					closed.Add(1)
				}
			}
			server.StartTLS()
			t.Cleanup(server.Close)
			ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
			pool := NewPool(kube.NewClientFactory(), Settings{})
			noted := server.URL
			if tc.moved {
				noted = strings.Replace(noted, "127.0.0.1", "localhost", 1)
			}
			pool.DialAhead(context.Background(), "berlin", noted)
			conn := Connection{APIEndpoint: server.URL, CABundle: ca, Token: "t"}
			tc.change(&conn)
			if conn.DialsAhead() != (len(conn.DisabledTLSValidations) == 0) {
				t.Fatalf("DialsAhead = %v for %+v", conn.DialsAhead(), conn)
			}
			clients, err := pool.Clients("berlin", conn)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := clients.HTTP.Get(conn.APIEndpoint + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			wantOpened, wantClosed := int32(2), int32(1)
			if tc.taken {
				wantOpened, wantClosed = 1, 0
			}
			deadline := time.Now().Add(5 * time.Second)
			for closed.Load() < wantClosed && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if opened.Load() != wantOpened || closed.Load() != wantClosed {
				t.Errorf("the member accepted %d connections and closed %d, want %d and %d",
					opened.Load(), closed.Load(), wantOpened, wantClosed)
			}
			pool.DialAhead(context.Background(), "berlin", server.URL)
			if opened.Load() != wantOpened {
				t.Errorf("a member whose clients are built was dialled ahead again")
			}
		})
	}
}
