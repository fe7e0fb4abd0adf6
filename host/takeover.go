package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"baton/store"
	"baton/workflow"
	"baton/workflow/proc"
)

// Takeover reports what one BecomeWriter did.
type Takeover struct {
	Epoch     uint64            `json:"epoch"`
	OldOwner  *store.Owner      `json:"old_owner,omitempty"`
	NewOwner  store.Owner       `json:"new_owner"`
	Reaped    []workflow.Orphan `json:"reaped"`            // runs of dead owners failed, re-queued or recorded from their journal
	Adopted   []workflow.Orphan `json:"adopted,omitempty"` // runs whose supervisors live on, now followed by this window
	Steps     []StepTiming      `json:"steps"`
	Took      time.Duration     `json:"-"`
	TookMS    float64           `json:"took_ms"`
	Cleaned   []string          `json:"cleaned_temps,omitempty"`
	Completed time.Time         `json:"completed"`
	reclaims  []store.Reclaim   // schedule locks freed by the reap, for the audit log

	// HandedOver is set when the last writer handed over to this window on request
	// (nobody died): a window says "pid P handed over", not "took over from".
	HandedOver bool `json:"handed_over,omitempty"`
}

// scheduleLocksOf lists the schedule locks held by runs being reaped, with the evidence
// that their owner is dead: each becomes a "reclaim" entry in the audit log.
func scheduleLocksOf(d *store.Doc, reaped []workflow.Orphan) []store.Reclaim {
	var out []store.Reclaim
	for _, o := range reaped {
		for _, s := range d.Schedules {
			if s.Lock != nil && s.Lock.Run == o.Run {
				out = append(out, store.Reclaim{Schedule: s.ID, Run: o.Run, OwnerPID: o.OwnerPID,
					OwnerInstance: s.Lock.Owner.Instance, Evidence: o.Evidence, Action: o.Action})
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

// BecomeWriter is the only road from reader to writer: it promotes the window's term
// (begun when state.lock was won; without one it returns ErrBusy). In order: 1 lock (held), 2 re-read workflows.json (refuse to go on if unreadable),
// 3 bump the epoch, 4 reap runs whose owners are dead (killing what they left running
// first), 5 save, 6 start the executor, 7 report writer and enable writes. It returns the
// new writer term, or why there is none: ErrBusy when the window is not a reader (a
// takeover is under way, it writes already, or it closed), else the step that failed.
// If the file is unreadable the window keeps the lock (its term, back to held), stays
// read-only and says why; it tries again when the file changes. Any other failure leaves
// the term (leave): the lock goes and the window waits for it again.
// It blocks for the whole takeover, housekeeping included.
func (w *Core) BecomeWriter() (*Term, error) {
	var t *Term                                                                    // the term of the lock won: the window's, now promoting
	ok, emit := w.move(RolePromoting, nil, func() { t = w.term; w.termWG.Add(1) }) // Close waits for it
	if !ok {
		return nil, ErrBusy
	}
	defer w.termWG.Done()
	emit()
	t0 := time.Now()
	self := t.self // this window's identity for the whole term
	tk := Takeover{NewOwner: self}
	mark := t0
	step := func(name string) {
		now := time.Now()
		tk.Steps = append(tk.Steps, StepTiming{Name: name, MS: ms(now.Sub(mark))})
		mark = now
	}
	step("1.lock")
	store.Failpoint("takeover.after-lock")
	if err := w.checkHome(); err != nil { // no window writes an unsafe home
		w.failTakeover(t, err)
		return nil, err
	}

	doc, err := w.reread()
	if err != nil {
		w.failTakeover(t, err)
		return nil, err
	}
	step("2.reread")
	store.Failpoint("takeover.after-reread")
	tk.OldOwner = doc.Writer
	// A writer handed over on request: only the window it named takes over while it
	// lives, and it adopts every running run (nobody died).
	handedTo := doc.HandoverTo != nil && doc.HandoverTo.Instance == self.Instance
	tk.HandedOver = handedTo
	if h := doc.HandoverTo; h != nil && !handedTo {
		if alive, _ := w.evidence().OwnerAlive(self, *h); alive {
			w.leave(t, exitYield(*h))
			return nil, fmt.Errorf("%w: the writer handed over to window pid %d", ErrBusy, h.PID)
		}
	}

	tk.Epoch = w.st.BeginEpoch()
	t.epoch = tk.Epoch
	step("3.epoch")

	tk.Reaped, tk.Adopted = w.killOrphans(t, doc, self, handedTo)
	// Temp files of saves whose creator is gone (a crashed writer's) go now; a file whose
	// creator lives is left alone (the deletion rule: see store.CleanTemps).
	w.lastClean.Store(time.Now().UnixNano())
	tk.Cleaned = store.CleanTemps(w.home, proc.TagGone)
	tk.reclaims = scheduleLocksOf(doc, tk.Reaped)
	step("4.reap")
	store.Failpoint("takeover.before-save")

	me := self
	me.Since = w.opts.Now().UTC()
	saved, err := t.commit(func(d *store.Doc) error {
		d.Writer, d.HandoverTo = &me, nil
		workflow.ApplyReap(d, append(append([]workflow.Orphan(nil), tk.Reaped...), tk.Adopted...), me, w.opts.Now(), w.onReapFinish(self))
		return nil
	})
	if err != nil {
		w.failTakeover(t, err)
		return nil, err
	}
	w.removeSupervisorFiles(tk.Reaped)
	step("5.save")

	t.startEngine()
	if w.etcd != nil {
		w.etcd.wireEngine(t.executor(), t.ctx, etcdTerm(t.lock))
	}
	ready := make(chan struct{})
	if !w.opts.NoScheduler {
		w.termWG.Add(1)
		go func() {
			defer w.termWG.Done()
			select { // writes wait for step 7
			case <-ready:
				w.scheduler(t)
			case <-t.Done():
			}
		}()
	}
	step("6.executor")

	ok, emit = w.move(RoleWriter, func() bool { return w.term == t }, func() {
		step("7.writer")
		tk.Took = time.Since(t0)
		tk.TookMS = ms(tk.Took)
		tk.Completed = time.Now().UTC()
		w.problem, w.last = nil, tk
	})
	if !ok { // closed meanwhile: Close cancelled the term
		return nil, ErrClosed
	}
	close(ready)
	w.publish(saved)
	w.follow(t, saved, tk.Adopted)
	emit()

	// After the role is reported: the audit log (first: a window killed now has saved its
	// reaps, and should have said so), housekeeping, then start queued runs. Yield first so
	// the writer event reaches subscribers before this goroutine's fsyncs.
	runtime.Gosched()
	w.auditTakeover(t, tk)
	if err := t.keepPrevious(); err != nil {
		w.opts.Logf("%v", err)
	}
	cleanInstances(w.home, self)
	w.termWG.Add(1) // history retention, off the hot path: its first pass comes 10 s later
	go func() { defer w.termWG.Done(); w.retentionLoop(t) }()
	t.kick()
	return t, nil
}

func (w *Core) reread() (*store.Doc, error) {
	if skipTakeoverReread() { // a reverse control (hooks_on.go)
		d, err := w.st.View()
		return d, err
	}
	return w.st.Reload()
}

// failTakeover leaves the window read-only and says why. It keeps the lock only for an
// unreadable file (the takeover is retried when the file changes); any other failure (a
// full disk, an I/O error, a lock file replaced under us) must not leave the home without
// a writer: the lock goes and the window waits for it again a second later.
func (w *Core) failTakeover(t *Term, err error) {
	w.opts.Logf("cannot take over: %v", err)
	w.leave(t, exitFailedTakeover(err))
}

func (w *Core) auditTakeover(t *Term, tk Takeover) {
	rec := store.Takeover{Epoch: tk.Epoch, NewOwner: tk.NewOwner, OldOwner: tk.OldOwner,
		TookMS: tk.TookMS, CleanedTemps: tk.Cleaned}
	for _, o := range tk.Reaped {
		rec.Reaped = append(rec.Reaped, reapedOf(o))
	}
	for _, o := range tk.Adopted {
		rec.Adopted = append(rec.Adopted, o.Run)
	}
	for _, s := range tk.Steps {
		rec.Steps = append(rec.Steps, store.TakeoverStep{Name: s.Name, MS: s.MS})
	}
	_ = t.audit(rec)
	w.auditReap(t, append(append([]workflow.Orphan(nil), tk.Reaped...), tk.Adopted...), tk.reclaims, tk.Epoch)
}

// killOrphans finds the running runs of doc whose owners are dead (by evidence: their
// instance lock is free, or their process is gone or exiting) and decides on each: a run
// whose supervisor lives is adopted if its workflow says so (or adoptAll: a hand-over),
// else its supervisor and steps are killed (the recorded group and every process with the
// run's markers) before it is failed or re-queued; a run whose supervisor is dead is
// recorded from its journal if that shows its end. It returns the runs to settle and the
// runs to adopt; the caller records both with workflow.ApplyReap.
//
// On an etcd home a run's supervisor is judged by its lease (etcdWire.supervision, with
// term t's tombstone), and only runs of this machine are killed here: another machine's
// cannot be, and its processes' ids mean nothing here.
func (w *Core) killOrphans(t *Term, doc *store.Doc, self store.Owner, adoptAll bool) (settle, adopt []workflow.Orphan) {
	ev := w.evidence()
	alive := func(o store.Owner) (bool, string) { return ev.OwnerAlive(self, o) }
	sup := func(r *store.Run) workflow.Supervision { return ev.Supervision(r.ID) }
	if w.etcd != nil {
		term := etcdTerm(t.lock)
		sup = func(r *store.Run) workflow.Supervision { return w.etcd.supervision(term, r) }
	}
	var kill []*store.Run
	for _, o := range workflow.FindOrphans(doc, alive, sup, adoptAll) {
		switch o.Action {
		case workflow.ActionAdopted:
			adopt = append(adopt, o)
			continue
		case workflow.ActionFailed, workflow.ActionRequeued:
			if r := doc.Run(o.Run); r != nil && (w.etcd == nil || r.Machine == "" || r.Machine == w.etcd.machine) {
				kill = append(kill, r)
			}
		}
		settle = append(settle, o)
	}
	// Every run's processes at once: one pass over the processes per round for all.
	if _, gone := workflow.KillRuns(w.home, kill, 2*time.Second); !gone {
		w.opts.Logf("reap: processes of %d run(s) survive SIGKILL", len(kill))
	}
	if len(settle) > 0 {
		store.Failpoint("takeover.mid-reap")
	}
	return settle, adopt
}

// onReapFinish is what a run recorded from its journal at a takeover gets, as if its
// engine had recorded it: a scheduled run settles its schedule (watermark included).
func (w *Core) onReapFinish(self store.Owner) func(d *store.Doc, r *store.Run) {
	return func(d *store.Doc, r *store.Run) {
		if r.Schedule != "" {
			workflow.ScheduleFinished(d, r, workflow.RunOutput{Status: r.Status, Dir: workflow.RunDir(w.home, r.ID)}, w.opts.Now(), self)
		}
	}
}

// removeSupervisorFiles removes what the supervisors of settled runs left in runs/, now
// that their outcome is saved (a live supervisor's files are refused and stay).
func (w *Core) removeSupervisorFiles(settled []workflow.Orphan) {
	for _, o := range settled {
		if o.SupervisorPID != 0 {
			_ = w.runFiles().RemoveSupervisorFiles(o.Run)
		}
	}
}

// follow makes term t follow the runs it adopted, as doc (saved) has them.
func (w *Core) follow(t *Term, doc *store.Doc, adopted []workflow.Orphan) {
	for _, o := range adopted {
		if r := doc.Run(o.Run); r != nil && r.Status == store.StatusRunning {
			wf := doc.Workflow(r.Workflow)
			t.executor().Adopt(r.Clone(), wf != nil && wf.OnOwnerLost == "adopt")
		}
	}
}

func (w *Core) auditReap(t *Term, reaped []workflow.Orphan, reclaims []store.Reclaim, epoch uint64) {
	for _, r := range reclaims {
		r.Epoch = epoch
		_ = t.audit(r)
	}
	for _, o := range reaped {
		_ = t.audit(store.Reap{Epoch: epoch, Reaped: reapedOf(o)})
	}
}

// reapedOf is the audit record of one reaper decision.
func reapedOf(o workflow.Orphan) store.Reaped {
	return store.Reaped{Run: o.Run, Workflow: o.Workflow, OwnerPID: o.OwnerPID, Action: o.Action,
		Evidence: o.Evidence, PGID: o.PGID, Status: o.Status, Error: o.Error, SupervisorPID: o.SupervisorPID}
}

// reapForeign is the writer's standing reaper, run by its scheduler loop: a running run
// owned by another window can appear only if that window wrote beside this one (a
// state.lock removed by hand) or was fenced; once its owner is dead or has retired that
// identity, the run is reaped like at a takeover, so no lane stays wedged. It costs one
// pass over the runs when there is nothing to do.
func (w *Core) reapForeign(t *Term) {
	self := t.self
	w.cleanAbandoned(t)
	doc := w.Snapshot()
	foreign := false
	for i := range doc.Runs {
		r := &doc.Runs[i]
		foreign = foreign || (r.Status == store.StatusRunning && (r.Owner == nil || r.Owner.Instance != self.Instance))
	}
	if !foreign {
		return
	}
	settle, adopt := w.killOrphans(t, doc, self, false)
	if len(settle)+len(adopt) == 0 {
		return
	}
	reclaims := scheduleLocksOf(doc, settle)
	saved, err := t.Update(t.ctx, func(d *store.Doc) error {
		workflow.ApplyReap(d, append(append([]workflow.Orphan(nil), settle...), adopt...), self, w.opts.Now(), w.onReapFinish(self))
		return nil
	})
	if err != nil {
		w.opts.Logf("reap: %v", err)
		return
	}
	w.removeSupervisorFiles(settle)
	w.follow(t, saved, adopt)
	w.auditReap(t, append(append([]workflow.Orphan(nil), settle...), adopt...), reclaims, saved.Epoch)
	t.kick()
}

// cleanAbandoned removes, at most once a second, the temp files and instance files whose
// creators are proven gone since the takeover looked (a save's temp file of a process
// that was alive then and died since). The deletion rule is the same as at the takeover.
func (w *Core) cleanAbandoned(t *Term) {
	self := t.self
	now := time.Now().UnixNano()
	if last := w.lastClean.Load(); now-last < int64(time.Second) || !w.lastClean.CompareAndSwap(last, now) {
		return
	}
	if rm := store.CleanTemps(w.home, proc.TagGone); len(rm) > 0 {
		_ = t.audit(store.Clean{Removed: rm})
	}
	cleanInstances(w.home, self)
	// runs/ holds a log per run (hundreds of thousands in a busy home): it is looked
	// through every 30 s, not every second; what it cleans is never in anyone's way.
	if last := w.lastRuns.Load(); now-last >= int64(runsCleanEvery) && w.lastRuns.CompareAndSwap(last, now) {
		w.cleanRunsFolder()
	}
}

// runsCleanEvery is how often the writer looks through runs/ for abandoned files.
const runsCleanEvery = 30 * time.Second

// cleanRunsFolder removes, in one unsorted pass over runs/, by the deletion rule:
//   - the temp files that supervisors and writers leave while they create a run's lock,
//     spec or cancel request (.<pid>.<start>.<boot>.<run>...tmp), once the process named
//     in the name is proven gone;
//   - the files of supervisors whose runs the document records as ended (or no longer
//     has): a follower leaves them when its supervisor lingered after writing the end.
//     RemoveSupervisorFiles refuses while a supervisor holds its lock.
func (w *Core) cleanRunsFolder() {
	dir := filepath.Join(w.home, "runs")
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	ents, _ := f.ReadDir(-1) // unsorted: no sort of every log's name
	f.Close()
	var doc *store.Doc
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			if t := strings.SplitN(name[1:], ".", 4); strings.HasSuffix(name, ".tmp") && len(t) == 4 && proc.TagGone(strings.Join(t[:3], ".")) {
				_ = os.Remove(filepath.Join(dir, name))
			}
			continue
		}
		id, ok := strings.CutSuffix(name, ".events")
		if !ok {
			continue
		}
		if doc == nil {
			doc = w.Snapshot()
		}
		if r := doc.Run(id); r == nil || r.Status != store.StatusRunning {
			_ = w.runFiles().RemoveSupervisorFiles(id)
		}
	}
}

// kick starts the queued runs the lanes allow, if this window writes.
func (w *Core) kick() {
	if t := w.currentTerm(); t != nil {
		t.kick()
	}
}

// LastTakeover returns what this window's last takeover did (zero if none).
func (w *Core) LastTakeover() Takeover {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func isFatalToWriter(err error) bool {
	return errors.Is(err, store.ErrFenced) || errors.Is(err, ErrLockLost) || errors.Is(err, store.ErrUnreadable)
}
