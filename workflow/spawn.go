package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"baton/store"
	"baton/workflow/proc"
)

// The window's side of supervisors: write a run's spec, start its supervisor and wait
// until it is ready, ask it to cancel, watch it die, and tell whether it is alive.

var (
	// ErrSupervisorStart is returned by StartSupervisor when the supervisor could not be
	// started or died (or timed out) before it was ready; no step of the run has started.
	ErrSupervisorStart = errors.New("cannot start the run's supervisor")
	// ErrSupervisorRunning is returned when a run already has a live supervisor (its
	// runs/<id>.lock is held): a run is executed by one supervisor at a time.
	ErrSupervisorRunning = errors.New("the run already has a live supervisor")
	// ErrSupervisorGone is returned by RequestCancel when the run's supervisor is no
	// longer alive: the writer must record the run from its journal instead.
	ErrSupervisorGone = errors.New("the run's supervisor is gone")
)

// Spec is what a supervisor runs, written by the writer to runs/<id>.spec.json before
// the supervisor starts.
type Spec struct {
	RunID    string            `json:"run_id"`
	Workflow string            `json:"workflow"`
	Steps    []store.Step      `json:"steps"`
	Env      map[string]string `json:"env,omitempty"` // extra environment for every step
	Log      string            `json:"log"`           // the run log, appended to
	Home     string            `json:"home"`
	Shared   *SharedSpec       `json:"shared,omitempty"` // the run's shared home (etcd); nil on a folder home
}

func runsDir(home string) string         { return filepath.Join(home, "runs") }
func specPath(home, id string) string    { return filepath.Join(home, "runs", id+".spec.json") }
func lockPath(home, id string) string    { return filepath.Join(home, "runs", id+".lock") }
func journalPath(home, id string) string { return filepath.Join(home, "runs", id+".events") }
func cancelPath(home, id string) string  { return filepath.Join(home, "runs", id+".cancel") }

// checkRunID refuses a run id that cannot safely name files in runs/.
func checkRunID(id string) error {
	if id == "" || id[0] == '.' || strings.ContainsAny(id, "/\x00") {
		return fmt.Errorf("%w: run id %q cannot name a file", ErrInvalid, id)
	}
	return nil
}

func (s *Spec) validate() error {
	if err := checkRunID(s.RunID); err != nil {
		return err
	}
	if s.Home == "" || s.Log == "" || len(s.Steps) == 0 {
		return fmt.Errorf("%w: spec of run %s needs a home, a log and at least one step", ErrInvalid, s.RunID)
	}
	for i, st := range s.Steps {
		if len(st.Argv) == 0 || st.Argv[0] == "" {
			return fmt.Errorf("%w: spec of run %s: steps[%d].argv is empty", ErrInvalid, s.RunID, i)
		}
	}
	return nil
}

// writeSpec writes the spec atomically (temp file, rename), 0600. It is not fsynced: only
// the supervisor about to start reads it, and after a crash of the machine no supervisor
// is left to read it (the run is recorded from workflows.json and its journal).
func writeSpec(s Spec) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(runsDir(s.Home), "."+proc.SelfTag()+"."+s.RunID+".spec.*.tmp") // 0600
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // a no-op after the rename
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), specPath(s.Home, s.RunID))
}

func readSpec(home, runID string) (Spec, error) {
	var s Spec
	b, err := store.ReadInHome(specPath(home, runID))
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%w: %s: %v", ErrInvalid, specPath(home, runID), err)
	}
	if s.RunID != runID || filepath.Clean(s.Home) != filepath.Clean(home) {
		return s, fmt.Errorf("%w: %s is for run %s in %s", ErrInvalid, specPath(home, runID), s.RunID, s.Home)
	}
	return s, s.validate()
}

// defaultSupervisorCommand returns the command that runs Supervise(home, runID) in a new
// process: this binary's hidden mode. StartSupervisor takes it from supervisorCommand
// (which a test may replace: hooks_on.go) and sets the session, standard files and
// readiness pipe itself.
func defaultSupervisorCommand(home, runID string) *exec.Cmd {
	return exec.Command(executable(), SuperviseArg, "--home", home, runID)
}

// executable is this process's binary, as far as it can be told.
func executable() string {
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return os.Args[0]
}

// SuperviseArg is the first argument of the hidden mode that runs a supervisor.
const SuperviseArg = "__supervise"

// SuperviseMain is the hidden mode: args are what follows SuperviseArg (--home H RUN, or
// SpareArg for a spare supervisor: see spare.go).
// main (and a test binary that starts windows) calls it first thing, before any other
// work, and exits with what it returns.
// A run on a shared home is refused: use SuperviseMainWith.
func SuperviseMain(args []string) int { return SuperviseMainWith(args, nil) }

// SuperviseMainWith is SuperviseMain for a program that can reach a shared home: open
// opens a run's hold there (see OpenShared).
func SuperviseMainWith(args []string, open OpenShared) int {
	if len(args) == 1 && args[0] == SpareArg {
		return superviseSpare(open)
	}
	if len(args) != 3 || args[0] != "--home" {
		fmt.Fprintf(os.Stderr, "baton %s: usage: baton %s --home DIR RUN\n", SuperviseArg, SuperviseArg)
		return 2
	}
	return Supervise(args[1], args[2], open)
}

// supervisorReadyTimeout bounds how long StartSupervisor waits for readiness.
var supervisorReadyTimeout = 30 * time.Second

// Supervisor is a started supervisor, as its starter knows it.
type Supervisor struct {
	RunID string
	PID   int
	Start uint64 // start time of PID, clock ticks since boot

	done    chan struct{}
	exit    int   // set before done is closed
	waitErr error // how it ended, as cmd.Wait says; set before done is closed
}

// Exited is closed when the supervisor has exited and this process has reaped it. Only
// the starting process learns this; other windows use WatchSupervisor.
func (s *Supervisor) Exited() <-chan struct{} { return s.done }

// ExitCode is the supervisor's exit status once Exited is closed (0: the run's end is
// recorded), and -1 before.
func (s *Supervisor) ExitCode() int {
	select {
	case <-s.done:
		return s.exit
	default:
		return -1
	}
}

// StartSupervisor writes spec to runs/<id>.spec.json and starts the run's supervisor in
// its own session. It blocks until the supervisor holds runs/<id>.lock and its start
// record is written (see journal.go), and returns then. If the supervisor refuses, dies or is not ready
// within supervisorReadyTimeout, it returns an error wrapping ErrSupervisorStart (and
// ErrSupervisorRunning if the run already has a live supervisor, whose spec is then left
// alone); no step has started. The supervisor is reaped by a goroutine of this process
// while it lives; if this process dies first, init inherits it. Only the writer calls it
// (an engine hands its runs to a spare supervisor first: see spare.go).
func StartSupervisor(spec Spec) (*Supervisor, error) {
	fail := func(err error) (*Supervisor, error) {
		return nil, fmt.Errorf("%w: run %s: %w", ErrSupervisorStart, spec.RunID, err)
	}
	if err := checkStart(spec); err != nil {
		return fail(err)
	}
	if err := writeSpec(spec); err != nil {
		return fail(err)
	}
	logf, err := openRunLogFile(spec.Log)
	if err != nil {
		return fail(err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return fail(err)
	}
	defer r.Close()
	cmd := supervisorCommand(spec.Home, spec.RunID)
	// The run's markers: a reaper that finds the run's owner dead kills what carries them,
	// the supervisor too (unless it adopts the run).
	err = startInSession(cmd, w, logf, EnvSupervisorOf+"="+spec.RunID, EnvHome+"="+spec.Home)
	_ = w.Close() // the supervisor holds the only write end: EOF means it died
	if err != nil {
		return fail(err)
	}
	s := reapLater(cmd)
	if err := awaitReady(s, r); err != nil {
		return fail(err)
	}
	s.RunID = spec.RunID
	return s, nil
}

// checkStart refuses a spec that a supervisor could not run, or a run that already has a
// live supervisor (ErrSupervisorRunning: its files are left alone), and makes runs/.
func checkStart(spec Spec) error {
	if err := spec.validate(); err != nil {
		return err
	}
	if err := store.MkdirDurable(runsDir(spec.Home)); err != nil {
		return err
	}
	if alive, why := SupervisorAlive(spec.Home, spec.RunID); alive {
		return fmt.Errorf("%w: %s", ErrSupervisorRunning, why)
	}
	return nil
}

// startInSession starts cmd in a session of its own (out of our group and session, so
// that nothing aimed at this window's group reaches a run), with ready as the descriptor
// it reports on, out as its stdout and stderr (nil: /dev/null), and env added to its
// environment.
func startInSession(cmd *exec.Cmd, ready, out *os.File, env ...string) error {
	cmd.ExtraFiles = append(cmd.ExtraFiles, ready)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(append(cmd.Env, fmt.Sprintf("%s=%d", readyEnv, 2+len(cmd.ExtraFiles))), env...)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setpgid = true, false
	cmd.Stdin = nil
	if out != nil {
		cmd.Stdout, cmd.Stderr = out, out
	}
	return cmd.Start()
}

// reapLater returns the started supervisor cmd as its starter knows it; a goroutine reaps
// it when it exits, so that no zombie is left while this window lives.
func reapLater(cmd *exec.Cmd) *Supervisor {
	s := &Supervisor{PID: cmd.Process.Pid, done: make(chan struct{})}
	s.Start, _ = proc.Start(s.PID)
	go func() {
		s.waitErr = cmd.Wait()
		s.exit = cmd.ProcessState.ExitCode()
		close(s.done)
	}()
	return s
}

// awaitReady reads s's readiness from r. Unless it is "ok" (the lock held, the start
// record written), s is killed and reaped (it runs no step before it said ok) and the
// error says why.
func awaitReady(s *Supervisor, r readyReader) error {
	msg, err := readReady(r, supervisorReadyTimeout)
	if msg == "ok" {
		return nil
	}
	s.kill()
	if busy, ok := strings.CutPrefix(msg, "busy: "); ok {
		err = fmt.Errorf("%w (%s)", ErrSupervisorRunning, busy)
	} else if err == nil {
		err = errors.New(strings.TrimPrefix(msg, "error: "))
	}
	return fmt.Errorf("%w (supervisor pid %d: %v)", err, s.PID, s.waitErr)
}

// kill sends SIGKILL to the supervisor and waits until it is reaped.
func (s *Supervisor) kill() {
	select {
	case <-s.done:
	default:
		_ = syscall.Kill(s.PID, syscall.SIGKILL)
		<-s.done
	}
}

// readyReader is what the readiness message is read from: the supervisor's pipe, or a
// spare's socket.
type readyReader interface {
	io.Reader
	SetReadDeadline(time.Time) error
}

// readReady reads the supervisor's one line of readiness (see tellReady).
func readReady(r readyReader, timeout time.Duration) (string, error) {
	_ = r.SetReadDeadline(time.Now().Add(timeout))
	var buf []byte
	chunk := make([]byte, 512)
	for len(buf) < 4096 {
		n, err := r.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			return string(buf[:i]), nil
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return "", fmt.Errorf("not ready after %s", timeout)
		}
		if err != nil {
			return "", errors.New("the supervisor exited before it was ready")
		}
	}
	return "", errors.New("unreadable readiness message")
}

// RequestCancel asks run runID's supervisor to cancel the run with reason: it writes
// runs/<id>.cancel, then sends SIGTERM to the supervisor named in the journal. It does
// not wait for the run to end (watch the journal or WatchSupervisor). It returns
// ErrSupervisorGone if no live supervisor could be signalled, and nil if the run had
// already ended.
func RequestCancel(home, runID, reason string) error {
	if err := checkRunID(runID); err != nil {
		return err
	}
	f, err := os.CreateTemp(runsDir(home), "."+proc.SelfTag()+"."+runID+".cancel.*.tmp")
	if err != nil {
		return fmt.Errorf("cancel run %s: %w", runID, err)
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(reason)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), cancelPath(home, runID))
	}
	if err != nil {
		return fmt.Errorf("cancel run %s: %w", runID, err)
	}
	j, err := ReadJournal(home, runID)
	if err != nil {
		return fmt.Errorf("cancel run %s: %w", runID, err)
	}
	if j.Ended {
		return nil
	}
	if j.Boot != proc.BootID() || !proc.Alive(j.SupervisorPID, j.SupervisorStart) ||
		syscall.Kill(j.SupervisorPID, syscall.SIGTERM) != nil {
		return fmt.Errorf("cancel run %s: %w (pid %d)", runID, ErrSupervisorGone, j.SupervisorPID)
	}
	return nil
}

// WatchSupervisor watches the supervisor that holds runs/<id>.lock now; it returns at
// once, and one goroutine (one OS thread, parked in the kernel) waits. The channel is
// closed the moment that supervisor is gone, however it died (kill -9 included): a
// goroutine is blocked in flock(LOCK_EX) on the lock, and it wins when the kernel closes
// the supervisor's descriptor; it then lets the lock go at once and closes the channel.
// If there is no lock file, the channel is closed at once (call this only for a run whose
// supervisor was started); if the file cannot be opened for another reason, the channel
// is never closed (nothing is proven).
//
// stop ends the watch: the channel will not be closed after it. A blocked flock cannot be
// interrupted (closing its descriptor does not wake it, and Go restarts it after a
// signal), so after stop the goroutine stays parked until the supervisor exits, then
// takes the lock for an instant and returns. SupervisorAlive tells that instant from a
// live supervisor.
func WatchSupervisor(home, runID string) (<-chan struct{}, func()) {
	dead := make(chan struct{})
	f, err := openLockFile(lockPath(home, runID))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			close(dead)
		}
		return dead, func() {}
	}
	var mu sync.Mutex
	stopped := false
	go func() {
		err := store.FlockFile(f, syscall.LOCK_EX)
		_ = f.Close() // let it go at once
		mu.Lock()
		defer mu.Unlock()
		if err == nil && !stopped {
			close(dead)
		}
	}()
	return dead, func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
		_ = f.Close() // closed for real when a blocked flock returns
	}
}

// SupervisorAlive tells from evidence whether run runID has a live supervisor, and says
// why. Its lock held means alive, unless the journal's supervisor process is already
// exiting or gone (the kernel releases a dying process's locks late, and a stopped watch
// holds a free lock for an instant). No lock file or a free lock means gone. When it
// cannot tell, it answers alive: never reap on doubt. It does not block; the answer may be
// stale by the time it is used.
func SupervisorAlive(home, runID string) (bool, string) {
	path := lockPath(home, runID)
	f, err := openLockFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Sprintf("no %s: the run has no supervisor", path)
	}
	if err != nil {
		return true, fmt.Sprintf("%s cannot be checked: %v", path, err)
	}
	defer f.Close()
	err = store.FlockFile(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		return false, fmt.Sprintf("%s is free: the run's supervisor is gone", path)
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		return true, fmt.Sprintf("%s cannot be checked: %v", path, err)
	}
	j, jerr := ReadJournal(home, runID)
	if jerr != nil || j.SupervisorPID == 0 { // starting: locked, start not yet written
		return true, fmt.Sprintf("%s is held (no start record yet: %v)", path, jerr)
	}
	if j.Boot == proc.BootID() && proc.Exiting(j.SupervisorPID, j.SupervisorStart) {
		return false, fmt.Sprintf("supervisor pid %d is exiting or gone (%s not yet released)", j.SupervisorPID, path)
	}
	return true, fmt.Sprintf("%s is held (supervisor pid %d)", path, j.SupervisorPID)
}

// RemoveSupervisorFiles removes what run runID's supervisor left in runs/ (its journal,
// spec, cancel request and lock; not the run log), once the writer has folded the journal
// into workflows.json. A run whose lock is held is refused with ErrSupervisorRunning: only
// a file proven abandoned is deleted. The lock goes last, while this process holds it and
// only if the path still names the file it holds. It does not block. Only the writer
// calls it; a run id is started again only after this.
func RemoveSupervisorFiles(home, runID string) error {
	if err := checkRunID(runID); err != nil {
		return err
	}
	path := lockPath(home, runID)
	lock, err := openLockFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove files of run %s: %w", runID, err)
	}
	if lock != nil {
		defer lock.Close()
		if err := store.FlockFile(lock, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			return fmt.Errorf("remove files of run %s: %w: %v", runID, ErrSupervisorRunning, err)
		}
	}
	for _, p := range []string{journalPath(home, runID), specPath(home, runID), cancelPath(home, runID)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove files of run %s: %w", runID, err)
		}
	}
	if lock != nil && samePath(lock, path) {
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("remove files of run %s: %w", runID, err)
		}
	}
	return nil
}
