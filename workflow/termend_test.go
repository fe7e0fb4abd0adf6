package workflow

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"baton/store"
	"baton/workflow/proc"
)

// TestEndedTermKeepsUnrecordedEnds: a run that ends just as its writer's term ends (a
// hand-over: the term ends, then the engine is detached) cannot be recorded by its
// follower any more; its supervisor's journal must then stay, so that the next writer
// records the run from it. Before, the follower removed the journal and the lock whenever
// the supervisor was gone, recorded or not, and the next writer, finding a running run
// with no supervisor and no journal, failed it (chaos: at a hand-over, the new writer
// failed a run of sched or adopt that had succeeded). Each follower is held in its first
// save until its term has ended and its supervisor has written the end and exited, the
// interleaving a loaded machine makes; which of the ready events a follower then takes is
// Go's random choice, so many runs are followed at once (without the protection, about
// one run in four lost its journal).
func TestEndedTermKeepsUnrecordedEnds(t *testing.T) {
	const runs = 24
	home := t.TempDir()
	st := store.New(home, store.Options{})
	st.Reload()
	st.BeginEpoch()
	ctx, endTerm := context.WithCancel(context.Background())
	defer endTerm()
	errEnded := errors.New("this writer term ended")
	var gated atomic.Bool
	arrived := make(chan struct{}, runs) // a follower held in its first save (each makes one)
	release := make(chan struct{})
	releaseAll := sync.OnceFunc(func() { close(release) })
	t.Cleanup(releaseAll) // a test that failed early lets its followers go
	update := func(fn func(*store.Doc) error) (*store.Doc, error) {
		if gated.Load() {
			select {
			case arrived <- struct{}{}:
			default:
			}
			<-release
		}
		if ctx.Err() != nil { // as Term.Update: no save once the term ended
			return nil, errEnded
		}
		return st.Update(fn)
	}
	me := store.Owner{PID: os.Getpid(), Instance: "ending"}
	eng := NewEngine(ctx, update, me, home, nil)
	proceed := filepath.Join(t.TempDir(), "proceed")
	wf := store.Workflow{Name: "w", MaxConcurrent: runs, Steps: []store.Step{{Argv: []string{"sh", "-c",
		`while [ ! -e "$1" ]; do sleep 0.005; done`, "step", proceed}}}}
	if _, err := st.Update(func(d *store.Doc) error {
		if err := AddWorkflow(d, wf); err != nil {
			return err
		}
		for i := 0; i < runs; i++ {
			if _, err := Enqueue(d, "w", "", time.Now()); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	ids, err := eng.Kick()
	if err != nil || len(ids) != runs {
		t.Fatalf("kick: %v, started %v", err, ids)
	}
	gated.Store(true)
	t.Cleanup(func() {
		for _, id := range ids {
			KillRun(home, &store.Run{ID: id}, 10*time.Second)
		}
	})
	for i := 0; i < runs; i++ {
		select {
		case <-arrived:
		case <-time.After(60 * time.Second):
			t.Fatalf("%d of %d followers came to their first save", i, runs)
		}
	}

	endTerm()
	if err := os.WriteFile(proceed, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		waitSupervisorGone(t, home, id)
	}
	releaseAll()
	eng.Detach()

	d, err := st.View()
	if err != nil {
		t.Fatal(err)
	}
	dead := func(store.Owner) (bool, string) { return false, "the test ended its term" }
	sup := func(r *store.Run) Supervision { return SupervisionOf(home, r.ID) }
	orphans := FindOrphans(d, dead, sup, true)
	if len(orphans) != runs {
		t.Fatalf("%d runs left running by the ended term, want %d (none could be recorded)", len(orphans), runs)
	}
	for _, o := range orphans {
		if o.Action != ActionRecorded || o.Status != store.StatusSucceeded {
			t.Errorf("run %s: the next writer's reaper decides %q (status %q, supervisor pid %d), not recorded succeeded: its journal is gone", o.Run, o.Action, o.Status, o.SupervisorPID)
		}
	}
}

// waitSupervisorGone waits until run id's journal shows its end, its supervisor has
// exited and no flock is held or waited for on its lock any more (the follower's death
// watch has won it and let it go).
func waitSupervisorGone(t *testing.T, home, id string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		j, err := ReadJournal(home, id)
		if err == nil && j.Ended && !proc.Alive(j.SupervisorPID, j.SupervisorStart) && !flocked(lockPath(home, id)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s: supervisor not gone (journal %+v, %v)", id, j, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// flocked reports whether a flock on path's inode is held or waited for (a line of
// /proc/locks).
func flocked(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	ino := ":" + strconv.FormatUint(fi.Sys().(*syscall.Stat_t).Ino, 10)
	b, _ := os.ReadFile("/proc/locks")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 6 && strings.Contains(l, "FLOCK") && strings.HasSuffix(f[len(f)-3], ino) {
			return true
		}
	}
	return false
}
