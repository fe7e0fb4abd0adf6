package etcdtest

import (
	"context"
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

var long = flag.Bool("etcdtest.long", false, "run the long etcdtest tests (about a minute each)")

func needLong(t *testing.T) {
	t.Helper()
	if !*long {
		t.Skip("long test: run with -etcdtest.long")
	}
}

// Writes go on while the leader is killed (-9) and restarted, and a member is stopped and
// continued, round after round: every acknowledged write is there at the end, read through
// every member. The harness's faults are real enough to lose nothing etcd promises to keep.
func TestLongFaultsDuringWrites(t *testing.T) {
	needLong(t)
	const rounds = 6
	c := StartCluster(t, 3)
	cli := Client(t, c.Endpoints()...)
	stop := make(chan struct{})
	var (
		wg    sync.WaitGroup
		acked []int
	)
	wg.Add(1)
	go func() { defer wg.Done(); acked = writeUntil(cli, stop) }()
	for r := range rounds {
		leader, err := c.Leader(ctxFor(t, generous))
		if err != nil {
			t.Fatal(err)
		}
		m := c.Member(leader)
		if r%2 == 0 {
			err = m.Kill()
		} else {
			err = m.Stop()
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Leader(ctxFor(t, generous)); err != nil { // the others elect one
			t.Fatal(err)
		}
		if r%2 == 0 {
			err = m.Restart()
		} else {
			err = m.Cont()
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := c.WaitHealthy(ctxFor(t, generous)); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged")
	}
	for i := range c.Size() {
		r, err := Client(t, c.Member(i).Endpoint()).Get(ctxFor(t, generous), "w/", clientv3.WithPrefix())
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, kv := range r.Kvs {
			have[string(kv.Key)] = true
		}
		for _, n := range acked {
			if !have[key(n)] {
				t.Errorf("member %d: acknowledged write %s is missing", i, key(n))
			}
		}
	}
	t.Logf("%d writes acknowledged across %d leader faults", len(acked), rounds)
}

// writeUntil writes w/0, w/1, … until stop and returns the numbers acknowledged.
func writeUntil(cli *clientv3.Client, stop <-chan struct{}) []int {
	var acked []int
	for n := 0; ; n++ {
		select {
		case <-stop:
			return acked
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := cli.Put(ctx, key(n), "v")
		cancel()
		if err == nil {
			acked = append(acked, n)
		}
	}
}

func key(n int) string { return fmt.Sprintf("w/%08d", n) }

// A client made by ClientConfig keeps its connections: an etcd server closes a connection
// that sends keepalive pings without a stream ("too_many_pings", after about 30 s), which
// would make every idle client reconnect over and over. The proxy counts the connections.
func TestLongClientKeepsItsConnections(t *testing.T) {
	needLong(t)
	const idle = 60 * time.Second // the server closes such a connection after 30–50 s
	c := StartCluster(t, 3)
	p := NewProxy(t, c.Endpoints())
	cli := Client(t, p.Endpoints()...)
	mustPut(t, cli, "k", "v")
	watch := cli.Watch(t.Context(), "idle") // a stream on one connection, none on the others
	before := p.Accepted()
	select {
	case r := <-watch:
		t.Fatalf("the watch ended or saw a change while idle: %+v", r)
	case <-time.After(idle):
	}
	if now := p.Accepted(); now != before {
		t.Errorf("the client opened %d new connections in %v idle", now-before, idle)
	}
}
