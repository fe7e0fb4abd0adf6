package host

import (
	"context"
	"errors"
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
