package host

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
	"baton/store/etcdhome"
	"baton/store/storetest/etcdtest"
)

// An etcd home with real processes: a 3-member cluster (etcdtest, each member its own
// process), headless windows as child processes, and "machines" made of a machine id
// (BATON_MACHINE), a local folder (--local) and a proxy to the cluster that the test can
// cut. Every acknowledged write is read back from etcd itself at the end of each case.

// etcdMachine is one machine of the test.
type etcdMachine struct {
	name  string
	local string
	proxy *etcdtest.Proxy
}

func newEtcdMachine(t testing.TB, c *etcdtest.Cluster, name string) *etcdMachine {
	return &etcdMachine{name: name, local: t.TempDir(), proxy: etcdtest.NewProxy(t, c.Endpoints())}
}

// home is the etcd home prefix as this machine reaches it (through its proxy).
func (m *etcdMachine) home(prefix string) string {
	var hps []string
	for _, ep := range m.proxy.Endpoints() {
		hps = append(hps, strings.TrimPrefix(ep, "http://"))
	}
	return "etcd://" + strings.Join(hps, ",") + "/" + prefix
}

// window starts a headless window of this machine on the etcd home prefix.
func (m *etcdMachine) window(t testing.TB, prefix, lease string) *child {
	return startChild(t, m.home(prefix), withEnv(EnvMachine+"="+m.name, "BATON_TEST_LOCAL="+m.local, "BATON_TEST_LEASE="+lease))
}

// etcdView reads a home straight from the cluster, past every proxy.
type etcdView struct {
	t   *testing.T
	cli *clientv3.Client
	h   *etcdhome.Home
}

func newEtcdView(t *testing.T, cli *clientv3.Client, prefix string) *etcdView {
	h, err := etcdhome.Open(cli, prefix, etcdhome.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &etcdView{t: t, cli: cli, h: h}
}

func (v *etcdView) doc() *store.Doc {
	v.t.Helper()
	d, err := v.h.DocHome().Load(&store.Doc{}, true)
	if err != nil {
		v.t.Fatalf("read the document from etcd: %v", err)
	}
	return d
}

func (v *etcdView) writer() etcdhome.Identity {
	v.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	id, _, err := v.h.Writer(ctx)
	if err != nil {
		v.t.Fatalf("who writes: %v", err)
	}
	return id
}

// leaseAlive reports whether lease is still granted (etcd's TimeToLive > 0).
func (v *etcdView) leaseAlive(lease clientv3.LeaseID) bool {
	v.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := v.cli.TimeToLive(ctx, lease)
	if err != nil {
		v.t.Fatalf("lease %x: %v", int64(lease), err)
	}
	return r.TTL > 0
}

// checkAcked fails unless every acknowledged workflow is in etcd's document and none of
// the refused ones is.
func (v *etcdView) checkAcked(acked, refused []string) {
	v.t.Helper()
	d := v.doc()
	for _, n := range acked {
		if d.Workflow(n) == nil {
			v.t.Errorf("acknowledged write %q is not in etcd (generation %d: %v)", n, d.Generation, diskNames(d))
		}
	}
	for _, n := range refused {
		if d.Workflow(n) != nil {
			v.t.Errorf("refused write %q is in etcd", n)
		}
	}
}

// ackWrite adds workflow name through window c, failing unless acknowledged.
func ackWrite(c *child, name string, acked *[]string) {
	c.t.Helper()
	c.ok(addWF(name, 1, "fail"))
	*acked = append(*acked, name)
}

// awaitStatus asks c for its status until ok says yes (each reply is a fresh answer).
func awaitStatus(t testing.TB, c *child, timeout time.Duration, what string, ok func(map[string]any) bool) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		st := c.ok(map[string]any{"op": "status"})
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d: %s: not within %s; last status %v", c.pid, what, timeout, st)
		}
		c.waitFor(100*time.Millisecond, func() bool { return false }) // no event to wait on: status is asked
	}
}

// writerEventSince waits for c's writer event at index >= from and returns when it came.
func writerEventSince(t testing.TB, c *child, from int, timeout time.Duration, why string) time.Time {
	t.Helper()
	var at time.Time
	if !c.waitFor(timeout, func() bool {
		for i := from; i < len(c.events); i++ {
			if e := c.events[i]; e["event"] == "role" && e["role"] == "writer" {
				at = c.eventAt[i]
				return true
			}
		}
		return false
	}) {
		t.Fatalf("child %d did not become the writer within %s: %s; events %v", c.pid, timeout, why, c.eventsCopy())
	}
	return at
}

// readerWhileLeaseLives asks b for its status for as long as the lost writer id's lease is
// still granted, failing if b is anything but a reader then: a window without evidence of
// the writer's death waits for its lease. It returns how many answers it checked (at least
// one, or the test fails: nothing was checked).
func readerWhileLeaseLives(t *testing.T, v *etcdView, b *child, id etcdhome.Identity) int {
	t.Helper()
	observed := 0
	for v.leaseAlive(id.Lease) {
		st := b.ok(map[string]any{"op": "status"})
		if !v.leaseAlive(id.Lease) {
			break // the answer may be from after the expiry: it proves nothing
		}
		if st["role"] != "reader" {
			t.Fatalf("the other machine's window is %v while the lost writer's lease %x is still granted", st["role"], int64(id.Lease))
		}
		observed++
	}
	if observed == 0 {
		t.Fatal("the lost writer's lease was never seen granted: nothing was checked")
	}
	return observed
}

// Not parallel (nor are the other etcd process tests): with 2 s leases they run alone,
// as beside parallel tests on a loaded machine they lost what they observe.
func TestEtcdHomeProcesses(t *testing.T) {
	c := etcdtest.StartCluster(t, 3)
	cli := etcdtest.Client(t, c.Endpoints()...)

	// (a) Two windows on one machine: kill -9 of the writer; the survivor proves it dead
	// by its instance lock and revokes its lease, so it takes over long before the lease
	// (30 s) could have expired by itself.
	t.Run("SameMachineKill9", func(t *testing.T) {
		const lease = 30 * time.Second
		v := newEtcdView(t, cli, "same")
		m := newEtcdMachine(t, c, "m1")
		a := m.window(t, "same", lease.String())
		if r := a.initialRole(); r != "writer" {
			t.Fatalf("first window: %s", r)
		}
		var acked []string
		ackWrite(a, "a1", &acked)
		b := m.window(t, "same", lease.String())
		if r := b.initialRole(); r != "reader" {
			t.Fatalf("second window: %s", r)
		}
		awaitStatus(t, b, 10*time.Second, "the reader names the writer's machine", func(st map[string]any) bool {
			return st["writer_machine"] == "m1" && fmt.Sprint(st["writer_pid"]) == fmt.Sprint(a.pid)
		})
		ackWrite(a, "a2", &acked)
		id := v.writer()
		if id.Owner.PID != a.pid || id.Machine != "m1" {
			t.Fatalf("the election names %+v, not pid %d on m1", id, a.pid)
		}
		from := b.nEvents()
		a.kill9()
		killed := time.Now()
		// The dead writer's lease cannot expire by itself before 2/3 of it passed since its
		// last renewal (a client renews every third of the TTL), that is not before
		// killed + 20 s: a takeover before then is the revoke's doing.
		at := writerEventSince(t, b, from, 2*lease/3-2*time.Second,
			"the same machine's survivor must prove the writer dead and revoke its lease, not wait for it")
		t.Logf("same-machine takeover: writer event %s after kill -9 (lease %s)", at.Sub(killed).Round(time.Millisecond), lease)
		if v.leaseAlive(id.Lease) {
			t.Errorf("the dead writer's lease %x is still granted after the takeover", int64(id.Lease))
		}
		ackWrite(b, "b1", &acked)
		v.checkAcked(acked, nil)
	})

	// (b) Two machines: kill -9 of the writer; the other machine has no evidence of its
	// death and waits for the lease: while the dead writer's lease is still granted it is
	// a reader, each time it is asked; then it takes over.
	t.Run("OtherMachineKill9WaitsForLease", func(t *testing.T) {
		const lease = 2 * time.Second
		v := newEtcdView(t, cli, "other")
		ma, mb := newEtcdMachine(t, c, "ma"), newEtcdMachine(t, c, "mb")
		a := ma.window(t, "other", lease.String())
		if r := a.initialRole(); r != "writer" {
			t.Fatalf("first window: %s", r)
		}
		var acked []string
		ackWrite(a, "x1", &acked)
		b := mb.window(t, "other", lease.String())
		if r := b.initialRole(); r != "reader" {
			t.Fatalf("second window: %s", r)
		}
		awaitStatus(t, b, 10*time.Second, "the reader names the writer's machine", func(st map[string]any) bool {
			return st["writer_machine"] == "ma"
		})
		// A write forwarded from the other machine is refused at once, naming the writer's
		// machine (requests go through the local folder, which the writer does not share).
		fw := addWF("forwarded", 1, "fail")
		fw["forward"] = true
		if r := b.do(fw); r["ok"] == true || !strings.Contains(fmt.Sprint(r["error"]), "machine ma, window pid") {
			t.Fatalf("a write forwarded to another machine: %v", r)
		}
		id := v.writer()
		from := b.nEvents()
		a.kill9()
		killed := time.Now()
		observed := readerWhileLeaseLives(t, v, b, id)
		at := writerEventSince(t, b, from, 30*time.Second, "the other machine must take over once the lease expired")
		t.Logf("other-machine takeover: writer event %s after kill -9 (lease %s; reader confirmed %d times while the lease lived)",
			at.Sub(killed).Round(time.Millisecond), lease, observed)
		awaitStatus(t, b, 10*time.Second, "the new writer names its machine", func(st map[string]any) bool {
			return st["role"] == "writer" && st["writer_machine"] == "mb"
		})
		ackWrite(b, "y1", &acked)
		v.checkAcked(acked, []string{"forwarded"})
	})

	// (c) The writer stopped (SIGSTOP) past its lease; another machine takes over; a write
	// sent to the stopped writer is read by it the moment it continues (SIGCONT), and is
	// refused: nothing of it reaches etcd, then or later.
	t.Run("StoppedWriterNeverWritesAgain", func(t *testing.T) {
		const lease = 2 * time.Second
		v := newEtcdView(t, cli, "stop")
		ma, mb := newEtcdMachine(t, c, "ma"), newEtcdMachine(t, c, "mb")
		a := ma.window(t, "stop", lease.String())
		if r := a.initialRole(); r != "writer" {
			t.Fatalf("first window: %s", r)
		}
		var acked []string
		ackWrite(a, "s1", &acked)
		b := mb.window(t, "stop", lease.String())
		if r := b.initialRole(); r != "reader" {
			t.Fatalf("second window: %s", r)
		}
		id := v.writer()
		from := b.nEvents()
		if err := syscall.Kill(a.pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		contd := false
		defer func() {
			if !contd {
				_ = syscall.Kill(a.pid, syscall.SIGCONT)
			}
		}()
		n := readerWhileLeaseLives(t, v, b, id)
		writerEventSince(t, b, from, 30*time.Second, "the other machine must take over once the stopped writer's lease expired")
		t.Logf("the other machine stayed a reader while the stopped writer's lease lived (%d answers)", n)
		ackWrite(b, "s2", &acked)
		late := a.send(addWF("late-stopped", 1, "fail")) // waits in the pipe until SIGCONT
		if err := syscall.Kill(a.pid, syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		contd = true
		if r := a.reply(late, 60*time.Second); r["ok"] == true {
			t.Fatalf("the stopped writer's write was acknowledged after SIGCONT: %v", r)
		} else {
			t.Logf("the continued writer's first write was refused: %v", r["error"])
		}
		awaitStatus(t, a, 30*time.Second, "the continued writer knows it is a reader", func(st map[string]any) bool {
			return st["role"] == "reader"
		})
		ackWrite(b, "s3", &acked)
		v.checkAcked(acked, []string{"late-stopped"})
	})

	// (d) The writer's machine cut off from the cluster: it says etcd is unreachable; the
	// other machine takes over after the lease; after Join the old writer's first write is
	// refused and nothing of it reaches etcd.
	t.Run("CutOffWriter", func(t *testing.T) {
		const lease = 2 * time.Second
		v := newEtcdView(t, cli, "cut")
		ma, mb := newEtcdMachine(t, c, "ma"), newEtcdMachine(t, c, "mb")
		a := ma.window(t, "cut", lease.String())
		if r := a.initialRole(); r != "writer" {
			t.Fatalf("first window: %s", r)
		}
		var acked []string
		ackWrite(a, "d1", &acked)
		b := mb.window(t, "cut", lease.String())
		if r := b.initialRole(); r != "reader" {
			t.Fatalf("second window: %s", r)
		}
		id := v.writer()
		from := b.nEvents()
		ma.proxy.Cut()
		cut := time.Now()
		n := readerWhileLeaseLives(t, v, b, id)
		st := awaitStatus(t, a, 30*time.Second, "the cut-off writer says etcd is unreachable", func(st map[string]any) bool {
			return strings.Contains(fmt.Sprint(st["problem"]), "etcd unreachable since")
		})
		t.Logf("cut-off writer's status: %v", st["problem"])
		at := writerEventSince(t, b, from, 30*time.Second, "the other machine must take over once the cut-off writer's lease expired")
		t.Logf("takeover from a cut-off machine: %s after the cut (lease %s; reader confirmed %d times while the lease lived)",
			at.Sub(cut).Round(time.Millisecond), lease, n)
		ackWrite(b, "d2", &acked)
		ma.proxy.Join()
		// Its first write once it reaches etcd again (not merely refused for the outage).
		awaitStatus(t, a, 30*time.Second, "the rejoined window reaches etcd again", func(st map[string]any) bool {
			return !strings.Contains(fmt.Sprint(st["problem"]), "etcd unreachable")
		})
		if r := a.do(addWF("late-cut", 1, "fail")); r["ok"] == true {
			t.Fatalf("the cut-off writer's first write after Join was acknowledged: %v", r)
		} else {
			t.Logf("the rejoined writer's first write was refused: %v", r["error"])
		}
		ackWrite(b, "d3", &acked)
		v.checkAcked(acked, []string{"late-cut"})
	})
}
