package etcdtest

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// quiet is how long a test watches for something that must not happen (a byte crossing a
// cut). A broken proxy shows at once; the wait only makes a pass meaningful.
const quiet = time.Second

// echoServer echoes every connection and counts the connections it accepted.
func echoServer(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String(), &n
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", hostPort(addr), generous)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func send(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := c.Write([]byte(s)); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

// expect reads len(want) bytes within d.
func expect(t *testing.T, c net.Conn, want string, d time.Duration) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, len(want))
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatalf("read %q: %v", want, err)
	}
	if string(buf) != want {
		t.Fatalf("read %q, want %q", buf, want)
	}
}

// expectSilence checks that nothing arrives, and that the connection is neither closed nor
// reset, for the quiet period: a partition, not a refusal.
func expectSilence(t *testing.T, c net.Conn) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(quiet))
	n, err := c.Read(make([]byte, 1))
	if n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("across a cut: read %d bytes, %v; want a stall", n, err)
	}
}

// A cut stalls open connections both ways and leaves new ones going nowhere, without closing
// or resetting anything; Join delivers what was held, in order, on old and new connections.
func TestProxyCutStallsAndJoinResumes(t *testing.T) {
	addr, accepted := echoServer(t)
	p := NewProxy(t, []string{addr})
	old := dial(t, p.Endpoints()[0])
	send(t, old, "a")
	expect(t, old, "a", generous) // control: joined, bytes cross
	p.Cut()
	send(t, old, "b")
	expectSilence(t, old)
	fresh := dial(t, p.Endpoints()[0]) // accepted: the kernel of the proxy's side answers
	send(t, fresh, "c")
	expectSilence(t, fresh)
	if n := accepted.Load(); n != 1 {
		t.Fatalf("the server accepted %d connections during the cut, want only the first", n)
	}
	p.Join()
	expect(t, old, "b", generous)
	expect(t, fresh, "c", generous)
}

// A client through a cut proxy gets no answer (its request runs into its deadline) while a
// client beside it, straight to the cluster, writes; after Join the first one writes again.
func TestProxyCutTimesOutClient(t *testing.T) {
	c := StartCluster(t, 3)
	p := NewProxy(t, c.Endpoints())
	cut := Client(t, p.Endpoints()...)
	direct := Client(t, c.Endpoints()...)
	mustPut(t, cut, "k", "through the proxy") // control: joined, it works
	p.Cut()
	// One key a phase: the timed-out write is held by the cut, not lost, so Join may
	// deliver and apply it after the later ones (see the README).
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	_, err := cut.Put(ctx, "k-cut", "across the cut")
	cancel()
	if err == nil {
		t.Fatal("a write through a cut proxy succeeded")
	}
	t.Logf("across the cut: %v", err)
	mustPut(t, direct, "k-direct", "direct")
	p.Join()
	putEventually(t, cut, "k-joined", "joined")
	if got := mustGet(t, direct, "k-joined"); got != "joined" {
		t.Errorf("read %q after Join, want joined", got)
	}
}

// A session lease kept through a proxy ends when the proxy is cut: the server lets it expire
// (no keepalive reaches it), the client's session says Done, and an election campaigned by
// another client, which waited behind it, is won. This is what the writer lock of an etcd
// home relies on. The control: while joined, the lease lives well past its TTL and the other
// campaign waits.
func TestSessionLeaseExpiresAfterCut(t *testing.T) {
	const ttl = 2 // seconds; etcd's minimum with these timings (1.5 × ElectionMs, rounded up)
	c := StartCluster(t, 3)
	p := NewProxy(t, c.Endpoints())
	cut, direct := Client(t, p.Endpoints()...), Client(t, c.Endpoints()...)
	s1 := newSession(t, cut, ttl)
	if err := concurrency.NewElection(s1, "lock").Campaign(ctxFor(t, generous), "machine A"); err != nil {
		t.Fatal(err)
	}
	s2 := newSession(t, direct, ttl)
	won := make(chan error, 1)
	go func() { won <- concurrency.NewElection(s2, "lock").Campaign(context.Background(), "machine B") }()

	// Control: joined, machine A keeps its lease for twice its TTL; B waits.
	select {
	case err := <-won:
		t.Fatalf("machine B won while machine A kept its lease: %v", err)
	case <-s1.Done():
		t.Fatal("machine A's session ended while joined")
	case <-time.After(2 * ttl * time.Second):
	}
	if live := leaseTTL(t, direct, s1.Lease()); live == -1 {
		t.Fatal("machine A's lease expired while joined")
	}

	p.Cut()
	cutAt := time.Now()
	select {
	case err := <-won:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(generous):
		t.Fatalf("machine B did not win within %v of the cut", generous)
	}
	t.Logf("machine B won %v after the cut (lease TTL %ds)", time.Since(cutAt).Round(time.Millisecond), ttl)
	if live := leaseTTL(t, direct, s1.Lease()); live != -1 {
		t.Errorf("machine A's lease has TTL %d after B won, want -1 (expired)", live)
	}
	select {
	case <-s1.Done():
		t.Logf("machine A's session ended %v after the cut", time.Since(cutAt).Round(time.Millisecond))
	case <-time.After(generous):
		t.Fatalf("machine A's session still not Done %v after the cut", generous)
	}
}

func newSession(t *testing.T, cli *clientv3.Client, ttl int) *concurrency.Session {
	t.Helper()
	s, err := concurrency.NewSession(cli, concurrency.WithTTL(ttl))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Orphan() })
	return s
}

// leaseTTL is the lease's remaining TTL in whole seconds, rounded down, as the cluster says:
// -1 once it expired (0 is a live lease with less than a second left).
func leaseTTL(t *testing.T, cli *clientv3.Client, id clientv3.LeaseID) int64 {
	t.Helper()
	r, err := cli.TimeToLive(ctxFor(t, generous), id)
	if err != nil {
		t.Fatal(err)
	}
	return r.TTL
}
