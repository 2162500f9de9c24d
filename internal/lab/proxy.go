package lab

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// proxy forwards TCP connections to a target and delays every byte, in each
// direction, by a latency that can change while it runs.
//
// Each direction is a pipe with timestamped buffering: a reader stamps every
// chunk it reads with the time it is due and queues it, a writer sends each
// chunk when due. A chunk read at t therefore leaves at t+latency however
// many chunks are in flight, as on a long link, instead of every chunk
// paying the delay in turn.
type proxy struct {
	ln      net.Listener
	target  string
	latency atomic.Int64 // one-way delay in nanoseconds

	// accepted counts the client connections since the proxy started;
	// onAccept, when set, is told the new count after each.
	accepted atomic.Int64
	onAccept func(n int64)

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// Tuning of the delay pipes.
const (
	// chunkSize bounds one read; a chunk is the unit that gets delayed.
	chunkSize = 32 << 10
	// queuedChunks bounds the bytes in flight per direction
	// (queuedChunks*chunkSize); a full queue pushes back on the sender the
	// way a full TCP window does.
	queuedChunks = 256
	// dialTimeout bounds the connection to the target; on loopback a dead
	// target refuses at once, so this only matters when something is wrong.
	dialTimeout = 5 * time.Second
	// acceptBackoff paces retries after a failed accept.
	acceptBackoff = 50 * time.Millisecond
)

// newProxy listens on listenAddr and will forward to target once served.
func newProxy(listenAddr, target string) (*proxy, error) {
	ln, err := net.Listen("tcp", listenAddr)
	if err != nil {
		return nil, err
	}
	return &proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}, nil
}

// Addr is the address clients connect to.
func (p *proxy) Addr() string { return p.ln.Addr().String() }

// SetLatency changes the one-way delay; it applies to every chunk read from
// now on, including on open connections.
func (p *proxy) SetLatency(d time.Duration) { p.latency.Store(int64(max(d, 0))) }

// Accepted is how many client connections the proxy accepted.
func (p *proxy) Accepted() int64 { return p.accepted.Load() }

// Latency returns the one-way delay.
func (p *proxy) Latency() time.Duration { return time.Duration(p.latency.Load()) }

// Serve accepts connections until Close.
func (p *proxy) Serve() error {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if p.isClosed() {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Out of file descriptors, say: the next connection may fare
			// better, and a lab proxy that exits is worse than a slow one.
			time.Sleep(acceptBackoff)
			continue
		}
		if !p.track(c) {
			c.Close()
			return nil
		}
		if n := p.accepted.Add(1); p.onAccept != nil {
			p.onAccept(n)
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			defer p.untrack(c)
			p.handle(c)
		}()
	}
}

// Close stops accepting, drops every open connection and waits for the
// connection goroutines to finish.
func (p *proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *proxy) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// handle forwards one client connection.
func (p *proxy) handle(client net.Conn) {
	server, err := net.DialTimeout("tcp", p.target, dialTimeout)
	if err != nil {
		// The target is down (a stopped member). Reset the client's
		// connection rather than closing it politely, so the client sees a
		// transport error at once, as it would without the proxy.
		if tc, ok := client.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		client.Close()
		return
	}
	if !p.track(server) {
		server.Close()
		client.Close()
		return
	}
	defer p.untrack(server)

	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pipe(server, client) }()
	go func() { defer wg.Done(); p.pipe(client, server) }()
	wg.Wait()
	client.Close()
	server.Close()
}

// chunk is data waiting for its time.
type chunk struct {
	buf *[]byte
	n   int
	due time.Time
}

var chunkPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

// pipe copies src to dst, each chunk delayed by the latency current when it
// was read. On a clean end of src it half-closes dst so the peer sees EOF in
// order, after the data; on any error it closes both connections, which
// ends the other direction too.
func (p *proxy) pipe(dst, src net.Conn) {
	queue := make(chan chunk, queuedChunks)
	readErr := make(chan error, 1)
	go func() {
		defer close(queue)
		for {
			buf := chunkPool.Get().(*[]byte)
			n, err := src.Read(*buf)
			if n > 0 {
				queue <- chunk{buf: buf, n: n, due: time.Now().Add(p.Latency())}
			} else {
				chunkPool.Put(buf)
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()

	timer := time.NewTimer(0)
	defer timer.Stop()
	for c := range queue {
		if wait := time.Until(c.due); wait > 0 {
			timer.Reset(wait)
			<-timer.C
		}
		_, err := dst.Write((*c.buf)[:c.n])
		chunkPool.Put(c.buf)
		if err != nil {
			dst.Close()
			src.Close()
			for c := range queue { // let the reader finish
				chunkPool.Put(c.buf)
			}
			return
		}
	}
	if err := <-readErr; errors.Is(err, io.EOF) {
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
			return
		}
	}
	dst.Close()
	src.Close()
}
