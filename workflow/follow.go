package workflow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"baton/store"
)

// The writer's side of a supervised run: start its supervisor, fold what its journal says
// into workflows.json (the step, its process group, the end), notice its death, and record
// the outcome exactly once. A run outlives the window that started it: when this writer
// term ends, following stops and the supervisor goes on.

// follower is one run this engine follows.
type follower struct {
	attempt int  // the run's attempt: a record is made only for it
	adopt   bool // on_owner_lost "adopt": Stop leaves it going
	// remoteCancel asks a run of another machine to cancel through the shared home; nil
	// for a run of this machine (its supervisor is asked through runs/).
	remoteCancel func(reason string) error

	mu     sync.Mutex
	reason string        // why a cancel was asked; "" while none
	detach chan struct{} // closed to stop following without recording
	once   sync.Once
}

// register makes run id (attempt) one of the engine's live runs.
func (e *Engine) register(id string, attempt int, adopt bool, remoteCancel func(string) error) *follower {
	f := &follower{attempt: attempt, adopt: adopt, detach: make(chan struct{}), remoteCancel: remoteCancel}
	e.mu.Lock()
	e.procs[id] = f
	e.mu.Unlock()
	e.wg.Add(1)
	return f
}

func (e *Engine) forget(id string) {
	e.mu.Lock()
	delete(e.procs, id)
	e.mu.Unlock()
}

// requestCancel asks run id's supervisor to stop (a file and SIGTERM), once.
func (f *follower) requestCancel(home, id, reason string) {
	f.mu.Lock()
	first := f.reason == ""
	if first {
		f.reason = reason
	}
	f.mu.Unlock()
	switch {
	case first && f.remoteCancel != nil:
		_ = f.remoteCancel(reason) // a supervisor already gone has its end or death seen
	case first:
		_ = RequestCancel(home, id, reason) // a supervisor already gone has its end or death seen
	}
}

func (f *follower) cancelled() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reason
}

// stopFollowing makes the follower return without recording: the run goes on.
func (f *follower) stopFollowing() { f.once.Do(func() { close(f.detach) }) }

// execute starts one claimed run under its own supervisor and follows it to its end.
func (e *Engine) execute(f *follower, run store.Run, wf store.Workflow, extra map[string]string) {
	defer e.wg.Done()
	defer e.forget(run.ID)
	runDir := RunDir(e.home, run.ID)
	if err := makeRunDir(runDir, extra); err != nil {
		e.recordEnd(run.ID, f.attempt, failedWith(fmt.Sprintf("cannot create run folder: %v", err)), extra, runDir)
		return
	}
	// A re-queued run's previous attempt, proven done, leaves files; they go before the
	// cancel is looked at: a cancel asked after the look writes runs/<id>.cancel, which the
	// supervisor reads before its first step, and removing the files after the look could
	// take that request with them (the run would then go on to its end).
	_ = e.runs.RemoveSupervisorFiles(run.ID)
	if r := f.cancelled(); r != "" {
		e.recordEnd(run.ID, f.attempt, ending{status: store.StatusCancelled, err: r, step: -1}, extra, runDir)
		return
	}
	cancelLookedHook(run.ID) // tests only (hooks_on.go)
	spec := Spec{RunID: run.ID, Workflow: wf.Name, Steps: wf.Steps, Env: extra, Log: run.Log, Home: e.home}
	if e.Shared != nil {
		spec.Shared = e.Shared(&run)
	}
	sup, err := e.startSupervisor(spec)
	if err != nil {
		e.recordEnd(run.ID, f.attempt, failedWith(err.Error()), extra, runDir)
		return
	}
	if r := f.cancelled(); r != "" {
		// Asked while the supervisor started: that request found no supervisor to signal
		// (and, in a new home, no runs/ folder for its file). Now there is one.
		_ = RequestCancel(e.home, run.ID, r)
	}
	e.follow(f, run.ID, sup.PID, sup.Start, extra, runDir)
}

// startSupervisor hands spec's run to the spare supervisor, or starts one for it if there
// is no spare (or it is gone), as StartSupervisor does; a spare spent, the next one starts
// in the background.
func (e *Engine) startSupervisor(spec Spec) (*Supervisor, error) {
	if err := checkStart(spec); err != nil {
		return nil, fmt.Errorf("%w: run %s: %w", ErrSupervisorStart, spec.RunID, err)
	}
	sp := e.spares.take()
	if sp == nil {
		return StartSupervisor(spec)
	}
	defer e.spares.refill()
	sup, err := sp.handOff(spec)
	if errors.Is(err, errSpareGone) {
		return StartSupervisor(spec)
	}
	return sup, err
}

// makeRunDir makes the run's private folder if its environment names a path in it (an
// incremental schedule's watermark), and only then: a folder made is a journalled change
// of the file system on the way to the first step.
func makeRunDir(runDir string, env map[string]string) error {
	for _, v := range env {
		if strings.HasPrefix(v, runDir+string(filepath.Separator)) {
			if err := store.MkdirDurable(runDir); err != nil {
				return err
			}
			// Never a symlink: what the step writes there, Baton reads.
			d, err := store.OpenInHome(runDir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
			if err != nil {
				return err
			}
			return d.Close()
		}
	}
	return nil
}

// Adopt follows run id, started by another window whose supervisor lives on, as if this
// engine had started it: its steps are folded in, its end recorded, and Stop treats it by
// its policy. Call it for the runs a takeover adopted, before the next Kick.
func (e *Engine) Adopt(r store.Run, adopt bool) {
	e.kickMu.Lock()
	defer e.kickMu.Unlock()
	if e.stopping || e.ctx.Err() != nil {
		return
	}
	var remoteCancel func(string) error // set before the follower is published (Stop reads it)
	if e.remote(&r) && e.SharedCancel != nil {
		key := SharedRunKey(r.ID, r.Attempt)
		remoteCancel = func(reason string) error { return e.SharedCancel(key, reason) }
	}
	f := e.register(r.ID, r.Attempt, adopt, remoteCancel)
	if r.CancelRequested { // asked before this engine knew the run: carried out now
		f.requestCancel(e.home, r.ID, CancelReasonOf(&r))
	}
	go func() {
		defer e.wg.Done()
		defer e.forget(r.ID)
		if e.remote(&r) { // its supervisor is on another machine: through the shared home
			e.followShared(f, r)
			return
		}
		e.follow(f, r.ID, 0, 0, nil, RunDir(e.home, r.ID))
	}()
}

// follow folds run id's journal into the document until the run ends (recorded with its
// outcome), its supervisor dies (recorded failed, its steps killed), this writer term ends
// or following is stopped (the run goes on). supPID is recorded as the run's supervisor
// (0: read it from the journal).
func (e *Engine) follow(f *follower, id string, supPID int, supStart uint64, extra map[string]string, runDir string) {
	dead, stopWatch := WatchSupervisor(e.home, id)
	defer stopWatch()
	var changed <-chan fsnotify.Event
	var failed <-chan error
	if w, err := fsnotify.NewWatcher(); err == nil {
		// Closed in the background: closing an inotify instance waits for a kernel grace
		// period (10–20 ms here), which a hand-over's Detach and a window's Close would
		// otherwise wait for once per run they stop following.
		defer func() { go w.Close() }()
		if w.Add(journalPath(e.home, id)) == nil {
			changed, failed = w.Events, w.Errors
		}
	}
	folded := foldState{step: -1, supPID: supPID, supStart: supStart}
	for {
		j, jerr := e.runs.ReadJournal(id)
		if jerr == nil {
			if j.Ended {
				if e.recordJournal(id, f.attempt, j, extra, runDir) {
					e.cleanAfter(id, dead)
				}
				return
			}
			e.fold(f, id, j, &folded)
		}
		select {
		case <-changed:
		case <-failed:
			changed, failed = nil, nil // no more events: the death watch still ends it
		case <-dead:
			var recorded bool
			if j, err := e.runs.ReadJournal(id); err == nil && j.Ended {
				recorded = e.recordJournal(id, f.attempt, j, extra, runDir)
			} else {
				recorded = e.supervisorDied(id, f.attempt, j, extra, runDir)
			}
			if recorded { // else the next writer records the run from what is left
				e.cleanAfter(id, dead)
			}
			return
		case <-f.detach:
			return
		case <-e.ctx.Done():
			return // this term ended: the supervisor goes on; the next writer settles the run
		}
	}
}

// foldState is what a follower already wrote into the document.
type foldState struct {
	step     int // index of the last step folded
	supPID   int
	supStart uint64
	recorded bool // the supervisor is in the document
}

// fold records the run's supervisor and its current step (index, process group) in the
// document when they changed; a cancel asked for before this engine knew the run (in the
// document only) is passed to the supervisor.
func (e *Engine) fold(f *follower, id string, j Journal, st *foldState) {
	if st.supPID == 0 {
		st.supPID, st.supStart = j.SupervisorPID, j.SupervisorStart
	}
	last := -1
	if n := len(j.Steps); n > 0 {
		last = n - 1
	}
	if st.recorded && last == st.step {
		return
	}
	cancelAsked := ""
	_, err := e.update(func(d *store.Doc) error {
		r := d.Run(id)
		if r == nil || r.Status != store.StatusRunning || r.Attempt != f.attempt {
			return store.ErrNoChange
		}
		r.SupervisorPID, r.SupervisorStart = st.supPID, st.supStart
		if last >= 0 {
			s := j.Steps[last]
			r.Step, r.PGID, r.StepPID, r.StepStart = s.Index, s.PGID, s.PID, s.Start
		}
		if r.CancelRequested {
			cancelAsked = CancelReasonOf(r)
		}
		return nil
	})
	if err == nil {
		st.recorded, st.step = true, last
	}
	if cancelAsked != "" {
		f.requestCancel(e.home, id, cancelAsked)
	}
}

// recordJournal records the end the journal shows, and reports whether it is recorded.
func (e *Engine) recordJournal(id string, attempt int, j Journal, extra map[string]string, runDir string) bool {
	return e.recordEnd(id, attempt, endingOf(j), extra, runDir)
}

// supervisorDied records a run whose supervisor died before recording the end: failed,
// naming the supervisor, once what it left running is killed. It reports whether the end
// is recorded.
func (e *Engine) supervisorDied(id string, attempt int, j Journal, extra map[string]string, runDir string) bool {
	step, pgid, start := 0, 0, uint64(0)
	if n := len(j.Steps); n > 0 {
		s := j.Steps[n-1]
		step, pgid, start = s.Index, s.PGID, s.Start
	}
	r := store.Run{ID: id, PGID: pgid, StepStart: start}
	what := "its processes were killed"
	if _, gone := KillRun(e.home, &r, 2*time.Second); !gone {
		// Recorded failed anyway: a process that survives SIGKILL is the kernel's to end.
		what = "its processes survive SIGKILL"
	}
	end := failedWith(fmt.Sprintf("the run's supervisor pid %d died while step %d was running; %s", j.SupervisorPID, step+1, what))
	if len(j.Steps) > 0 {
		end.step = step
	}
	return e.recordEnd(id, attempt, end, extra, runDir)
}

// recordEnd records run id (attempt) ended as end says, exactly once: only a run still
// running in that attempt is changed. A failed save (a full disk) is tried again while
// this writer term lasts (see keepTrying). A recorded end frees a slot: queued runs start. It reports
// whether the document records the run's end now (false: the term ended first, or the
// save kept failing).
func (e *Engine) recordEnd(id string, attempt int, end ending, extra map[string]string, runDir string) bool {
	record := func(d *store.Doc) error {
		r := d.Run(id)
		if r == nil || r.Status != store.StatusRunning || r.Attempt != attempt {
			return store.ErrNoChange
		}
		end.apply(r, e.now())
		writeEndLine(r) // before the save: in the log before anyone sees the run ended
		ReleaseScheduleLock(d, r.ID)
		if e.OnFinish != nil {
			e.OnFinish(d, r, RunOutput{Status: end.status, Env: extra, Dir: runDir})
		}
		return nil
	}
	_, err := e.update(record)
	for try := 0; err != nil && e.keepTrying(try); try++ {
		time.Sleep(retryPause(try)) // a full disk has no event to wait on
		_, err = e.update(record)
	}
	if err == nil {
		go e.Kick() // a slot is free
		_ = os.RemoveAll(runDir)
	}
	return err == nil
}

// saveRetryPause is the pause before the try+2nd save of a run's end: 250 ms, doubling up
// to 2 s. A test may shorten it (retryPause, hooks_on.go).
func saveRetryPause(try int) time.Duration {
	return min(250*time.Millisecond<<min(try, 3), 2*time.Second)
}

// keepTrying reports whether a save that failed try+1 times is tried again: while this
// writer term lasts, however long the disk stays full; once the engine is stopping, a few
// times more (Stop waits for it; the run's journal keeps its end for the next writer).
func (e *Engine) keepTrying(try int) bool {
	if e.ctx.Err() != nil {
		return false
	}
	e.kickMu.Lock()
	stopping := e.stopping
	e.kickMu.Unlock()
	return !stopping || try < 8
}

// cleanAfter removes the supervisor's files once it is gone. Call it only once its run's
// end is recorded: until then the journal is the only record of how the run ended.
func (e *Engine) cleanAfter(id string, dead <-chan struct{}) {
	select {
	case <-dead:
	case <-e.ctx.Done():
		return
	case <-time.After(5 * time.Second):
		return // it wrote its end but lingers: the next cleaner removes the files
	}
	_ = e.runs.RemoveSupervisorFiles(id)
}
