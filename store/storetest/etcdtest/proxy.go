package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// A Proxy is one "machine"'s network link to the cluster: a TCP forwarder per member that the
// test can cut and join again. Give a machine's processes Endpoints instead of the cluster's.
//
// Cut behaves like a network partition, not like a dead host: no byte crosses in either
// direction, but nothing is refused or reset. Open connections stall (a sender's writes fill
// the kernel's buffers, then block; its reads wait), so a client only notices through its own
// timeouts: the gRPC keepalive (ClientConfig: about two seconds), a request's deadline, a
// lease's TTL. Bytes a sender's kernel had handed on before the cut may still arrive, as
// packets in flight do. New connections are accepted by the proxy (across a real partition
// the SYN would go unanswered; either way no byte reaches the member) and lead nowhere
// until Join.
//
// Join lets bytes flow again, on old connections too: what was written during the cut is
// delivered then, in order, as TCP delivers it after a partition heals; a connection its
// client gave up on during the cut delivers its close. Connections accepted during the cut
// reach their member only now.
//
// The methods may be called from any goroutine. The proxy ends with the test: its listeners
// and connections are closed.
type Proxy struct {
	targets []string // member host:port, as given
	lns     []net.Listener
	done    chan struct{} // closed when the proxy ends

	mu       sync.Mutex // guards the fields below
	open     chan struct{}
	conns    map[net.Conn]struct{}
	accepted int // connections accepted so far
}

// NewProxy starts a proxy in front of endpoints (URLs or host:port), joined. It fails t if it
// cannot listen.
func NewProxy(t testing.TB, endpoints []string) *Proxy {
	t.Helper()
	p := &Proxy{done: make(chan struct{}), open: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	close(p.open)
	t.Cleanup(p.close)
	for _, ep := range endpoints {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("etcdtest: proxy: %v", err)
		}
		p.lns = append(p.lns, ln)
		p.targets = append(p.targets, hostPort(ep))
		go p.accept(ln, hostPort(ep))
	}
	return p
}

// hostPort is the host:port of an endpoint written as a URL or as host:port.
func hostPort(ep string) string {
	if u, err := url.Parse(ep); err == nil && u.Host != "" {
		return u.Host
	}
	return ep
}

// Endpoints are the proxy's URLs, one per member in the order given to NewProxy.
func (p *Proxy) Endpoints() []string {
	eps := make([]string, len(p.lns))
	for i, ln := range p.lns {
		eps[i] = "http://" + ln.Addr().String()
	}
	return eps
}

// Cut stops every byte, both ways, on every connection, until Join. Cutting a cut proxy does
// nothing.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
		p.open = make(chan struct{})
	default:
	}
}

// Join lets bytes flow again after Cut. Joining a joined proxy does nothing.
func (p *Proxy) Join() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
	default:
		close(p.open)
	}
}

// Accepted is the number of connections the proxy accepted so far: a client that keeps its
// connections shows a steady number.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// IsCut says whether the proxy is cut.
func (p *Proxy) IsCut() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.open:
		return false
	default:
		return true
	}
}

// pass waits until the proxy is joined; false when the proxy ended first.
func (p *Proxy) pass() bool {
	p.mu.Lock()
	open := p.open
	p.mu.Unlock()
	select {
	case <-open:
		return true
	case <-p.done:
		return false
	}
}

func (p *Proxy) accept(ln net.Listener, target string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed with the proxy
		}
		if !p.track(c) {
			return
		}
		p.mu.Lock()
		p.accepted++
		p.mu.Unlock()
		go p.link(c, target)
	}
}

// link connects an accepted connection to its member once the proxy is joined, and forwards
// both ways. A member that refuses (killed) gets the client's connection closed, as its
// kernel would reset it.
func (p *Proxy) link(c net.Conn, target string) {
	defer p.drop(c)
	if !p.pass() {
		return
	}
	m, err := net.DialTimeout("tcp", target, DialTimeout)
	if err != nil {
		return
	}
	if !p.track(m) {
		m.Close()
		return
	}
	defer p.drop(m)
	both := make(chan struct{}, 2)
	go func() { p.pump(m, c); both <- struct{}{} }()
	go func() { p.pump(c, m); both <- struct{}{} }()
	<-both
	<-both
}

// pump copies src to dst, holding every chunk (and the end of the stream) while the proxy is
// cut.
func (p *Proxy) pump(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if !p.pass() {
			return
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				src.Close() // the far side is gone: let this side see it
				return
			}
		}
		if err != nil {
			if tc, ok := dst.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			return
		}
	}
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
		c.Close()
		return false
	default:
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) drop(c net.Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// close ends the proxy: listeners and connections are closed, waiting pumps return.
func (p *Proxy) close() {
	p.mu.Lock()
	close(p.done)
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	for _, ln := range p.lns {
		ln.Close()
	}
}

// String names the proxy's routes, for logs.
func (p *Proxy) String() string {
	var b strings.Builder
	for i, ln := range p.lns {
		fmt.Fprintf(&b, "%s->%s ", ln.Addr(), p.targets[i])
	}
	return strings.TrimSpace(b.String())
}
