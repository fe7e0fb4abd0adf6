package workflow

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"baton/store"
)

// Following a run whose supervisor is on another machine (a shared home, after a
// takeover moved the writer there): its local files are out of reach, so the writer
// follows the run's journal and liveness in the shared home (Engine.SharedWatch). The end
// the journal shows is recorded; a supervisor whose lease went without an end record had
// its steps killed before the lease could expire (see shared.go), so the run is then
// failed or re-queued as its workflow's on_owner_lost says: exactly once either way
// (recordEnd and requeueDead change only the attempt still running).

// remote reports whether run r's supervisor is out of this engine's reach (another
// machine, or this machine with another local folder: no run lock of it here), and this
// engine can follow it through the shared home.
func (e *Engine) remote(r *store.Run) bool {
	if e.SharedWatch == nil || r.Machine == "" {
		return false
	}
	if r.Machine != e.Machine {
		return true
	}
	_, err := os.Lstat(lockPath(e.home, r.ID))
	return errors.Is(err, fs.ErrNotExist)
}

// followShared follows run r (attempt f.attempt) through the shared home until it is
// recorded, this term ends or following is stopped.
func (e *Engine) followShared(f *follower, r store.Run) {
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	go func() {
		select {
		case <-f.detach:
			cancel()
		case <-ctx.Done():
		}
	}()
	runDir := RunDir(e.home, r.ID)
	step := -1
	e.SharedWatch(ctx, SharedRunKey(r.ID, r.Attempt), func(j *Journal, alive bool) bool {
		switch {
		case j != nil && j.Ended:
			e.recordJournal(r.ID, f.attempt, *j, nil, runDir)
			return false
		case !alive:
			e.remoteDied(r, f.attempt, j)
			return false
		case j != nil && len(j.Steps)-1 != step:
			step = len(j.Steps) - 1
			e.foldStep(r.ID, f.attempt, step)
		}
		return true
	})
}

// foldStep records the step a remote run is at (no process ids: they are another
// machine's).
func (e *Engine) foldStep(id string, attempt, step int) {
	_, _ = e.update(func(d *store.Doc) error {
		r := d.Run(id)
		if r == nil || r.Status != store.StatusRunning || r.Attempt != attempt || step < 0 || r.Step == step {
			return store.ErrNoChange
		}
		r.Step = step
		return nil
	})
}

// remoteDied records a remote run whose supervisor's lease is gone without an end
// record: re-queued if its workflow says on_owner_lost "requeue" (and no cancel was
// asked), else failed.
func (e *Engine) remoteDied(run store.Run, attempt int, j *Journal) {
	step := run.Step
	if j != nil && len(j.Steps) > 0 {
		step = j.Steps[len(j.Steps)-1].Index
	}
	msg := fmt.Sprintf("the run's supervisor on machine %s lost its lease while step %d was running; its steps were killed before the lease expired", run.Machine, step+1)
	requeued := false
	_, err := e.update(func(d *store.Doc) error {
		r := d.Run(run.ID)
		if r == nil || r.Status != store.StatusRunning || r.Attempt != attempt {
			return store.ErrNoChange
		}
		if w := d.Workflow(r.Workflow); w == nil || w.OnOwnerLost != "requeue" || r.CancelRequested {
			requeued = false
			return store.ErrNoChange
		}
		requeued = true
		r.Status = store.StatusQueued
		r.Owner, r.OwnerPID, r.Machine = nil, 0, ""
		r.PGID, r.StepPID, r.StepStart = 0, 0, 0
		r.SupervisorPID, r.SupervisorStart = 0, 0
		r.Error = "re-queued: " + msg
		ReleaseScheduleLock(d, r.ID)
		return nil
	})
	if requeued && err == nil {
		go e.Kick()
		return
	}
	end := failedWith(msg)
	end.step = step
	e.recordEnd(run.ID, attempt, end, nil, RunDir(e.home, run.ID))
}
