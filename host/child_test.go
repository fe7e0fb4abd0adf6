package host

import (
	"baton/workflow"
	"baton/workflow/proc"
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The child-process harness: the test binary re-runs itself as a headless window when
// BATON_TEST_CHILD is set, so every multi-process test uses real processes, the real
// state.lock and real kill -9. TestMain, which picks the child's mode, is in main_test.go.

// ChildOptions are the options of the test binary as a headless window
// (BATON_TEST_CHILD=headless), which TestMain serves with control.RunHeadless.
func ChildOptions() Options { return childOptions() }

// TickChild is the test binary as `baton tick --once` (BATON_TEST_CHILD=tick).
func TickChild() int {
	opts := Options{Now: testClock()}
	opts.Etcd.Local = os.Getenv("BATON_TEST_LOCAL") // an etcd home's tick (BATON_MACHINE names the machine)
	if v := os.Getenv("BATON_TEST_LEASE"); v != "" {
		opts.Etcd.Lease, _ = time.ParseDuration(v)
	}
	return TickOnce(os.Getenv("BATON_TEST_HOME"), opts, os.Stdout)
}

func childOptions() Options {
	opts := Options{Now: testClock(), Logf: func(f string, a ...any) {
		fmt.Fprintf(os.Stderr, "child %d: "+f+"\n", append([]any{os.Getpid()}, a...)...)
	}}
	if v := os.Getenv("BATON_TEST_KEEP_FINISHED"); v != "" { // archive after a few runs
		fmt.Sscan(v, &opts.KeepFinished)
	}
	// an etcd home's window (BATON_TEST_HOME=etcd://…; BATON_MACHINE names the machine)
	opts.Etcd.Local = os.Getenv("BATON_TEST_LOCAL")
	if v := os.Getenv("BATON_TEST_LEASE"); v != "" {
		opts.Etcd.Lease, _ = time.ParseDuration(v)
	}
	if os.Getenv("BATON_TEST_RETENTION_NOW") == "1" { // a retention pass right after the takeover
		retentionFirst = time.Millisecond
	}
	return opts
}

// testClock is the child's clock (Options.Now): with BATON_TEST_NOW set (RFC 3339), time
// starts at that instant when the process starts and runs at the real pace, so a test can
// place a tick at a whole minute without waiting for one; nil (the real clock) otherwise.
func testClock() func() time.Time {
	v := os.Getenv("BATON_TEST_NOW")
	if v == "" {
		return nil
	}
	base, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "BATON_TEST_NOW: %v\n", err)
		os.Exit(2)
	}
	start := time.Now()
	return func() time.Time { return base.Add(time.Since(start)) }
}

// child is one headless window process.
type child struct {
	t     testing.TB
	cmd   *exec.Cmd
	stdin io.WriteCloser
	pid   int

	mu      sync.Mutex
	cond    *sync.Cond
	replies map[string]map[string]any
	events  []map[string]any
	eventAt []time.Time
	exited  bool
	nextID  int
}

type childOpt func(*exec.Cmd)

func withEnv(kv ...string) childOpt { return func(c *exec.Cmd) { c.Env = append(c.Env, kv...) } }

// startChild starts a headless window on home.
func startChild(t testing.TB, home string, opts ...childOpt) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BATON_TEST_CHILD=headless", "BATON_TEST_HOME="+home)
	for _, o := range opts {
		o(cmd)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &prefixWriter{t: t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{t: t, cmd: cmd, stdin: stdin, pid: cmd.Process.Pid, replies: map[string]map[string]any{}}
	c.cond = sync.NewCond(&c.mu)
	go c.read(stdout)
	t.Cleanup(func() {
		c.kill()
		// Runs outlive windows: what a test left running under supervisors goes too, before
		// the home folder is removed.
		proc.KillAll(nil, [][]string{{workflow.EnvHome + "=" + home}}, 5*time.Second)
	})
	return c
}

type prefixWriter struct{ t testing.TB }

func (p *prefixWriter) Write(b []byte) (int, error) {
	if testing.Verbose() {
		os.Stderr.Write(b)
	}
	return len(b), nil
}

// read takes the child's output one line at a time. A last line without its newline is a
// window killed while it wrote (kill -9 mid-reply): it is dropped, not a protocol error;
// every complete line must be JSON.
func (c *child) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil { // end of output: a line without its newline was cut by a kill
			break
		}
		now := time.Now()
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Errorf("child %d wrote a non-JSON line: %q", c.pid, line)
			continue
		}
		c.mu.Lock()
		if _, ok := m["event"]; ok {
			c.events = append(c.events, m)
			c.eventAt = append(c.eventAt, now)
		} else {
			c.replies[fmt.Sprint(m["id"])] = m
		}
		c.cond.Broadcast()
		c.mu.Unlock()
	}
	c.mu.Lock()
	c.exited = true
	c.cond.Broadcast()
	c.mu.Unlock()
}

// send writes a request and returns its id without waiting.
func (c *child) send(req map[string]any) string {
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprintf("q%d", c.nextID)
	c.mu.Unlock()
	req["id"] = id
	b, _ := json.Marshal(req)
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		c.t.Fatalf("write to child %d: %v", c.pid, err)
	}
	return id
}

// do sends a request and waits for its reply.
func (c *child) do(req map[string]any) map[string]any {
	c.t.Helper()
	id := c.send(req)
	return c.reply(id, 10*time.Second)
}

func (c *child) reply(id string, timeout time.Duration) map[string]any {
	c.t.Helper()
	var r map[string]any
	ok := c.waitFor(timeout, func() bool { r = c.replies[id]; return r != nil })
	if !ok {
		c.t.Fatalf("child %d: no reply to %s within %s", c.pid, id, timeout)
	}
	return r
}

// ok sends a request and fails the test unless the reply is ok.
func (c *child) ok(req map[string]any) map[string]any {
	c.t.Helper()
	r := c.do(req)
	if r["ok"] != true {
		c.t.Fatalf("child %d: %v failed: %v", c.pid, req["op"], r)
	}
	return r
}

// waitFor waits until pred (called with c.mu held) is true or the child exited.
func (c *child) waitFor(timeout time.Duration, pred func() bool) bool {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for !pred() {
		if c.exited || time.Now().After(deadline) {
			return pred()
		}
		c.cond.Wait()
	}
	return true
}

// waitEvent waits for an event at index >= from matching pred and returns its index.
func (c *child) waitEvent(from int, timeout time.Duration, pred func(map[string]any) bool) (int, map[string]any) {
	c.t.Helper()
	idx := -1
	c.waitFor(timeout, func() bool {
		for i := from; i < len(c.events); i++ {
			if pred(c.events[i]) {
				idx = i
				return true
			}
		}
		return false
	})
	if idx < 0 {
		c.t.Fatalf("child %d: no matching event within %s; events: %v", c.pid, timeout, c.eventsCopy())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return idx, c.events[idx]
}

func (c *child) eventsCopy() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]map[string]any(nil), c.events...)
}

func (c *child) nEvents() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.events)
}

// role waits for the first role event that is reader or writer and returns it.
func (c *child) initialRole() string {
	c.t.Helper()
	_, e := c.waitEvent(0, 10*time.Second, func(e map[string]any) bool {
		return e["event"] == "role" && (e["role"] == "reader" || e["role"] == "writer")
	})
	return e["role"].(string)
}

// waitWriter waits until the child reports writer and returns that event.
func (c *child) waitWriter(timeout time.Duration) map[string]any {
	c.t.Helper()
	_, e := c.waitEvent(0, timeout, func(e map[string]any) bool { return e["event"] == "role" && e["role"] == "writer" })
	return e
}

// kill9 kills the child with SIGKILL and reaps it.
func (c *child) kill9() {
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	_ = c.cmd.Wait()
}

// kill is the cleanup: SIGKILL if still running.
func (c *child) kill() {
	if c.cmd.ProcessState == nil {
		c.kill9()
	}
}

// close ends stdin (a graceful exit) and waits for the process.
func (c *child) close() error {
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		c.kill9()
		return fmt.Errorf("child %d did not exit within 20s of end of stdin", c.pid)
	}
}

// snapshot returns the child's snapshot reply.
func (c *child) snapshot() snapshotReply {
	c.t.Helper()
	r := c.ok(map[string]any{"op": "snapshot"})
	b, _ := json.Marshal(r)
	var s snapshotReply
	if err := json.Unmarshal(b, &s); err != nil {
		c.t.Fatal(err)
	}
	return s
}

type snapshotReply struct {
	Generation uint64 `json:"generation"`
	Epoch      uint64 `json:"epoch"`
	WriterPID  int    `json:"writer_pid"`
	Workflows  []struct {
		Name string `json:"name"`
	} `json:"workflows"`
	Runs []struct {
		ID       string `json:"id"`
		Workflow string `json:"workflow"`
		Task     string `json:"task"`
		Status   string `json:"status"`
		OwnerPID int    `json:"owner_pid"`
		PGID     int    `json:"pgid"`
		StepPID  int    `json:"step_pid"`
		Attempt  int    `json:"attempt"`
		Error    string `json:"error"`
		ExitCode *int   `json:"exit_code"`
		SupPID   int    `json:"supervisor_pid"`
	} `json:"runs"`
}

func (s snapshotReply) names() []string {
	var out []string
	for _, w := range s.Workflows {
		out = append(out, w.Name)
	}
	return out
}

// wf builds a simple add_workflow request.
func addWF(name string, lane int, onLost string, argv ...string) map[string]any {
	if len(argv) == 0 {
		argv = []string{"true"}
	}
	return map[string]any{"op": "add_workflow", "workflow": map[string]any{
		"name": name, "max_concurrent": lane, "on_owner_lost": onLost,
		"steps": []any{map[string]any{"name": "s", "argv": argv}},
	}}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func eventIs(kind string, kv ...string) func(map[string]any) bool {
	return func(e map[string]any) bool {
		if e["event"] != kind {
			return false
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if fmt.Sprint(e[kv[i]]) != kv[i+1] {
				return false
			}
		}
		return true
	}
}
