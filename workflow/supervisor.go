package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"baton/store"
	"baton/workflow/proc"
)

// The supervisor: one small process per run, in its own session, the parent of the run's
// steps (the shape of Podman's conmon and containerd's shim). It holds runs/<id>.lock for
// its whole life, so "that lock is free" means "that supervisor is gone", whatever killed
// it, and it appends what happens to runs/<id>.events (see journal.go). It never reads or
// writes workflows.json: only the writer folds the journal into the document.

// readyEnv names the environment variable that tells the supervisor which descriptor is
// the readiness pipe. It is removed from the environment before any step starts.
const readyEnv = "BATON_SUPERVISOR_READY_FD"

// Supervise is the body of the hidden mode `baton __supervise --home H RUN`: it runs run
// runID of home as its spec (runs/<id>.spec.json) says and returns the process exit code.
// It blocks until the run has ended and its end record is on disk (0), or until it cannot
// go on (1: a bad spec, a live supervisor already holding the run, a journal it cannot
// write). Call it only as the whole life of a process started by StartSupervisor: it
// installs signal handlers and relies on exiting to release its lock.
//
// SIGTERM (or SIGINT) cancels the run: the current step's process group is killed and the
// run ends cancelled with the reason written in runs/<id>.cancel (see RequestCancel).
//
// open opens the run's hold in its shared home when its spec names one (nil: a program
// that cannot reach one refuses such a run).
func Supervise(home, runID string, open OpenShared) int {
	term := notifyTerm() // before anyone can know our pid
	ready := takeReadyPipe()
	s, err := openSupervisor(home, runID, open)
	if err != nil {
		return refuse(ready, runID, err)
	}
	return s.serve(term, ready)
}

// notifyTerm catches the signals of a supervisor: SIGTERM and SIGINT (cancel the run) on
// the returned channel. SIGHUP is caught and dropped, not ignored: an ignored signal stays
// ignored in the steps, a caught one is reset to its default when they exec.
func notifyTerm() <-chan os.Signal {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	return term
}

// refuse tells the starter why this supervisor cannot run run runID ("busy" if another
// supervisor holds the run) and returns the exit code.
func refuse(ready *os.File, runID string, err error) int {
	if errors.Is(err, ErrSupervisorRunning) {
		tellReady(ready, "busy: "+err.Error())
	} else {
		tellReady(ready, "error: "+err.Error())
	}
	fmt.Fprintf(os.Stderr, "baton supervisor of run %s: %v\n", runID, err)
	return 1
}

// serve says ready and runs the run to its end record, cancelling it on term. It returns
// the exit code: 0 once the end record is on disk.
func (s *supervisor) serve(term <-chan os.Signal, ready *os.File) int {
	defer runtime.KeepAlive(s.lock) // the lock is held until the process exits
	tellReady(ready, "ok")
	go func() {
		for range term {
			s.p.cancel(cancelReason(s.home, s.runID))
		}
	}()
	ended, watched := make(chan struct{}), make(chan struct{})
	go func() { s.sh.watch(s.p, ended); close(watched) }()
	// The journal's room was reserved when it was created (createJournal): a full disk
	// cannot refuse these records. A journal write that fails anyway (a failing disk) ends
	// the records: nothing is appended after a record that may be torn.
	status, exit, errText, cut, err := s.runSteps()
	if why := s.sh.lost(); why != "" && err == nil {
		status, errText = store.StatusFailed, why // recorded here only: the shared home is not touched
	}
	if err == nil {
		end := endRec{Type: recEnd, At: time.Now().UTC(), Status: status, Error: clip(errText), Exit: exit, LogCut: cut}
		_ = s.sh.mirror(s.p, end) // in the shared home first: the run has not ended before
		err = s.j.append(end)
	}
	close(ended)
	<-watched // the watch is over before the hold ends: its end is no lost lease
	s.sh.close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "baton supervisor of run %s: %v; the run is left without an end record\n", s.runID, err)
		return 1
	}
	return 0
}

// supervisor is the state of one Supervise call.
type supervisor struct {
	home, runID string
	spec        Spec
	lock        *os.File // runs/<id>.lock, flocked for the life of the process
	j           *journalWriter
	p           *runProc // the current step's group, cancellation and timeout
	sh          *shared  // the run's hold in a shared home; nil on a folder home
}

// openSupervisor reads the spec, takes the run's lock and records the start. Once it
// returns, the lock is held and the start record is written (see journal.go).
func openSupervisor(home, runID string, open OpenShared) (*supervisor, error) {
	if err := checkRunID(runID); err != nil {
		return nil, err
	}
	spec, err := readSpec(home, runID)
	if err != nil {
		return nil, err
	}
	lock, err := lockRun(home, runID, proc.SelfTag(), selfHolder())
	if err != nil {
		return nil, err
	}
	return beginRun(spec, lock, open)
}

// beginRun records the start of spec's run in a new journal, lock being the run's lock,
// held; on failure the lock is let go. On a shared home the run's lease and alive key come
// first (refused if a writer reaped the run already), and the start record is durable
// there before it returns.
func beginRun(spec Spec, lock *os.File, open OpenShared) (*supervisor, error) {
	sh, err := openSharedRun(spec, open)
	if err != nil {
		_ = lock.Close()
		return nil, err
	}
	p := &runProc{}
	j, err := createJournal(journalPath(spec.Home, spec.RunID), len(spec.Steps))
	if err == nil {
		h := selfHolder()
		rec := startRec{Type: recStart, At: time.Now().UTC(), PID: h.PID, Start: h.Start, Boot: h.Boot}
		err = j.write(rec) // synced with the first step's record
		if err == nil {
			err = sh.mirror(p, rec)
		}
	}
	if err != nil {
		sh.close()
		_ = lock.Close()
		return nil, err
	}
	return &supervisor{home: spec.Home, runID: spec.RunID, spec: spec, lock: lock, j: j, p: p, sh: sh}, nil
}

// holder names the process that holds a run's lock. It is the lock file's content, there
// before the name exists, so that a reaper can find a supervisor that carries no run
// marker in its environment (a spare, started before its run was known).
type holder struct {
	PID   int    `json:"pid"`
	Start uint64 `json:"start"` // clock ticks since boot
	Boot  string `json:"boot"`
}

// selfHolder is this process as a lock's holder.
var selfHolder = sync.OnceValue(func() holder {
	start, _ := proc.Start(os.Getpid())
	return holder{PID: os.Getpid(), Start: start, Boot: bootID()}
})

// bootID is proc.BootID, read once.
var bootID = sync.OnceValue(proc.BootID)

// lockHolder reads the holder named in run runID's lock; ok is false if there is none or
// it cannot be read.
func lockHolder(home, runID string) (h holder, ok bool) {
	b, err := store.ReadInHome(lockPath(home, runID))
	return h, err == nil && json.Unmarshal(b, &h) == nil && h.PID > 0
}

// lockRun creates runs/<id>.lock, flocked by this process, naming h as its holder (this
// process, or the spare it hands the lock to). The name only ever exists locked and named:
// the file is created, locked and written under a temp name that carries tag (this
// process's pid, start time and boot, so a cleaner can tell when its creator is gone), then
// hard-linked into place, which fails if the name exists. An existing lock that is free
// was left by a supervisor that is gone (it too existed only locked); it is replaced by a
// rename while its lock is held, after checking that the path still names the file
// locked. A lock that is held means a live supervisor already runs this run:
// ErrSupervisorRunning.
func lockRun(home, runID, tag string, h holder) (*os.File, error) {
	final := lockPath(home, runID)
	tmp := filepath.Join(runsDir(home), "."+tag+"."+runID+".lock.tmp")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock run %s: %w", runID, err)
	}
	defer os.Remove(tmp) // after the link, or a failure; a no-op after the rename
	if err := store.FlockFile(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock run %s: %s: %w", runID, tmp, err)
	}
	if err := json.NewEncoder(f).Encode(h); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock run %s: %s: %w", runID, tmp, err)
	}
	for try := 0; try < 100; try++ {
		err := os.Link(tmp, final)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			_ = f.Close()
			return nil, fmt.Errorf("lock run %s: %w", runID, err)
		}
		replaced, err := replaceStaleLock(tmp, final)
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("lock run %s: %w", runID, err)
		}
		if replaced {
			return f, nil
		}
	}
	_ = f.Close()
	return nil, fmt.Errorf("lock run %s: %s keeps changing; try again", runID, final)
}

// replaceStaleLock renames tmp over final if final is a free lock, holding final's lock
// across the rename so that no other supervisor can replace it at the same time.
func replaceStaleLock(tmp, final string) (bool, error) {
	old, err := openLockFile(final)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil // gone meanwhile: link again
	}
	if err != nil {
		return false, err
	}
	defer old.Close()
	if err := store.FlockFile(old, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return false, fmt.Errorf("%w: %s is held", ErrSupervisorRunning, final)
		}
		return false, err
	}
	if !samePath(old, final) {
		return false, nil // replaced meanwhile: look again
	}
	return true, os.Rename(tmp, final)
}

// samePath reports whether path still names the file f has open.
func samePath(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// takeReadyPipe returns the readiness pipe StartSupervisor passed, or nil when run by hand.
func takeReadyPipe() *os.File {
	v := os.Getenv(readyEnv)
	_ = os.Unsetenv(readyEnv)        // steps must not see it
	_ = os.Unsetenv(EnvSupervisorOf) // nor the supervisor's own marker
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	syscall.CloseOnExec(fd) // no step may hold it: its end is how the starter sees us die
	return os.NewFile(uintptr(fd), "ready")
}

// tellReady writes one line to the starter and closes the pipe: "ok", "busy: ..." (another
// supervisor holds the run) or "error: ...".
func tellReady(f *os.File, msg string) {
	if f == nil {
		return
	}
	_, _ = f.Write([]byte(msg + "\n"))
	_ = f.Close()
}

// cancelReason is the reason written in runs/<id>.cancel, or a default for a bare SIGTERM.
func cancelReason(home, runID string) string {
	if b, err := store.ReadInHome(cancelPath(home, runID)); err == nil && len(b) > 0 {
		return string(b)
	}
	return "cancelled: the run's supervisor received a termination signal"
}

// runSteps runs the steps in order. cut says whether the run's log was cut (a full
// disk). err is a journal write that failed: no step starts after it.
func (s *supervisor) runSteps() (status string, exit *int, errText string, cut *store.LogCut, err error) {
	logf, err := openRunLog(s.spec.Log)
	if err != nil {
		return store.StatusFailed, nil, fmt.Sprintf("cannot open run log: %v", err), nil, nil
	}
	defer logf.Close()
	status, exit, errText, err = s.eachStep(logf)
	return status, exit, errText, logf.Cut(), err
}

// eachStep runs the steps in order, their output going to logf.
func (s *supervisor) eachStep(logf *runLog) (status string, exit *int, errText string, err error) {
	for i, step := range s.spec.Steps {
		if _, err := os.Stat(cancelPath(s.home, s.runID)); err == nil {
			s.p.cancel(cancelReason(s.home, s.runID)) // asked before the signal could reach us
		}
		if r := s.p.cancelled(); r != "" {
			return store.StatusCancelled, exit, r, nil
		}
		fmt.Fprintf(logf, "== step %d of %d (%s): %q\n", i+1, len(s.spec.Steps), stepLabel(step, i), step.Argv)
		code, text, err := s.runStep(i, step, logf)
		if err != nil {
			return "", nil, "", err
		}
		exit = code
		if r := s.p.cancelled(); r != "" {
			return store.StatusCancelled, exit, r, nil
		}
		if text != "" {
			return store.StatusFailed, exit, text, nil
		}
	}
	return store.StatusSucceeded, exit, "", nil
}

func stepLabel(step store.Step, i int) string {
	if step.Name != "" {
		return step.Name
	}
	return fmt.Sprintf("step %d", i+1)
}

// runStep runs one step in its own process group to its end (or timeout, or cancel) and
// records its start and end. It returns only once no process of the group is left.
func (s *supervisor) runStep(i int, step store.Step, logf *runLog) (exit *int, errText string, jerr error) {
	name := stepLabel(step, i)
	cmd := exec.Command(step.Argv[0], step.Argv[1:]...)
	cmd.Dir = step.Dir
	cmd.Env = stepEnv(step, s.spec.Env, s.home, s.runID, s.sh.credentials())
	var out io.Writer = logf
	if t := s.sh.logTail(); t != nil { // the tail in the shared home: redacted as the log is
		out = io.MultiWriter(logf, t)
	}
	if secrets := secretValues(step.Env, s.spec.Env, s.sh.credentials()); len(secrets) > 0 {
		red := &redactor{w: out, secrets: secrets}
		defer red.Flush() // after the pipe's copy ended (deferred calls run last first)
		out = red
	}
	pipe, err := newOutputPipe()
	if err != nil {
		errText = clip(fmt.Sprintf("step %d (%s): cannot start %q: its output pipe: %v", i+1, name, step.Argv[0], err))
		return nil, errText, s.endUnstarted(i, errText)
	}
	defer pipe.finish(2 * time.Second)
	cmd.Stdout, cmd.Stderr = pipe.w, pipe.w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// On a shared home the step's start is durable there before the step starts (without
	// its pid, which means nothing on another machine); a lost lease starts nothing.
	if err := s.sh.mirror(s.p, stepStartRec{Type: recStepStart, At: time.Now().UTC(), Step: i}); err != nil {
		errText = clip(fmt.Sprintf("step %d (%s) was not started: %v", i+1, name, err))
		return nil, errText, s.j.append(stepEndRec{Type: recStepEnd, At: time.Now().UTC(), Step: i, Error: errText})
	}
	if err := startBound(cmd, s.sh != nil); err != nil {
		errText = clip(fmt.Sprintf("step %d (%s): cannot start %q: %v", i+1, name, step.Argv[0], unwrapExec(err)))
		return nil, errText, s.endUnstarted(i, errText)
	}
	pipe.start(out)
	pid := cmd.Process.Pid
	if s.sh != nil { // on a shared home nothing of the step outlives the supervisor (stepbind.go)
		keeper := startKeeper(pid)
		defer keeper.release() // after the group is gone (deferred calls run last first)
	}
	s.p.started(pid)
	start, _ := proc.Start(pid)
	jerr = s.j.append(stepStartRec{Type: recStepStart, At: time.Now().UTC(), Step: i, PID: pid, PGID: pid, Start: start})
	if jerr != nil {
		s.p.cancel("journal: " + jerr.Error()) // nothing may run that the journal does not show
	}
	var timer *time.Timer
	if step.Timeout > 0 {
		timer = time.AfterFunc(step.Timeout.D(), func() {
			s.p.mu.Lock()
			s.p.timedOut = true
			s.p.mu.Unlock()
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		})
	}
	werr := cmd.Wait()
	if timer != nil {
		timer.Stop()
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL) // nothing of the step outlives it
	waitGroupGone(pid, 5*time.Second)
	s.p.mu.Lock()
	s.p.pgid = 0 // gone: a later cancel must not signal a group id that may be reused
	timedOut, reason := s.p.timedOut, s.p.reason
	s.p.mu.Unlock()
	if jerr != nil {
		return nil, "", jerr
	}
	code := cmd.ProcessState.ExitCode()
	exit = &code
	switch {
	case timedOut:
		errText = fmt.Sprintf("step %d (%s) timed out after %s; its process group was killed", i+1, name, step.Timeout.D())
	case reason != "":
		errText = fmt.Sprintf("step %d (%s) was cancelled: %s", i+1, name, reason)
	case werr != nil && code < 0:
		errText = fmt.Sprintf("step %d (%s) was killed: %v", i+1, name, werr)
	case werr != nil && code != 0:
		errText = fmt.Sprintf("step %d (%s) exited with code %d", i+1, name, code)
	}
	if code < 0 {
		exit = nil // killed by a signal: no exit code
	}
	errText = clip(errText)
	end := stepEndRec{Type: recStepEnd, At: time.Now().UTC(), Step: i, Exit: exit, Error: errText}
	_ = s.sh.mirror(s.p, end) // a lost lease killed the step: the local journal says why
	return exit, errText, s.j.append(end)
}

// endUnstarted records that step i could not be started, in the shared home too.
func (s *supervisor) endUnstarted(i int, errText string) error {
	end := stepEndRec{Type: recStepEnd, At: time.Now().UTC(), Step: i, Error: errText}
	_ = s.sh.mirror(s.p, end)
	return s.j.append(end)
}
