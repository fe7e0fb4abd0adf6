package host

import (
	"context"
	"encoding/json"
	"fmt"

	"baton/store"
	"baton/workflow"
)

// Intents is what a window can be asked to do: the workflow, run and schedule operations,
// history and the audit log. The desktop UI and the control channel call the same
// Intents (Core.Intents). A write goes through the window's writer term and is refused
// with a *ReadOnlyError while the window does not write; each write takes a context, and
// one whose context ended before its commit began is not made. Safe for concurrent use.
type Intents struct{ w *Core }

// Intents returns the window's intents service.
func (w *Core) Intents() *Intents { return &Intents{w: w} }

// update applies an intent through the writer term: only a writer whose takeover
// finished may write.
// It returns the term that saved, for the record of the change (Term.note).
func (s *Intents) update(ctx context.Context, fn func(*store.Doc) error) (*store.Doc, *Term, error) {
	w := s.w
	w.mu.Lock()
	role, problem, t, held := w.roleLocked(), w.problem, w.writingLocked(), w.term != nil
	w.mu.Unlock()
	if role == RoleClosed {
		return nil, nil, ErrClosed
	}
	if t == nil {
		pid := w.writerPID()
		if pid == 0 && !held {
			// The writer may have saved since this window last followed the file (its
			// watch event is on its way): look again, so the refusal can name it.
			if doc, changed, err := w.st.Refresh(); err == nil && changed {
				w.publish(doc)
				pid = w.writerPID()
			}
		}
		e := &ReadOnlyError{Role: role, WriterPID: pid}
		if w.etcd != nil {
			if m, p := w.etcd.writerMachine(); m != "" { // the election is fresher than the document
				e.WriterMachine, e.WriterPID = m, p
			}
			if why := w.etcd.down(); why != "" {
				e.Problem = why
			}
		}
		if problem != nil && held {
			e.Problem = problem.Error()
		} else if w.readOnly != "" {
			e.Problem = w.readOnly
		}
		if unsafe := w.unsafeHome(); unsafe != nil {
			e.Problem = unsafe.Error()
		}
		return nil, nil, e
	}
	d, err := t.Update(ctx, fn)
	return d, t, err
}

// AddWorkflow adds a workflow definition and returns the generation saved.
func (s *Intents) AddWorkflow(ctx context.Context, def store.Workflow) (uint64, error) {
	d, t, err := s.update(ctx, func(d *store.Doc) error { return workflow.AddWorkflow(d, def) })
	if err == nil {
		t.note(store.WorkflowChange{Action: store.ChangeCreated, Workflow: def.Name, Generation: gen(d)})
	}
	return gen(d), err
}

// UpdateWorkflow replaces the definition with the same name.
func (s *Intents) UpdateWorkflow(ctx context.Context, def store.Workflow) (uint64, error) {
	w := s.w
	d, t, err := s.update(ctx, func(d *store.Doc) error { return workflow.UpdateWorkflow(d, def) })
	if err == nil {
		t.note(store.WorkflowChange{Action: store.ChangeUpdated, Workflow: def.Name, Generation: gen(d)})
		w.kick() // a larger max_concurrent may free slots
	}
	return gen(d), err
}

// DeleteWorkflow removes a workflow that has no active runs.
func (s *Intents) DeleteWorkflow(ctx context.Context, name string) (uint64, error) {
	d, t, err := s.update(ctx, func(d *store.Doc) error { return workflow.DeleteWorkflow(d, name) })
	if err == nil {
		t.note(store.WorkflowChange{Action: store.ChangeDeleted, Workflow: name, Generation: gen(d)})
	}
	return gen(d), err
}

// StartRun queues a run of workflow name and starts it if its lane has a free slot. It
// returns the run as it stands after that and the generation saved.
func (s *Intents) StartRun(ctx context.Context, name, task string) (store.Run, uint64, error) {
	w := s.w
	var run store.Run
	enqueue := func(d *store.Doc) error {
		var err error
		run, err = workflow.Enqueue(d, name, task, w.opts.Now())
		return err
	}
	update := func(fn func(*store.Doc) error) (*store.Doc, error) { d, _, err := s.update(ctx, fn); return d, err }
	var d *store.Doc
	var started []string
	var err error
	if t := w.currentTerm(); t != nil {
		d, started, err = t.executor().KickWith(update, enqueue) // queued and claimed in one save
	} else {
		d, err = update(enqueue) // refused, naming the writer
	}
	if err != nil {
		return run, 0, err
	}
	if len(started) == 0 {
		w.kick() // its lane is full, or the term changed meanwhile
	}
	if r := w.Snapshot().Run(run.ID); r != nil {
		run = r.Clone()
		return run, w.Snapshot().Generation, nil
	}
	return run, gen(d), nil
}

// CancelRun cancels a queued or running run. A running run is stopped (its process group
// killed) and recorded cancelled by the executor before CancelRun returns.
func (s *Intents) CancelRun(ctx context.Context, id string) (uint64, error) {
	w := s.w
	var running, ours bool
	self := w.Self()
	d, _, err := s.update(ctx, func(d *store.Doc) error {
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
	if t == nil || (!t.executor().Cancel(id, workflow.RequestedCancel) && !ours) {
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

// AddSchedule adds a schedule and returns it with its id and next due time.
func (s *Intents) AddSchedule(ctx context.Context, sc store.Schedule) (store.Schedule, uint64, error) {
	w := s.w
	var out store.Schedule
	d, t, err := s.update(ctx, func(d *store.Doc) error {
		var err error
		out, err = workflow.AddSchedule(d, sc, w.opts.Now())
		return err
	})
	w.wakeScheduler()
	if err == nil {
		t.note(scheduleChange(store.ChangeCreated, out, gen(d)))
	}
	return out, gen(d), err
}

// EditSchedule changes the fields e names of schedule id, and only those; it never
// resumes a paused schedule (see workflow.EditSchedule). It blocks until saved.
func (s *Intents) EditSchedule(ctx context.Context, id string, e workflow.ScheduleEdit) (uint64, error) {
	w := s.w
	d, t, err := s.update(ctx, func(d *store.Doc) error { return workflow.EditSchedule(d, id, e, w.opts.Now()) })
	w.wakeScheduler()
	if err == nil {
		t.note(scheduleChange(store.ChangeUpdated, scheduleIn(d, id), gen(d)))
	}
	return gen(d), err
}

// UpdateSchedule replaces the definition of schedule s.ID (every field the window's form
// shows), keeping its state and its pausing.
func (s *Intents) UpdateSchedule(ctx context.Context, sc store.Schedule) (uint64, error) {
	w := s.w
	d, t, err := s.update(ctx, func(d *store.Doc) error { return workflow.UpdateSchedule(d, sc, w.opts.Now()) })
	w.wakeScheduler()
	if err == nil {
		t.note(scheduleChange(store.ChangeUpdated, scheduleIn(d, sc.ID), gen(d)))
	}
	return gen(d), err
}

// DeleteSchedule removes a schedule.
func (s *Intents) DeleteSchedule(ctx context.Context, id string) (uint64, error) {
	var gone store.Schedule
	d, t, err := s.update(ctx, func(d *store.Doc) error {
		gone = scheduleIn(d, id)
		return workflow.DeleteSchedule(d, id)
	})
	if err == nil {
		t.note(store.ScheduleChange{Action: store.ChangeDeleted, Schedule: id, Workflow: gone.Workflow, Generation: gen(d)})
	}
	return gen(d), err
}

// PauseSchedule pauses (true) or resumes (false) a schedule.
func (s *Intents) PauseSchedule(ctx context.Context, id string, paused bool) (uint64, error) {
	w := s.w
	d, t, err := s.update(ctx, func(d *store.Doc) error { return workflow.PauseSchedule(d, id, paused, w.opts.Now()) })
	w.wakeScheduler()
	if err == nil {
		act := store.ChangeResumed
		if paused {
			act = store.ChangePaused
		}
		t.note(store.ScheduleChange{Action: act, Schedule: id, Workflow: scheduleIn(d, id).Workflow, Generation: gen(d)})
	}
	return gen(d), err
}

// scheduleIn is schedule id of d as saved, or only its id when d does not hold it.
func scheduleIn(d *store.Doc, id string) store.Schedule {
	if d != nil {
		if sc := d.Schedule(id); sc != nil {
			return *sc
		}
	}
	return store.Schedule{ID: id}
}

// scheduleChange is the audit record of schedule sc added or changed by a person.
func scheduleChange(act string, sc store.Schedule, generation uint64) store.ScheduleChange {
	return store.ScheduleChange{Action: act, Schedule: sc.ID, Workflow: sc.Workflow, Every: sc.Every, Cron: sc.Cron, Generation: generation}
}

// Audit returns the newest max entries of the audit log (all if max <= 0), oldest first.
// It reads the file; a reader may call it too.
func (s *Intents) Audit(max int) ([]store.Entry, error) { return s.w.audit.Read(max) }

// History returns one page of runs, the live ones and the archived ones, newest first,
// filtered by workflow and status. Any window may call it; it reads the archive files.
func (s *Intents) History(q store.HistoryQuery) (store.HistoryPage, error) {
	return s.w.st.History(q)
}

// RunNow starts a run of workflow name in the writer, wherever it is: this window's own
// StartRun when it writes, else the request forwarded to the writer (requests/, applied
// exactly once). forwardedTo is the writer's pid when forwarded, 0 when this window wrote.
// A reader's desktop "Run now" uses it, so a read-only window can still run things.
func (s *Intents) RunNow(ctx context.Context, name, task string) (id string, forwardedTo int, err error) {
	rep, err := Call(ctx, s.w, &Request{Op: "start_run", Name: name, Task: task, Forward: true})
	id, _ = rep["run"].(string)
	return id, ForwardedTo(rep), err
}

// CancelNow cancels run id in the writer, wherever it is, as RunNow starts one.
func (s *Intents) CancelNow(ctx context.Context, id string) (forwardedTo int, err error) {
	rep, err := Call(ctx, s.w, &Request{Op: "cancel_run", Run: id, Forward: true})
	return ForwardedTo(rep), err
}

// ForwardedTo is a reply's "forwarded_to": the writer's pid, 0 when not forwarded.
func ForwardedTo(rep map[string]any) int { return intOf(rep["forwarded_to"]) }

// intOf reads a number from a reply: an int when made in this process, a json.Number
// when forwarded.
func intOf(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}
