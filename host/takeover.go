package host

import (
	"context"
	"errors"
	"runtime"
	"time"

	"baton/store"
	"baton/workflow"
)

// Takeover reports what one BecomeWriter did.
type Takeover struct {
	Epoch     uint64            `json:"epoch"`
	OldOwner  *store.Owner      `json:"old_owner,omitempty"`
	NewOwner  store.Owner       `json:"new_owner"`
	Reaped    []workflow.Orphan `json:"reaped"`
	Steps     []StepTiming      `json:"steps"`
	Took      time.Duration     `json:"-"`
	TookMS    float64           `json:"took_ms"`
	Cleaned   []string          `json:"cleaned_temps,omitempty"`
	Completed time.Time         `json:"completed"`
	reclaims  []map[string]any  // schedule locks freed by the reap, for the audit log
}

// scheduleLocksOf lists the schedule locks held by runs being reaped, with the evidence
// that their owner is dead: each becomes a "reclaim" entry in the audit log.
func scheduleLocksOf(d *store.Doc, reaped []workflow.Orphan) []map[string]any {
	var out []map[string]any
	for _, o := range reaped {
		for _, s := range d.Schedules {
			if s.Lock != nil && s.Lock.Run == o.Run {
				out = append(out, map[string]any{"schedule": s.ID, "run": o.Run, "owner_pid": o.OwnerPID,
					"owner_instance": s.Lock.Owner.Instance, "evidence": o.Evidence, "action": o.Action})
			}
		}
	}
	return out
}

// StepTiming is how long one named step of the takeover took.
type StepTiming struct {
	Name string  `json:"name"`
	MS   float64 `json:"ms"`
}

// BecomeWriter is the only road from reader to writer. The caller holds state.lock. In
// order: 1 lock (held), 2 re-read workflows.json (refuse to go on if unreadable),
// 3 bump the epoch, 4 reap runs whose owners are dead (killing what they left running
// first), 5 save, 6 start the executor, 7 report writer and enable writes.
// If the file is unreadable the window keeps the lock, stays read-only and says why; it
// tries again when the file changes.
func (w *Window) BecomeWriter() {
	if !w.beginTakeover() {
		return
	}
	defer w.termWG.Done() // Close waits for the takeover, its housekeeping included
	w.mu.Lock()
	w.roleKnown = true
	w.mu.Unlock()
	w.emitRole()
	t0 := time.Now()
	self := w.Self() // this window's identity for the whole term
	tk := Takeover{NewOwner: self}
	mark := t0
	step := func(name string) {
		now := time.Now()
		tk.Steps = append(tk.Steps, StepTiming{Name: name, MS: ms(now.Sub(mark))})
		mark = now
	}
	step("1.lock")
	store.Failpoint("takeover.after-lock")

	doc, err := w.reread()
	if err != nil {
		w.failTakeover(err)
		return
	}
	step("2.reread")
	store.Failpoint("takeover.after-reread")
	tk.OldOwner = doc.Writer

	tk.Epoch = w.st.BeginEpoch()
	step("3.epoch")

	tk.Reaped = w.killOrphans(doc, self)
	// Temp files of saves whose creator is gone (a crashed writer's) go now; a file whose
	// creator lives is left alone (the deletion rule: see store.CleanTemps).
	w.lastClean.Store(time.Now().UnixNano())
	tk.Cleaned = store.CleanTemps(w.home, func(tag string) bool { return tagGone(self, tag) })
	tk.reclaims = scheduleLocksOf(doc, tk.Reaped)
	step("4.reap")
	store.Failpoint("takeover.before-save")

	me := self
	me.Since = w.opts.Now().UTC()
	saved, err := w.st.Update(func(d *store.Doc) error {
		d.Writer = &me
		workflow.ApplyReap(d, tk.Reaped, w.opts.Now())
		return nil
	})
	if err != nil {
		w.failTakeover(err)
		return
	}
	step("5.save")

	ctx, cancel := context.WithCancel(w.ctx)
	eng := workflow.NewEngine(ctx, w.engineUpdate(ctx), self, w.home, w.opts.Now)
	eng.EnvFor = func(d *store.Doc, r *store.Run) map[string]string { return workflow.ScheduleEnv(w.home, d, r) }
	eng.OnFinish = func(d *store.Doc, r *store.Run, out workflow.RunOutput) {
		if r.Schedule != "" {
			workflow.ScheduleFinished(d, r, out, w.opts.Now(), self)
		}
	}
	wake, ready := make(chan struct{}, 1), make(chan struct{})
	if !w.opts.NoScheduler {
		w.termWG.Add(1)
		go func() {
			defer w.termWG.Done()
			select { // writes wait for step 7
			case <-ready:
				w.scheduler(ctx, eng, wake, self)
			case <-ctx.Done():
			}
		}()
	}
	step("6.executor")

	w.mu.Lock()
	if w.role != RolePromoting { // closed meanwhile
		w.mu.Unlock()
		cancel()
		return
	}
	w.role, w.problem = RoleWriter, nil
	w.writerCtx, w.writerCancel, w.engine, w.schedWake = ctx, cancel, eng, wake
	w.mu.Unlock()
	close(ready)
	step("7.writer")
	tk.Took = time.Since(t0)
	tk.TookMS = ms(tk.Took)
	tk.Completed = time.Now().UTC()
	w.mu.Lock()
	w.last = tk
	w.mu.Unlock()

	w.publish(saved)
	ids := make([]string, 0, len(tk.Reaped))
	for _, o := range tk.Reaped {
		ids = append(ids, o.Run)
	}
	w.hub.emit(Event{Kind: "role", Role: "writer", WriterPID: self.PID, Epoch: tk.Epoch, Reaped: ids, TookMS: tk.TookMS})

	// After the role is reported: housekeeping and the audit log, then start queued runs.
	// Yield first so the writer event reaches subscribers before this goroutine's fsyncs.
	runtime.Gosched()
	if err := w.st.KeepPrevious(); err != nil {
		w.opts.Logf("%v", err)
	}
	cleanInstances(w.home, self)
	w.auditTakeover(tk)
	w.kick()
}

func (w *Window) reread() (*store.Doc, error) {
	if knobs.skipTakeoverReread {
		d, err := w.st.View()
		return d, err
	}
	return w.st.Reload()
}

// failTakeover leaves the window read-only, holding the lock, and says why.
func (w *Window) failTakeover(err error) {
	w.st.EndEpoch()
	keep := errors.Is(err, store.ErrUnreadable) // the file must be fixed; retried when it changes
	w.mu.Lock()
	w.problem = err
	if w.role == RolePromoting {
		w.role = RoleReader
	}
	held := w.holdsLock && !keep
	if held {
		w.holdsLock = false
	}
	w.mu.Unlock()
	w.opts.Logf("cannot take over: %v", err)
	w.emitRole()
	if held {
		// Any other failure (a full disk, an I/O error, a lock file replaced under us)
		// must not leave the home without a writer: let the lock go and try again later.
		_ = w.lock.Unlock()
		time.AfterFunc(time.Second, w.waitForLock)
	}
}
func (w *Window) auditTakeover(tk Takeover) {
	data := map[string]any{
		"epoch": tk.Epoch, "new_owner": tk.NewOwner, "reaped": tk.Reaped,
		"steps": tk.Steps, "took_ms": tk.TookMS, "cleaned_temps": tk.Cleaned,
	}
	if tk.OldOwner != nil {
		data["old_owner"] = *tk.OldOwner
	}
	_ = w.audit.Append("takeover", data)
	w.auditReap(tk.Reaped, tk.reclaims, tk.Epoch)
}

// killOrphans finds the running runs of doc whose owners are dead (by evidence: their
// instance lock is free, or their process is gone or exiting) and kills what they left
// running: the recorded process group and every process with the run's marker. It
// returns what the reaper decided; the caller records it with workflow.ApplyReap.
func (w *Window) killOrphans(doc *store.Doc, self store.Owner) []workflow.Orphan {
	alive := func(o store.Owner) (bool, string) { return ownerAlive(w.home, self, o) }
	orphans := workflow.FindOrphans(doc, alive)
	for _, o := range orphans {
		if r := doc.Run(o.Run); r != nil {
			if _, gone := workflow.KillRun(w.home, r, 2*time.Second); !gone {
				w.opts.Logf("reap %s: processes of the run survive SIGKILL", o.Run)
			}
		}
		store.Failpoint("takeover.mid-reap")
	}
	return orphans
}

func (w *Window) auditReap(reaped []workflow.Orphan, reclaims []map[string]any, epoch uint64) {
	for _, r := range reclaims {
		r["epoch"] = epoch
		_ = w.audit.Append("reclaim", r)
	}
	for _, o := range reaped {
		_ = w.audit.Append("reap", map[string]any{"run": o.Run, "workflow": o.Workflow,
			"owner_pid": o.OwnerPID, "action": o.Action, "evidence": o.Evidence, "epoch": epoch})
	}
}

// reapForeign is the writer's standing reaper, run by its scheduler loop: a running run
// owned by another window can appear only if that window wrote beside this one (a
// state.lock removed by hand) or was fenced; once its owner is dead or has retired that
// identity, the run is reaped like at a takeover, so no lane stays wedged. It costs one
// pass over the runs when there is nothing to do.
func (w *Window) reapForeign(ctx context.Context, self store.Owner) {
	w.cleanAbandoned(self)
	doc := w.Snapshot()
	foreign := false
	for i := range doc.Runs {
		r := &doc.Runs[i]
		foreign = foreign || (r.Status == store.StatusRunning && (r.Owner == nil || r.Owner.Instance != self.Instance))
	}
	if !foreign {
		return
	}
	orphans := w.killOrphans(doc, self)
	if len(orphans) == 0 {
		return
	}
	reclaims := scheduleLocksOf(doc, orphans)
	saved, err := w.engineUpdate(ctx)(func(d *store.Doc) error {
		workflow.ApplyReap(d, orphans, w.opts.Now())
		return nil
	})
	if err != nil {
		w.opts.Logf("reap: %v", err)
		return
	}
	w.auditReap(orphans, reclaims, saved.Epoch)
	w.kick()
}

// cleanAbandoned removes, at most once a second, the temp files and instance files whose
// creators are proven gone since the takeover looked (a save's temp file of a process
// that was alive then and died since). The deletion rule is the same as at the takeover.
func (w *Window) cleanAbandoned(self store.Owner) {
	now := time.Now().UnixNano()
	if last := w.lastClean.Load(); now-last < int64(time.Second) || !w.lastClean.CompareAndSwap(last, now) {
		return
	}
	if rm := store.CleanTemps(w.home, func(tag string) bool { return tagGone(self, tag) }); len(rm) > 0 {
		_ = w.audit.Append("clean", map[string]any{"removed": rm})
	}
	cleanInstances(w.home, self)
}

// engineUpdate is the executor's way to save: allowed while this writer term lasts.
func (w *Window) engineUpdate(ctx context.Context) workflow.Updater {
	return func(fn func(*store.Doc) error) (*store.Doc, error) {
		if ctx.Err() != nil {
			return nil, &ReadOnlyError{Role: w.Role(), WriterPID: w.writerPID()}
		}
		return w.save(ctx, fn)
	}
}

// save runs store.Update, publishes the result and drops the writer role when fenced.
func (w *Window) save(term context.Context, fn func(*store.Doc) error) (*store.Doc, error) {
	doc, err := w.st.Update(func(d *store.Doc) error {
		// Checked inside the commit, so a goroutine of an ended term can never write in a
		// later one, however it was scheduled.
		if term == nil || term.Err() != nil { // no locks here: this runs under the store's
			return &ReadOnlyError{Role: RoleReader, Problem: "this window's writer term ended"}
		}
		return fn(d)
	})
	if err != nil {
		if isFatalToWriter(err) {
			w.termWG.Add(1)
			go func() { defer w.termWG.Done(); w.demote(term, err) }()
		}
		return nil, err
	}
	w.publish(doc)
	return doc, nil
}

// kick starts queued runs the lanes allow.
func (w *Window) kick() {
	w.mu.Lock()
	eng := w.engine
	w.mu.Unlock()
	if eng != nil {
		if _, err := eng.Kick(); err != nil {
			w.opts.Logf("start queued runs: %v", err)
		}
	}
}

// LastTakeover returns what this window's last takeover did (zero if none).
func (w *Window) LastTakeover() Takeover {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func isFatalToWriter(err error) bool {
	return errors.Is(err, store.ErrFenced) || errors.Is(err, ErrLockLost) || errors.Is(err, store.ErrUnreadable)
}
