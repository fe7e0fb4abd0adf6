package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"baton/workflow/proc"
)

// Spare supervisors. Starting a supervisor costs its binary's exec and start-up (the app
// links Fyne, whose package initialisation alone takes milliseconds), all of it between
// start_run and the first step. So an engine keeps one supervisor started ahead of time,
// idle, and hands it the next run:
//
//   - The spare is started in its own session with one end of a socket pair. It runs
//     ahead what it will run first (warmUp), says "idle" and blocks reading the socket;
//     only then is it handed runs. It holds no run file and carries no run marker, so no
//     reaper or cleaner takes it for a run's supervisor, and it exits on EOF: when its
//     engine stops or its window dies (kill -9 included, the kernel closes the other
//     end), it never leaks. The engine starts it at its first Kick (after the takeover,
//     off its path) and stops it (SIGKILL: it holds nothing) in Stop and Detach, or when
//     its writer term ends.
//   - The hand-over: the writer creates runs/<id>.lock itself, locked and naming the spare
//     as its holder (see lockRun), and sends the spec with the lock's descriptor over the
//     socket (SCM_RIGHTS): a flock belongs to the open file, so the spare holds the lock
//     from the moment it is sent, before it has even read it. A reaper that finds the
//     window dead at any instant of the hand-over therefore sees either no lock (nothing
//     was sent: the spare exits on EOF) or a held lock naming a live process it can kill
//     (KillRuns): never a run that a supervisor might still pick up unseen.
//   - The spare then does what a started supervisor does (journal, "ok", steps), and the
//     engine starts the next spare in the background.

// SpareArg follows SuperviseArg in the command line of a spare supervisor.
const SpareArg = "--spare"

// spareCommand returns the command that runs a spare supervisor (`SuperviseArg SpareArg`,
// which SuperviseMain serves) in a new process: this binary's hidden mode. A test may turn
// spares off (sparesOff, hooks_on.go): every run then starts a supervisor of its own
// (StartSupervisor).
func spareCommand() *exec.Cmd { return exec.Command(executable(), SuperviseArg, SpareArg) }

// errSpareGone says a spare could not be handed a run because it is gone: the run needs
// a supervisor of its own.
var errSpareGone = errors.New("the spare supervisor is gone")

// spare is an idle supervisor started ahead of its run, as its engine knows it.
type spare struct {
	sup  *Supervisor
	conn *os.File // this end of the socket pair (non-blocking, so reads take deadlines)
}

// startSpare starts a spare supervisor and returns once it is ready for a run: started
// up and waiting on its socket (it says "idle"). A spare that says anything else, dies or
// is not ready within supervisorReadyTimeout is killed and reaped, and the error says why.
func startSpare() (*spare, error) {
	fail := func(err error) (*spare, error) { return nil, fmt.Errorf("start a spare supervisor: %w", err) }
	ours, theirs, err := socketPair()
	if err != nil {
		return fail(err)
	}
	cmd := spareCommand()
	err = startInSession(cmd, theirs, nil)
	_ = theirs.Close() // the spare holds the only other end: EOF means it died
	if err != nil {
		_ = ours.Close()
		return fail(err)
	}
	sp := &spare{sup: reapLater(cmd), conn: ours}
	if msg, err := readReady(ours, supervisorReadyTimeout); msg != "idle" {
		sp.stop()
		return fail(fmt.Errorf("it said %q (pid %d: %v, %v)", msg, sp.sup.PID, err, sp.sup.waitErr))
	}
	return sp, nil
}

// socketPair returns the two ends of a Unix stream socket pair, close-on-exec, ours
// non-blocking.
func socketPair() (ours, theirs *os.File, err error) {
	syscall.ForkLock.RLock() // no exec may inherit them before they are close-on-exec
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fds[0])
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, err
	}
	if err := syscall.SetNonblock(fds[0], true); err != nil {
		_, _ = syscall.Close(fds[0]), syscall.Close(fds[1])
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "spare"), os.NewFile(uintptr(fds[1]), "spare"), nil
}

// stop ends an idle spare: it holds nothing, so it is killed, and reaped before stop
// returns.
func (sp *spare) stop() {
	_ = sp.conn.Close()
	sp.sup.kill()
}

// handOff makes the spare the supervisor of spec's run, as StartSupervisor would start
// one: it returns once the spare holds the run's lock and its start record is written. A
// spare found gone before it was sent the run gives errSpareGone (the lock it was to take
// is then free again, the spare reaped); any other error wraps ErrSupervisorStart, and
// no step has started. The spare is spent either way. Call checkStart first.
func (sp *spare) handOff(spec Spec) (*Supervisor, error) {
	defer sp.conn.Close()
	fail := func(err error) (*Supervisor, error) {
		return nil, fmt.Errorf("%w: run %s: %w", ErrSupervisorStart, spec.RunID, err)
	}
	msg, err := json.Marshal(spec)
	if err != nil {
		sp.sup.kill()
		return fail(err)
	}
	lock, err := lockRun(spec.Home, spec.RunID, proc.SelfTag(), holder{PID: sp.sup.PID, Start: sp.sup.Start, Boot: bootID()})
	if err != nil {
		sp.sup.kill()
		return fail(err)
	}
	err = sendWithFile(sp.conn, lock, append(msg, '\n'))
	_ = lock.Close() // the spare's descriptor holds the lock from here
	if err != nil {
		sp.sup.kill() // it may hold part of the message and the lock: gone before anyone retries
		return nil, fmt.Errorf("%w: %w", errSpareGone, err)
	}
	if err := awaitReady(sp.sup, sp.conn); err != nil {
		return fail(err)
	}
	sp.sup.RunID = spec.RunID
	return sp.sup, nil
}

// sendWithFile writes msg on conn in full, with f's descriptor attached to its first byte.
func sendWithFile(conn, f *os.File, msg []byte) error {
	rc, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	frc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr, werr error
	cerr := frc.Control(func(fd uintptr) {
		oob := syscall.UnixRights(int(fd))
		werr = rc.Write(func(s uintptr) bool {
			var n int
			n, serr = syscall.SendmsgN(int(s), msg, oob, nil, 0)
			if serr == syscall.EAGAIN {
				return false // wait until the socket can take more
			}
			if serr == nil {
				msg, oob = msg[n:], nil
			}
			return serr != nil || len(msg) == 0
		})
	})
	return errors.Join(cerr, werr, serr)
}

// maxSpecMessage bounds a run's spec as sent to a spare.
const maxSpecMessage = 1 << 20

// receiveRun reads the run a spare is handed: its spec, and the run's lock (held). It
// returns io.EOF if the socket closed before a run came.
func receiveRun(conn *os.File) (Spec, *os.File, error) {
	var spec Spec
	msg, fds, err := readWithFiles(conn)
	var lock *os.File
	for _, fd := range fds {
		if lock == nil {
			lock = os.NewFile(uintptr(fd), "lock")
		} else {
			_ = syscall.Close(fd)
		}
	}
	if err == nil && lock == nil {
		err = errors.New("the run's lock was not sent")
	}
	if err == nil {
		err = json.Unmarshal(msg, &spec)
	}
	if err == nil {
		err = spec.validate()
	}
	if err == nil && !samePath(lock, lockPath(spec.Home, spec.RunID)) {
		err = fmt.Errorf("the descriptor sent is not %s", lockPath(spec.Home, spec.RunID))
	}
	if err != nil {
		if lock != nil {
			_ = lock.Close()
		}
		return spec, nil, err
	}
	return spec, lock, nil
}

// readWithFiles reads one line from the blocking socket conn and the descriptors sent
// with it (close-on-exec). It returns io.EOF if conn closed before a whole line came.
func readWithFiles(conn *os.File) (line []byte, fds []int, err error) {
	rc, err := conn.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	chunk, oob := make([]byte, 64<<10), make([]byte, syscall.CmsgSpace(4*4))
	for bytes.IndexByte(line, '\n') < 0 {
		var n, oobn int
		var rerr error
		if err := rc.Control(func(fd uintptr) {
			for {
				n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), chunk, oob, 0)
				if rerr != syscall.EINTR {
					return
				}
			}
		}); err != nil {
			return nil, fds, err
		}
		got, perr := parseRights(oob[:oobn])
		fds = append(fds, got...)
		switch {
		case rerr != nil:
			return nil, fds, rerr
		case perr != nil:
			return nil, fds, perr
		case n == 0:
			return nil, fds, io.EOF
		}
		if line = append(line, chunk[:n]...); len(line) > maxSpecMessage {
			return nil, fds, fmt.Errorf("a run's spec of more than %d bytes", maxSpecMessage)
		}
	}
	return line[:bytes.IndexByte(line, '\n')], fds, nil
}

// parseRights returns the descriptors of the SCM_RIGHTS messages in oob, close-on-exec.
func parseRights(oob []byte) ([]int, error) {
	if len(oob) == 0 {
		return nil, nil
	}
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for i := range msgs {
		got, err := syscall.ParseUnixRights(&msgs[i])
		if err != nil {
			continue
		}
		for _, fd := range got {
			syscall.CloseOnExec(fd) // no step may hold the run's lock
		}
		fds = append(fds, got...)
	}
	return fds, nil
}

// superviseSpare is the hidden mode `baton __supervise --spare`: wait for a run on the
// socket the engine passed, then supervise it as Supervise does. It exits 0 without a
// run when the socket closes first (its engine stopped, or its window died).
func superviseSpare(open OpenShared) int {
	conn := takeReadyPipe()
	if conn == nil {
		fmt.Fprintf(os.Stderr, "baton %s %s: only a window starts a spare supervisor\n", SuperviseArg, SpareArg)
		return 2
	}
	term := warmUp()
	if _, err := conn.Write([]byte("idle\n")); err != nil {
		return 0 // the engine is gone already
	}
	spec, lock, err := receiveRun(conn)
	if errors.Is(err, io.EOF) {
		return 0
	}
	if err != nil {
		tellReady(conn, "error: "+err.Error())
		return 1
	}
	for len(term) > 0 {
		<-term // sent while idle, not to cancel a run: only the start record names our pid
	}
	logTo(spec.Log)
	s, err := beginRun(spec, lock, open)
	if err != nil {
		return refuse(conn, spec.RunID, err)
	}
	return s.serve(term, conn)
}

// warmUp runs, before the spare says it is idle, what a spare runs first once handed a
// run, so that no first-use cost (code paged in, JSON encoders built, the first fork and
// exec, the signal loop started, the boot id read) falls between start_run and the step.
// It returns the channel of the signals that cancel a run (see notifyTerm): an idle spare
// ends on EOF or SIGKILL only.
func warmUp() <-chan os.Signal {
	_ = selfHolder()
	var spec Spec
	_ = json.Unmarshal([]byte(`{"run_id":"r","steps":[{"argv":["true"],"env":{"K":"v"}}],"env":{"K":"v"}}`), &spec)
	for _, rec := range []any{startRec{}, stepStartRec{}, stepEndRec{}, endRec{}} {
		_, _ = json.Marshal(rec)
	}
	logTo(os.DevNull) // what stdout and stderr are until the run's log
	// A process's first fork and exec costs milliseconds more than the next ones.
	_ = exec.Command("true").Run()
	return notifyTerm()
}

// logTo makes path (the run log) this process's stdout and stderr, as a started
// supervisor's are: a spare was started before its run had a log. If the log cannot be
// opened they stay /dev/null (the steps report it in the journal).
func logTo(path string) {
	f, err := openRunLogFile(path)
	if err != nil {
		return
	}
	defer f.Close()
	_ = unix.Dup2(int(f.Fd()), 1)
	_ = unix.Dup2(int(f.Fd()), 2)
}

// spareDelay is how long after a writer term begins its first spare starts. A spare's
// start (a fork, exec and Go start-up, Fyne's initialisation in the app) takes a core for
// several milliseconds; right after a takeover or a hand-over that core belongs to the new
// writer's first saves and the adopted runs, and the old writer's spare is exiting too
// (measured: a spare started at once made a hand-over 3 ms and an adopting takeover 30 ms
// slower). A run started meanwhile starts its own supervisor, as without spares.
var spareDelay = 500 * time.Millisecond

// sparePool is an engine's spare: at most one idle (ready) or starting.
type sparePool struct {
	mu        sync.Mutex
	idle      *spare
	starting  chan struct{} // closed when the start under way has ended; nil if none
	failed    error         // a spare failed to start: no more are tried
	closed    bool
	notBefore time.Time      // no spare starts before (spareDelay after the term began)
	deferred  bool           // a refill waits for notBefore
	wg        sync.WaitGroup // the start under way
}

// refill starts a spare in the background, unless one is idle or starting, the pool is
// closed, a spare failed to start or spares are off. It does not block; the channel is
// closed once no start is under way.
func (p *sparePool) refill() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.starting != nil {
		return p.starting
	}
	done := make(chan struct{})
	if p.closed || p.idle != nil || p.failed != nil || sparesOff() {
		close(done)
		return done
	}
	if wait := time.Until(p.notBefore); wait > 0 {
		if !p.deferred {
			p.deferred = true
			time.AfterFunc(wait, func() { p.refill() })
		}
		close(done)
		return done
	}
	p.starting = done
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer close(done)
		sp, err := startSpare() // runs then start supervisors of their own
		p.mu.Lock()
		p.starting, p.failed = nil, err
		if err == nil && !p.closed {
			p.idle, sp = sp, nil
		}
		p.mu.Unlock()
		if sp != nil {
			sp.stop()
		}
	}()
	return done
}

// take returns the idle spare, now the caller's (nil if there is none alive). A spare on
// its way is waited for: it is nearer ready than a supervisor started now would be.
func (p *sparePool) take() *spare {
	p.mu.Lock()
	starting := p.starting
	p.mu.Unlock()
	if starting != nil {
		<-starting
	}
	p.mu.Lock()
	sp := p.idle
	p.idle = nil
	p.mu.Unlock()
	if sp == nil {
		return nil
	}
	select {
	case <-sp.sup.Exited(): // died idle
		_ = sp.conn.Close()
		return nil
	default:
		return sp
	}
}

// close stops the idle spare and any start under way, and starts no more. It blocks until
// no spare of the pool is left. Safe to call more than once.
func (p *sparePool) close() {
	p.closeSoon()
	p.wg.Wait()
}

// closeSoon is close without the wait: the idle spare is killed and reaped, and a start
// under way stopped, in the background (a hand-over need not wait for a spare's end
// before it lets state.lock go; the spare holds nothing of the home).
func (p *sparePool) closeSoon() {
	p.mu.Lock()
	p.closed = true
	sp := p.idle
	p.idle = nil
	if sp != nil {
		p.wg.Add(1)
	}
	p.mu.Unlock()
	if sp != nil {
		go func() { defer p.wg.Done(); sp.stop() }()
	}
}
