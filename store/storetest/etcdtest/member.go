package etcdtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A Member is one etcd member of a Cluster: its own OS process (the test binary, re-executed),
// on two held loopback ports, with its data folder in the test's temporary folder. Its
// methods may be called from any goroutine; each waits until the process is in the state it
// names (so a test never sleeps to let a signal land).
type Member struct {
	cfg     memberConfig
	client  *port // the address clients use
	peer    *port // the address members use
	logPath string

	mu      sync.Mutex // guards the fields below
	cmd     *exec.Cmd  // the current process; nil before the first start
	exited  chan struct{}
	waitErr error // the current process's end, once exited is closed
	killed  bool  // the current process was killed on purpose
	stopped bool  // the current process was sent SIGSTOP and not SIGCONT
}

// Name is the member's etcd name ("m0", "m1", …).
func (m *Member) Name() string { return m.cfg.Name }

// Endpoint is the member's own client URL (not through any proxy).
func (m *Member) Endpoint() string { return m.cfg.ClientURL }

// DataDir is the member's data folder; it survives Kill and Restart.
func (m *Member) DataDir() string { return m.cfg.Dir }

// Pid is the current process's id, or 0 when the member is not running.
func (m *Member) Pid() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.aliveLocked() {
		return 0
	}
	return m.cmd.Process.Pid
}

// Running says whether the member's process exists and is not stopped (SIGSTOP).
func (m *Member) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.aliveLocked() && !m.stopped
}

func (m *Member) aliveLocked() bool {
	if m.cmd == nil {
		return false
	}
	select {
	case <-m.exited:
		return false
	default:
		return true
	}
}

// start starts a new process for the member; state is "new" for a first start and "existing"
// for a restart on the same data folder.
func (m *Member) start(state string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.aliveLocked() {
		return fmt.Errorf("etcdtest: start member %s: it is already running (pid %d)", m.cfg.Name, m.cmd.Process.Pid)
	}
	cfg := m.cfg
	cfg.State = state
	js, err := json.Marshal(cfg)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("etcdtest: start member %s: find the test binary: %w", cfg.Name, err)
	}
	logf, err := os.OpenFile(m.logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("etcdtest: start member %s: %w", cfg.Name, err)
	}
	defer logf.Close() // the child holds its own copy
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), memberEnv+"="+string(js))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := startChild(cmd); err != nil {
		return fmt.Errorf("etcdtest: start member %s: %w", cfg.Name, err)
	}
	m.cmd, m.exited, m.waitErr, m.killed, m.stopped = cmd, make(chan struct{}), nil, false, false
	go m.wait(cmd, m.exited)
	return nil
}

// wait reaps the process and records its end.
func (m *Member) wait(cmd *exec.Cmd, exited chan struct{}) {
	err := cmd.Wait()
	m.mu.Lock()
	m.waitErr = err
	m.mu.Unlock()
	close(exited)
}

// Kill sends SIGKILL to the member's process (stopped or not) and returns once it is reaped.
// A member that is not running is left as it is.
func (m *Member) Kill() error {
	m.mu.Lock()
	if !m.aliveLocked() {
		m.mu.Unlock()
		return nil
	}
	m.killed = true
	cmd, exited := m.cmd, m.exited
	m.mu.Unlock()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("etcdtest: kill member %s: %w", m.cfg.Name, err)
	}
	select {
	case <-exited:
		return nil
	case <-time.After(waitSignal):
		return fmt.Errorf("etcdtest: member %s (pid %d) still runs %v after SIGKILL", m.cfg.Name, cmd.Process.Pid, waitSignal)
	}
}

// Stop sends SIGSTOP to the member's process and returns once the kernel shows it stopped:
// it keeps its sockets but answers nothing, like a machine that hangs.
func (m *Member) Stop() error { return m.signal(syscall.SIGSTOP, true) }

// Cont sends SIGCONT to a stopped member and returns once it runs again.
func (m *Member) Cont() error { return m.signal(syscall.SIGCONT, false) }

func (m *Member) signal(sig syscall.Signal, stop bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.aliveLocked() {
		return fmt.Errorf("etcdtest: %v member %s: it is not running", sig, m.cfg.Name)
	}
	pid := m.cmd.Process.Pid
	if err := m.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("etcdtest: %v member %s: %w", sig, m.cfg.Name, err)
	}
	m.stopped = stop
	deadline := time.Now().Add(waitSignal)
	for {
		st, err := procState(pid)
		if err != nil {
			return fmt.Errorf("etcdtest: %v member %s: %w", sig, m.cfg.Name, err)
		}
		if (st == 'T') == stop {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("etcdtest: %v member %s: pid %d still in state %c after %v", sig, m.cfg.Name, pid, st, waitSignal)
		}
		time.Sleep(time.Millisecond) // polling the kernel's view; no other event says it
	}
}

// Restart kills the member if it runs, then starts it again on the same data folder and
// ports; it rejoins the cluster as itself. It returns once the process is started, not once
// it caught up: use Cluster.WaitHealthy for that.
func (m *Member) Restart() error {
	if err := m.Kill(); err != nil {
		return err
	}
	return m.start("existing")
}

// unexpectedExit says how the member's process ended if it ended without Kill.
func (m *Member) unexpectedExit() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd == nil || m.killed || m.aliveLocked() {
		return nil
	}
	if m.waitErr == nil { // the test binary ran its (no) tests instead of a member
		return fmt.Errorf("etcdtest: member %s exited at once with status 0: does this package's TestMain call etcdtest.RunMemberIfAsked first?", m.cfg.Name)
	}
	return fmt.Errorf("etcdtest: member %s exited by itself (%v); its log ends:\n%s", m.cfg.Name, m.waitErr, m.logTail(20))
}

// logTail is the last n lines of the member's log.
func (m *Member) logTail(n int) string {
	b, err := os.ReadFile(m.logPath)
	if err != nil {
		return err.Error()
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// procState is the process state letter from /proc/pid/stat ('T' when stopped).
func procState(pid int) (byte, error) {
	b, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(pid), "stat"))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected %q", pid, s)
	}
	return s[i+2], nil
}
