package etcdtest

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// generous bounds a wait that should take well under a second on an idle machine.
const generous = 30 * time.Second

func ctxFor(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustPut(t *testing.T, cli *clientv3.Client, k, v string) {
	t.Helper()
	if _, err := cli.Put(ctxFor(t, generous), k, v); err != nil {
		t.Fatalf("put %s: %v", k, err)
	}
}

// putEventually writes k until a write succeeds: after a fault, a write in flight may fail
// ("request timed out, possibly due to previous leader failure") though the cluster serves
// the next one.
func putEventually(t *testing.T, cli *clientv3.Client, k, v string) {
	t.Helper()
	deadline := time.Now().Add(generous)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := cli.Put(ctx, k, v)
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("put %s: no success in %v: %v", k, generous, err)
		}
		t.Logf("put %s: %v; again", k, err)
	}
}

func mustGet(t *testing.T, cli *clientv3.Client, k string) string {
	t.Helper()
	r, err := cli.Get(ctxFor(t, generous), k)
	if err != nil {
		t.Fatalf("get %s: %v", k, err)
	}
	if len(r.Kvs) != 1 {
		t.Fatalf("get %s: %d keys", k, len(r.Kvs))
	}
	return string(r.Kvs[0].Value)
}

// A write through the cluster is read back through every member, each its own process.
func TestPutGet(t *testing.T) {
	c := StartCluster(t, 3)
	mustPut(t, Client(t, c.Endpoints()...), "k", "v1")
	pids := map[int]bool{}
	for i := range c.Size() {
		m := c.Member(i)
		if got := mustGet(t, Client(t, m.Endpoint()), "k"); got != "v1" {
			t.Errorf("member %s reads %q, want v1", m.Name(), got)
		}
		pids[m.Pid()] = true
	}
	if len(pids) != 3 || pids[0] {
		t.Errorf("member pids %v: want three distinct processes", pids)
	}
}

// With the leader killed (-9) the two others still have a quorum: a new leader is elected
// and writes go on; the killed member restarts on its data and catches up.
func TestKillLeaderKeepsQuorum(t *testing.T) {
	c := StartCluster(t, 3)
	cli := Client(t, c.Endpoints()...)
	mustPut(t, cli, "k", "before")
	old, err := c.Leader(ctxFor(t, generous))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Member(old).Kill(); err != nil {
		t.Fatal(err)
	}
	putEventually(t, cli, "k", "after")
	now, err := c.Leader(ctxFor(t, generous))
	if err != nil {
		t.Fatal(err)
	}
	if now == old {
		t.Fatalf("member %d still leads after its kill", old)
	}
	if err := c.Member(old).Restart(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctxFor(t, generous)); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, Client(t, c.Member(old).Endpoint()), "k"); got != "after" {
		t.Errorf("the restarted member reads %q, want after", got)
	}
}

// Two of three members stopped (SIGSTOP): no quorum, so a write through the third times out;
// with one of them continued (SIGCONT) the write goes through. The control: with only one
// member stopped, a write succeeds. Each phase writes its own key: a write that failed (a
// deadline) may still be applied later, even after later writes (a proposal held in a
// stopped member's socket is forwarded to the new leader when it continues).
func TestQuorumLostAndRegained(t *testing.T) {
	c := StartCluster(t, 3)
	cli := Client(t, c.Member(0).Endpoint())
	if err := c.Member(1).Stop(); err != nil {
		t.Fatal(err)
	}
	putEventually(t, cli, "one stopped", "v") // control: a quorum remains
	if err := c.Member(2).Stop(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	_, err := cli.Put(ctx, "no quorum", "v")
	cancel()
	if err == nil {
		t.Fatal("a write succeeded with two of three members stopped")
	}
	t.Logf("without quorum: %v", err)
	if err := c.Member(2).Cont(); err != nil {
		t.Fatal(err)
	}
	putEventually(t, cli, "quorum again", "v")
	if err := c.Member(1).Cont(); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctxFor(t, generous)); err != nil {
		t.Fatal(err)
	}
	mustGet(t, Client(t, c.Member(1).Endpoint()), "quorum again") // caught up after SIGCONT
}
