package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"baton/store"
	"baton/store/etcdhome"
	"baton/store/storetest/etcdtest"
	"baton/workflow"
)

// The start race through the wiring: a run saved running whose supervisor has not yet put
// its alive key. Reaper first: the takeover's supervision puts the tombstone and takes the
// run for dead; the late supervisor (OpenSharedRun) is refused, so no step starts.
// Supervisor first: the supervision sees it alive, and puts no tombstone.
func TestEtcdStartRaceBothOrders(t *testing.T) {
	c := etcdtest.StartCluster(t, 1)
	url := "etcd://" + strings.TrimPrefix(c.Endpoints()[0], "http://") + "/race"
	e, err := dialEtcd(url, EtcdOptions{Local: t.TempDir(), Lease: 2 * time.Second}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.cli.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	term, err := e.home.Campaign(ctx, e.identity(store.Owner{PID: 1, Instance: "reaper"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Resign(context.Background()) })

	late := &store.Run{ID: "r1-late", Attempt: 1, Machine: e.machine, Status: store.StatusRunning}
	if s := e.supervision(term, late); s.Alive {
		t.Fatalf("a run with no supervisor was taken for alive: %+v", s)
	}
	spec := *e.sharedSpec(late)
	if run, err := OpenSharedRun(spec); !errors.Is(err, etcdhome.ErrReaped) {
		if run != nil {
			run.Close()
		}
		t.Fatalf("the late supervisor of a reaped run: %v, want ErrReaped", err)
	}

	early := &store.Run{ID: "r2-early", Attempt: 1, Machine: e.machine, Status: store.StatusRunning}
	run, err := OpenSharedRun(*e.sharedSpec(early))
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if s := e.supervision(term, early); !s.Alive || s.Remote {
		t.Fatalf("a run whose supervisor holds its lease: %+v", s)
	}
	st, err := e.home.RunState(ctx, workflow.SharedRunKey(early.ID, early.Attempt))
	if err != nil || st.Reaped || st.Alive == nil {
		t.Fatalf("the supervised run's keys: %+v, %v", st, err)
	}
	// Once it ends (its lease revoked), the next look takes it for dead.
	if err := run.Close(); err != nil {
		t.Fatal(err)
	}
	if s := e.supervision(term, early); s.Alive {
		t.Fatalf("a run whose supervisor ended: %+v", s)
	}
}

// TestEtcdFollowPutsTombstone: a followed run (adopted when the takeover could not judge
// it) with no alive key and no end is taken for dead only after the follower's term put
// its tombstone: a supervisor that comes after that (its start delayed past the lease)
// is refused, so no late attempt runs beside a re-queued one.
func TestEtcdFollowPutsTombstone(t *testing.T) {
	c := etcdtest.StartCluster(t, 1)
	url := "etcd://" + strings.TrimPrefix(c.Endpoints()[0], "http://") + "/follow"
	e, err := dialEtcd(url, EtcdOptions{Local: t.TempDir(), Lease: 2 * time.Second}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.cli.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	term, err := e.home.Campaign(ctx, e.identity(store.Owner{PID: 1, Instance: "follower"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Resign(context.Background()) })

	late := &store.Run{ID: "r1-late", Attempt: 1, Machine: "elsewhere", Status: store.StatusRunning}
	key := workflow.SharedRunKey(late.ID, late.Attempt)
	dead := make(chan bool, 1)
	go e.sharedWatch(term)(ctx, key, func(j *workflow.Journal, alive bool) bool {
		if !alive {
			dead <- true
			return false
		}
		return true
	})
	select {
	case <-dead:
	case <-ctx.Done():
		t.Fatal("the follower never took the run without a supervisor for dead")
	}
	st, err := e.home.RunState(ctx, key)
	if err != nil || !st.Reaped {
		t.Fatalf("the run taken for dead has no tombstone: %+v, %v", st, err)
	}
	if run, err := OpenSharedRun(*e.sharedSpec(late)); !errors.Is(err, etcdhome.ErrReaped) {
		if run != nil {
			run.Close()
		}
		t.Fatalf("the late supervisor of a run taken for dead: %v, want ErrReaped", err)
	}
}

// TestEtcdCancelAfterTermEnded: once a writer's term is over (its context ended, as when
// it stopped being the writer) its engine's cancel of a remote run asks nothing of etcd:
// the run goes on for the next writer. While the term lasts the cancel is put.
func TestEtcdCancelAfterTermEnded(t *testing.T) {
	c := etcdtest.StartCluster(t, 1)
	url := "etcd://" + strings.TrimPrefix(c.Endpoints()[0], "http://") + "/cancel"
	e, err := dialEtcd(url, EtcdOptions{Local: t.TempDir(), Lease: 2 * time.Second}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.cli.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	term, err := e.home.Campaign(ctx, e.identity(store.Owner{PID: 1, Instance: "writer"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Resign(context.Background()) })
	r := &store.Run{ID: "r1", Attempt: 1, Machine: "elsewhere", Status: store.StatusRunning}
	run, err := OpenSharedRun(*e.sharedSpec(r))
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	tctx, end := context.WithCancel(ctx)
	end() // the term is over
	if err := e.sharedCancel(tctx, term)(workflow.SharedRunKey(r.ID, r.Attempt), "stop"); err == nil {
		t.Fatal("a writer whose term is over cancelled a run")
	}
	select {
	case why := <-run.Cancels():
		t.Fatalf("the run got a cancel (%q) from a writer whose term is over", why)
	default:
	}
	if err := e.sharedCancel(ctx, term)(workflow.SharedRunKey(r.ID, r.Attempt), "stop"); err != nil {
		t.Fatalf("the writer's cancel while its term lasts: %v", err)
	}
	select {
	case <-run.Cancels():
	case <-ctx.Done():
		t.Fatal("the writer's cancel never reached the run")
	}
}

// TestEtcdStartRaceStartingSupervisor: a run of this machine whose supervisor process is
// there (its marker) but has not put its alive key yet is not taken for dead: the
// takeover's supervision waits for it, and the supervisor, once it holds its lease, is
// not refused (an adopt run is not failed by a same-machine takeover within ms of its
// claim).
func TestEtcdStartRaceStartingSupervisor(t *testing.T) {
	c := etcdtest.StartCluster(t, 1)
	url := "etcd://" + strings.TrimPrefix(c.Endpoints()[0], "http://") + "/starting"
	e, err := dialEtcd(url, EtcdOptions{Local: t.TempDir(), Lease: 2 * time.Second}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.cli.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	term, err := e.home.Campaign(ctx, e.identity(store.Owner{PID: 1, Instance: "reaper"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Resign(context.Background()) })
	r := &store.Run{ID: "r1-starting", Attempt: 1, Machine: e.machine, Status: store.StatusRunning}
	// The starting supervisor: a process with the run's supervisor marker (it reads stdin
	// until the test ends it).
	starting := exec.Command("sh", "-c", "read x")
	starting.Env = append(os.Environ(), workflow.EnvSupervisorOf+"="+r.ID, workflow.EnvHome+"="+e.local)
	stdin, err := starting.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := starting.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = starting.Wait() }()
	judged := make(chan workflow.Supervision, 1)
	go func() { judged <- e.supervision(term, r) }()
	run, err := OpenSharedRun(*e.sharedSpec(r)) // the supervisor puts its alive key
	if err != nil {
		t.Fatalf("the starting supervisor was refused: %v", err)
	}
	defer run.Close()
	if s := <-judged; !s.Alive {
		t.Fatalf("a run whose supervisor was starting was taken for dead: %+v", s)
	}
}

// TestEtcdFollowUnreadableJournalFails: a followed run whose supervisor is gone and whose
// journal in etcd cannot be folded may have ended: it is shown ended failed, so it is
// recorded failed, never re-queued as a run that died mid-step.
func TestEtcdFollowUnreadableJournalFails(t *testing.T) {
	c := etcdtest.StartCluster(t, 1)
	url := "etcd://" + strings.TrimPrefix(c.Endpoints()[0], "http://") + "/badjournal"
	e, err := dialEtcd(url, EtcdOptions{Local: t.TempDir(), Lease: 2 * time.Second}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.cli.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	term, err := e.home.Campaign(ctx, e.identity(store.Owner{PID: 1, Instance: "follower"}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { term.Resign(context.Background()) })
	key := workflow.SharedRunKey("r1", 1)
	if _, err := e.cli.Put(ctx, e.home.Prefix()+"/runs/"+key+"/journal/"+fmt.Sprintf("%020d", 1), "{not json"); err != nil {
		t.Fatal(err)
	}
	seen := make(chan *workflow.Journal, 1)
	go e.sharedWatch(term)(ctx, key, func(j *workflow.Journal, alive bool) bool {
		if alive {
			return true
		}
		seen <- j
		return false
	})
	select {
	case j := <-seen:
		if j == nil || !j.Ended || j.Status != store.StatusFailed {
			t.Fatalf("a dead run with an unreadable journal was shown %+v, want ended failed", j)
		}
	case <-ctx.Done():
		t.Fatal("the run was never shown dead")
	}
}
