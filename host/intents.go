package host

import (
	"context"
	"fmt"

	"baton/store"
	"baton/workflow"
)

// Status is what a window says about itself.
type Status struct {
	Role       string `json:"role"`
	PID        int    `json:"pid"`
	Instance   string `json:"instance"`
	Epoch      uint64 `json:"epoch"`
	Generation uint64 `json:"generation"`
	WriterPID  int    `json:"writer_pid"`
	Home       string `json:"home"`
	Problem    string `json:"problem,omitempty"`
}

// Status returns the window's role and what it knows of the document. Never blocks on I/O.
func (w *Window) Status() Status {
	doc, _ := w.st.View()
	w.mu.Lock()
	defer w.mu.Unlock()
	s := Status{Role: w.role.String(), PID: w.self.PID, Instance: w.self.Instance, Epoch: doc.Epoch,
		Generation: doc.Generation, Home: w.home}
	if w.role == RoleWriter {
		s.WriterPID = w.self.PID
	} else if doc.Writer != nil {
		s.WriterPID = doc.Writer.PID
	}
	if w.problem != nil {
		s.Problem = w.problem.Error()
	}
	return s
}

func (w *Window) writerPID() int { return w.Status().WriterPID }

// Snapshot returns the newest document this window knows. Do not modify it.
func (w *Window) Snapshot() *store.Doc {
	d, _ := w.st.View()
	return d
}

// update applies an intent through the writer term: only a writer whose takeover
// finished may write.
func (w *Window) update(fn func(*store.Doc) error) (*store.Doc, error) {
	w.mu.Lock()
	role, problem, t, held := w.role, w.problem, w.term, w.held != nil
	w.mu.Unlock()
	if role == RoleClosed {
		return nil, ErrClosed
	}
	if t == nil {
		e := &ReadOnlyError{Role: role, WriterPID: w.writerPID()}
		if problem != nil && held {
			e.Problem = problem.Error()
		}
		return nil, e
	}
	return t.Update(context.Background(), fn)
}

func (w *Window) holdsLockNow() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held != nil
}

// AddWorkflow adds a workflow definition and returns the generation saved.
func (w *Window) AddWorkflow(def store.Workflow) (uint64, error) {
	d, err := w.update(func(d *store.Doc) error { return workflow.AddWorkflow(d, def) })
	return gen(d), err
}

// UpdateWorkflow replaces the definition with the same name.
func (w *Window) UpdateWorkflow(def store.Workflow) (uint64, error) {
	d, err := w.update(func(d *store.Doc) error { return workflow.UpdateWorkflow(d, def) })
	if err == nil {
		w.kick() // a larger max_concurrent may free slots
	}
	return gen(d), err
}

// DeleteWorkflow removes a workflow that has no active runs.
func (w *Window) DeleteWorkflow(name string) (uint64, error) {
	d, err := w.update(func(d *store.Doc) error { return workflow.DeleteWorkflow(d, name) })
	return gen(d), err
}

// StartRun queues a run of workflow name and starts it if its lane has a free slot. It
// returns the run as it stands after that and the generation saved.
func (w *Window) StartRun(name, task string) (store.Run, uint64, error) {
	var run store.Run
	d, err := w.update(func(d *store.Doc) error {
		var err error
		run, err = workflow.Enqueue(d, name, task, w.opts.Now())
		return err
	})
	if err != nil {
		return run, 0, err
	}
	w.kick()
	if r := w.Snapshot().Run(run.ID); r != nil {
		run = r.Clone()
		return run, w.Snapshot().Generation, nil
	}
	return run, gen(d), nil
}

// CancelRun cancels a queued or running run. A running run is stopped (its process group
// killed) and recorded cancelled by the executor before CancelRun returns.
func (w *Window) CancelRun(id string) (uint64, error) {
	var running, ours bool
	self := w.Self()
	d, err := w.update(func(d *store.Doc) error {
		r := d.Run(id)
		switch {
		case r == nil:
			return fmt.Errorf("%w: no run %q", workflow.ErrNotFound, id)
		case r.Status == store.StatusQueued:
			workflow.Finish(r, store.StatusCancelled, nil, "cancelled before it started", w.opts.Now())
			workflow.ReleaseScheduleLock(d, id)
		case r.Status == store.StatusRunning:
			running = true
			ours = r.Owner != nil && r.Owner.Instance == self.Instance
			if r.CancelRequested {
				return store.ErrNoChange
			}
			r.CancelRequested = true
		default:
			return fmt.Errorf("%w: run %s already %s", workflow.ErrConflict, id, r.Status)
		}
		return nil
	})
	if err != nil || !running {
		return gen(d), err
	}
	t := w.currentTerm()
	// Subscribed before the engine is asked, so the event of the recorded end is seen.
	sub := w.Subscribe()
	defer w.Unsubscribe(sub)
	// A run claimed in the same commit may not be registered with the engine yet; its
	// executor then sees cancel_requested at its first save and stops it.
	if t == nil || (!t.engine.Cancel(id, "cancelled by request") && !ours) {
		return gen(d), fmt.Errorf("%w: run %s is not executed by this window", workflow.ErrConflict, id)
	}
	// Wait until the executor recorded it (its run event), or the term ended.
	recorded := func() bool { r := w.Snapshot().Run(id); return r == nil || r.Status != store.StatusRunning }
	for !recorded() {
		select {
		case <-sub.C:
		case <-t.Done():
			return w.Snapshot().Generation, nil
		}
	}
	return w.Snapshot().Generation, nil
}

func gen(d *store.Doc) uint64 {
	if d == nil {
		return 0
	}
	return d.Generation
}

// Audit returns the newest max entries of the audit log (all if max <= 0), oldest first.
// It reads the file; a reader may call it too.
func (w *Window) Audit(max int) ([]store.Entry, error) { return w.audit.Read(max) }

// History returns one page of runs, the live ones and the archived ones, newest first,
// filtered by workflow and status. Any window may call it; it reads the archive files.
func (w *Window) History(q store.HistoryQuery) (store.HistoryPage, error) { return w.st.History(q) }
