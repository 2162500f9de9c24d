package lab

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Delays here are large next to loopback round trips (microseconds), so
// "took at least the delay" cannot pass by accident. The tests assert only
// lower bounds: a loaded machine makes things slower, never faster.
const testLatency = 100 * time.Millisecond

func TestProxyDelaysEachDirection(t *testing.T) {
	p := startProxy(t, echoServer(t))
	p.SetLatency(testLatency)
	c := dial(t, p.Addr())

	start := time.Now()
	roundTrip(t, c, "ping")
	if rtt := time.Since(start); rtt < 2*testLatency {
		t.Errorf("round trip took %v, want at least %v (the latency in each direction)", rtt, 2*testLatency)
	}
}

func TestProxyWithoutLatencyForwards(t *testing.T) {
	p := startProxy(t, echoServer(t))
	c := dial(t, p.Addr())
	for _, msg := range []string{"a", "bb", "ccc"} {
		roundTrip(t, c, msg)
	}
}

// TestProxyDelaysEveryChunkFromItsOwnSendTime sends chunks spaced in time
// over one connection and checks that each arrives no earlier than its own
// send time plus the latency.
func TestProxyDelaysEveryChunkFromItsOwnSendTime(t *testing.T) {
	type arrival struct {
		b  byte
		at time.Time
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	arrivals := make(chan arrival, 16)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 1)
		for {
			if _, err := c.Read(buf); err != nil {
				close(arrivals)
				return
			}
			arrivals <- arrival{buf[0], time.Now()}
		}
	}()
	p := startProxy(t, ln.Addr().String())
	p.SetLatency(testLatency)
	c := dial(t, p.Addr())

	const chunks = 5
	sent := make([]time.Time, chunks)
	for i := range chunks {
		sent[i] = time.Now()
		if _, err := c.Write([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(testLatency / 4)
	}
	closeWrite(t, c)
	var last time.Time
	for i := range chunks {
		a, ok := <-arrivals
		if !ok {
			t.Fatalf("got %d chunks, want %d", i, chunks)
		}
		if a.b != byte(i) {
			t.Fatalf("chunk %d arrived as %d: order not kept", i, a.b)
		}
		if d := a.at.Sub(sent[i]); d < testLatency {
			t.Errorf("chunk %d took %v, want at least %v", i, d, testLatency)
		}
		last = a.at
	}
	// Not asserted (timing upper bounds are flaky on a loaded machine), but
	// worth seeing: with per-chunk stamping this is about one latency plus
	// the sending time, not one latency per chunk.
	t.Logf("%d chunks spaced %v apart, each delayed %v: the last arrived %v after the first was sent",
		chunks, testLatency/4, testLatency, last.Sub(sent[0]))
}

func TestProxyLatencyChangeAppliesToOpenConnections(t *testing.T) {
	p := startProxy(t, echoServer(t))
	c := dial(t, p.Addr())
	roundTrip(t, c, "before")

	p.SetLatency(testLatency)
	start := time.Now()
	roundTrip(t, c, "after")
	if rtt := time.Since(start); rtt < 2*testLatency {
		t.Errorf("round trip after SetLatency took %v, want at least %v", rtt, 2*testLatency)
	}
	if got := p.Latency(); got != testLatency {
		t.Errorf("Latency() = %v, want %v", got, testLatency)
	}
}

func TestProxyKeepsLargeTransfersIntact(t *testing.T) {
	p := startProxy(t, echoServer(t))
	p.SetLatency(time.Millisecond)
	c := dial(t, p.Addr())
	data := make([]byte, 4<<20)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	go func() {
		_, _ = c.Write(data)
		_ = c.(*net.TCPConn).CloseWrite()
	}()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("echoed %d bytes differ from the %d sent", len(got), len(data))
	}
}

// TestProxyPropagatesHalfClose checks that the end of the client's stream
// reaches the server after the data, and the server's answer still comes
// back: HTTP clients and servers rely on that order.
func TestProxyPropagatesHalfClose(t *testing.T) {
	p := startProxy(t, echoServer(t))
	p.SetLatency(10 * time.Millisecond)
	c := dial(t, p.Addr())
	if _, err := io.WriteString(c, "hello"); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "hello" {
		t.Errorf("got %q back, want hello", got)
	}
}

func TestProxyResetsClientsWhenTargetIsDown(t *testing.T) {
	p := startProxy(t, deadAddress(t))
	// The reset may already come back while the client connects.
	c, err := net.Dial("tcp", p.Addr())
	if err == nil {
		defer c.Close()
		// The deadline only turns a hang into a failure.
		setDeadline(t, c, 10*time.Second)
		_, err = c.Read(make([]byte, 1))
	}
	if err == nil {
		t.Fatal("read from a proxy whose target is down succeeded")
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("read hung until the deadline: %v", err)
	}
	if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, io.EOF) {
		t.Errorf("read error = %v, want a connection reset or EOF", err)
	}
}

func TestProxyCloseDropsOpenConnections(t *testing.T) {
	p, err := newProxy("127.0.0.1:0", echoServer(t))
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve() }()
	c := dial(t, p.Addr())
	roundTrip(t, c, "x")

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve after Close = %v, want nil", err)
	}
	setDeadline(t, c, 10*time.Second)
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("connection still open after Close")
	}
	if _, err := net.Dial("tcp", p.Addr()); err == nil {
		t.Error("proxy still accepts after Close")
	}
}

// TestProxyProcess runs the proxy the way the lab does: this test binary
// re-executed with the proxy marker, its latency read from a file and
// re-read on SIGHUP.
func TestProxyProcess(t *testing.T) {
	dir := t.TempDir()
	target := echoServer(t)
	_, targetPort, _ := net.SplitHostPort(target)
	ports, err := choosePorts(0, 1)
	if err != nil {
		t.Fatal(err)
	}
	latFile := filepath.Join(dir, latencyFile)
	if err := writeLatencyFile(latFile, 0); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(targetPort)
	if err != nil {
		t.Fatal(err)
	}
	args := proxyArgs("test", ports[0], port, latFile)
	proc, err := startProcess(exe, args, append(childEnv(), proxyEnv+"="+proxyEnvValue), dir, filepath.Join(dir, proxyLog))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stopProcess(context.Background(), proc, time.Second) })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0]))
	c := dialWhenUp(t, addr, proc, filepath.Join(dir, proxyLog))
	roundTrip(t, c, "no latency")
	// dialWhenUp may have tried more than once; one more connection
	// counts one more.
	before, err := readConnectionsFile(filepath.Join(dir, connectionsFile))
	if err != nil || before < 1 {
		t.Fatalf("connections after the first: %d, %v", before, err)
	}
	roundTrip(t, dial(t, addr), "second connection")
	if after, err := readConnectionsFile(filepath.Join(dir, connectionsFile)); err != nil || after != before+1 {
		t.Errorf("connections after one more: %d, %v; want %d", after, err, before+1)
	}

	if err := writeLatencyFile(latFile, testLatency); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(proc.PID, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// Once the proxy confirms the latency, the very next round trip pays it.
	if err := waitLatencyApplied(t.Context(), appliedLatencyPath(latFile), testLatency); err != nil {
		t.Fatalf("%v; its log:\n%s", err, logTail(filepath.Join(dir, proxyLog), 20))
	}
	start := time.Now()
	roundTrip(t, c, "with latency")
	if rtt := time.Since(start); rtt < 2*testLatency {
		t.Errorf("round trip after the proxy confirmed latency %v took %v", testLatency, rtt)
	}

	if err := stopProcess(t.Context(), proc, stopGrace); err != nil {
		t.Fatal(err)
	}
	if proc.running() {
		t.Fatal("proxy process still running after stopProcess")
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Error("stopped proxy still accepts connections")
	}
}

func TestWaitLatencyApplied(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "latency-applied")
	if err := waitLatencyApplied(t.Context(), path, time.Second); err != nil {
		t.Errorf("a proxy that confirms nothing: %v, want no wait", err)
	}
	if err := writeLatencyFile(path, 0); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		_ = writeLatencyFile(path, time.Second)
	}()
	if err := waitLatencyApplied(t.Context(), path, time.Second); err != nil {
		t.Errorf("confirmation written later: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	err := waitLatencyApplied(ctx, path, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), "did not confirm latency 2s") || !strings.Contains(err.Error(), "applies 1s") {
		t.Errorf("never confirmed: %v", err)
	}
}

func TestReadLatencyFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		content string
		want    time.Duration
		wantErr bool
	}{
		{"80ms\n", 80 * time.Millisecond, false},
		{"0", 0, false},
		{"0s", 0, false},
		{"", 0, false},
		{"-1ms", 0, true},
		{"soon", 0, true},
	} {
		path := filepath.Join(dir, "latency")
		if err := os.WriteFile(path, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readLatencyFile(path)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("readLatencyFile(%q) = %v, %v; want %v, error %v", tc.content, got, err, tc.want, tc.wantErr)
		}
	}
	if d, err := readLatencyFile(filepath.Join(dir, "missing")); d != 0 || err != nil {
		t.Errorf("missing file: %v, %v; want 0, nil", d, err)
	}
}

// echoServer serves connections that send back what they receive, and
// end their stream when the client ends its own.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
				_ = c.(*net.TCPConn).CloseWrite()
			}()
		}
	}()
	return ln.Addr().String()
}

// deadAddress returns a loopback address nothing listens on.
func deadAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	p, err := newProxy("127.0.0.1:0", target)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.Serve() }()
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// dialWhenUp dials a proxy process once it listens.
func dialWhenUp(t *testing.T, addr string, p procInfo, log string) net.Conn {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			t.Cleanup(func() { c.Close() })
			return c
		}
		if !p.running() || time.Now().After(deadline) {
			t.Fatalf("proxy process not listening on %s: %v; its log:\n%s", addr, err, logTail(log, 20))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// roundTrip sends msg and reads it back, failing on a hang.
func roundTrip(t *testing.T, c net.Conn, msg string) {
	t.Helper()
	setDeadline(t, c, 10*time.Second)
	defer setDeadline(t, c, 0)
	if _, err := io.WriteString(c, msg); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	if string(buf) != msg {
		t.Fatalf("echoed %q, want %q", buf, msg)
	}
}

// setDeadline bounds the connection's reads and writes to d from now; zero
// removes the bound.
func setDeadline(t *testing.T, c net.Conn, d time.Duration) {
	t.Helper()
	var at time.Time
	if d > 0 {
		at = time.Now().Add(d)
	}
	if err := c.SetDeadline(at); err != nil {
		t.Fatal(err)
	}
}

func closeWrite(t *testing.T, c net.Conn) {
	t.Helper()
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
}
