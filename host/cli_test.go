package host

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"baton/store"
)

// These tests run the command line (package host/cli) as a child process of the test
// binary (main_test.go), against real windows: the command's own, headless child windows,
// and the runs' supervisors. The real binary is driven by ui/cli_run_test.go.

// The command line's exit codes (host/cli).
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// runResult and statusResult are what the commands print with --json (host/cli), as far
// as these tests read them.
type runResult struct {
	ID          string `json:"id"`
	Status      string `json:"status"`
	ExitCode    *int   `json:"exit_code,omitempty"`
	LogTail     string `json:"log_tail,omitempty"`
	Output      string `json:"output,omitempty"`
	ForwardedTo int    `json:"forwarded_to,omitempty"`
}

type statusResult struct {
	Writer *store.Owner `json:"writer"`
}

type cliOut struct {
	code           int
	stdout, stderr string
}

// cliCmd runs one command on home and waits for it.
func cliCmd(home string, args ...string) cliOut {
	var out lockedBuf
	return <-cliStart(&out, append(args, "--home", home))
}

// cliAsync runs one command on home; out is filled as it prints.
func cliAsync(home string, out *lockedBuf, args ...string) <-chan cliOut {
	return cliStart(out, append(args, "--home", home))
}

// cliStart starts the command args (args[0] is its name) as a child process; its exit
// code (-1 if it could not start or was killed) and output come on the channel.
func cliStart(out *lockedBuf, args []string) <-chan cliOut { return cliStartEnv(out, nil, args) }

// cliStartEnv is cliStart with env (KEY=value) added to the child's environment.
func cliStartEnv(out *lockedBuf, env, args []string) <-chan cliOut {
	done := make(chan cliOut, 1)
	b, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), "BATON_TEST_CHILD=cli", "BATON_TEST_CLI_ARGS="+string(b))
	var errb lockedBuf
	cmd.Stdout, cmd.Stderr = out, &errb
	go func() {
		code := -1
		if err := cmd.Run(); err == nil || cmd.ProcessState != nil {
			code = cmd.ProcessState.ExitCode()
		}
		done <- cliOut{code, out.String(), errb.String()}
	}()
	return done
}

// lockedBuf is a buffer a command writes while the test reads it; each write wakes
// waitFor.
type lockedBuf struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.wrote != nil {
		close(l.wrote)
		l.wrote = nil
	}
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// holds returns a channel closed once the buffer holds s.
func (l *lockedBuf) holds(s string) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		for {
			l.mu.Lock()
			if strings.Contains(l.b.String(), s) {
				l.mu.Unlock()
				close(ch)
				return
			}
			if l.wrote == nil {
				l.wrote = make(chan struct{})
			}
			wrote := l.wrote
			l.mu.Unlock()
			<-wrote
		}
	}()
	return ch
}

// seedWorkflows saves workflows in home through a writer window that then closes.
func seedWorkflows(t *testing.T, home string, wfs ...store.Workflow) {
	t.Helper()
	w, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	for _, wf := range wfs {
		if _, err := w.Intents().AddWorkflow(context.Background(), wf); err != nil {
			t.Fatal(err)
		}
	}
}

func oneStep(name, onLost string, argv ...string) store.Workflow {
	return store.Workflow{Name: name, MaxConcurrent: 1, OnOwnerLost: onLost, Steps: []store.Step{{Argv: argv}}}
}

// gate makes a FIFO in dir; a step that reads it blocks until the test opens it.
func gate(t *testing.T, dir string) string { return fifo(t, dir, "gate") }

// fifo makes a FIFO named name in dir.
func fifo(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // unblock a step still waiting, so its supervisor can end
		if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	return p
}

// open releases the step reading the gate: it blocks until that step opens it.
func openGate(p string) <-chan struct{} {
	opened := make(chan struct{})
	go func() {
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Write([]byte("go\n"))
			f.Close()
		}
		close(opened)
	}()
	return opened
}

// TestCLIUsage: bad arguments get the command's usage line on stderr and exit 2; --help
// exits 0.
func TestCLIUsage(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	for _, args := range [][]string{
		{"run"}, {"run", "a", "b"}, {"run", "hello", "--bogus"}, {"logs"}, {"cancel"},
		{"status", "extra"}, {"runs", "--limit", "0"}, {"runs", "--status", "done"}, {"runs", "--limit", "x"},
	} {
		o := cliCmd(home, args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, "usage: baton "+args[0]) || o.stdout != "" {
			t.Errorf("baton %v: exit %d, stdout %q, stderr %q; want 2 and the usage line", args, o.code, o.stdout, o.stderr)
		}
	}
	if o := cliCmd(home, "status", "--help"); o.code != exitOK {
		t.Errorf("status --help: exit %d", o.code)
	}
}

// TestCLIRunWaitNoWindow: with no window open, `baton run --wait` becomes the writer,
// follows the run to its end and prints its log tail: exit 0 for a success, 1 naming the
// run and why for a failure; an unknown workflow or run is named, exit 1; --json is one
// JSON document.
func TestCLIRunWaitNoWindow(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	seedWorkflows(t, home, oneStep("hello", "", "echo", "hi"), oneStep("bad", "", "sh", "-c", "echo oops; exit 3"))

	o := cliCmd(home, "run", "hello", "--wait")
	if o.code != exitOK || !strings.Contains(o.stdout, "hi\n") || !strings.Contains(o.stdout, "succeeded") {
		t.Fatalf("run hello --wait: exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	o = cliCmd(home, "run", "bad", "--wait")
	if o.code != exitFail || !strings.Contains(o.stdout, "oops") || !strings.Contains(o.stderr, "exited with code 3") ||
		!strings.Contains(o.stderr, "run r2-") {
		t.Fatalf("run bad --wait: exit %d (want 1, naming the run and why)\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	o = cliCmd(home, "run", "bad", "--wait", "--json")
	var res runResult
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil || o.code != exitFail || res.Status != store.StatusFailed ||
		res.ExitCode == nil || *res.ExitCode != 3 || !strings.Contains(res.LogTail, "oops") {
		t.Fatalf("run bad --wait --json: exit %d, %+v, %v\n%s", o.code, res, err, o.stdout)
	}
	if o = cliCmd(home, "run", "nope"); o.code != exitFail || !strings.Contains(o.stderr, `"nope"`) {
		t.Errorf("unknown workflow: exit %d, stderr %q", o.code, o.stderr)
	}
	for _, args := range [][]string{{"logs", "r99"}, {"cancel", "r99-00000000"}, {"runs", "--workflow", "nope"}} {
		if o = cliCmd(home, args...); o.code != exitFail || !strings.Contains(o.stderr, `"r99`) && !strings.Contains(o.stderr, `"nope"`) {
			t.Errorf("baton %v: exit %d, stderr %q; want 1 naming it", args, o.code, o.stderr)
		}
	}
	o = cliCmd(home, "runs", "--json", "--status", "failed")
	var page store.HistoryPage
	if err := json.Unmarshal([]byte(o.stdout), &page); err != nil || len(page.Runs) != 2 {
		t.Errorf("runs --json --status failed: %v, %d runs\n%s", err, len(page.Runs), o.stdout)
	}
}

// TestCLIRunOutlivesCommand: `baton run W` with no window open does not cancel its run by
// exiting (issue 14: the run was recorded cancelled, "window closed while the run was
// going"). A run of a workflow that would be cancelled by a close keeps the command, as
// the writer, until it ended; an "adopt" run is left going at once and recorded later
// from its journal.
func TestCLIRunOutlivesCommand(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	g := gate(t, t.TempDir())
	seedWorkflows(t, home, oneStep("gated", "", "sh", "-c", "read x < "+g+"; echo passed"),
		oneStep("kept", "adopt", "sh", "-c", "read x < "+g+"; echo kept"), oneStep("hello", "", "true"))

	var out lockedBuf
	done := cliAsync(home, &out, "run", "gated")
	select {
	case o := <-done:
		t.Fatalf("run gated returned while its run was going (its close would cancel it): exit %d\n%s%s", o.code, o.stdout, o.stderr)
	case <-openGate(g):
	}
	if o := <-done; o.code != exitOK {
		t.Fatalf("run gated: exit %d\n%s", o.code, o.stderr)
	}
	if r := lastRun(t, home, "gated"); r.Status != store.StatusSucceeded {
		t.Fatalf("run of gated: %s %q, want succeeded", r.Status, r.Error)
	}

	o := cliCmd(home, "run", "kept")
	if o.code != exitOK {
		t.Fatalf("run kept: exit %d\n%s", o.code, o.stderr)
	}
	<-openGate(g) // the adopt run still goes after the command exited
	id := lastRun(t, home, "kept").ID
	o = cliCmd(home, "logs", id, "--follow", "--json")
	var res runResult
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil || res.Status != store.StatusSucceeded || !strings.Contains(res.Output, "kept") {
		t.Fatalf("logs --follow of the adopt run with no window open: %v %+v\n%s", err, res, o.stderr)
	}
	if o = cliCmd(home, "run", "hello", "--wait"); o.code != exitOK { // the next writer records it
		t.Fatalf("run hello --wait: exit %d\n%s", o.code, o.stderr)
	}
	if r := lastRun(t, home, "kept"); r.Status != store.StatusSucceeded {
		t.Fatalf("the adopt run, recorded by the next writer: %s %q, want succeeded", r.Status, r.Error)
	}
}

// lastRun returns the newest run of workflow name, as `baton runs --json` has it.
func lastRun(t *testing.T, home, name string) store.Run {
	t.Helper()
	o := cliCmd(home, "runs", "--workflow", name, "--limit", "1", "--json")
	var page store.HistoryPage
	if err := json.Unmarshal([]byte(o.stdout), &page); err != nil || len(page.Runs) != 1 {
		t.Fatalf("runs --workflow %s: %v\n%s%s", name, err, o.stdout, o.stderr)
	}
	return page.Runs[0]
}

// TestCLIWithWriterOpen: with a headless writer open, status names it (with none open it
// names none, whatever the document last recorded), `logs --follow` prints what the run
// writes until it ends, and `cancel` is forwarded to the writer.
func TestCLIWithWriterOpen(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	g := gate(t, t.TempDir())
	seedWorkflows(t, home, oneStep("gated", "", "sh", "-c", "echo before; read x < "+g+"; echo after"))
	if o := cliCmd(home, "status", "--json"); !strings.Contains(o.stdout, `"writer": null`) {
		t.Fatalf("status with no window open must name no writer:\n%s", o.stdout)
	}
	c := startChild(t, home)
	c.waitWriter(10 * time.Second)
	var st statusResult
	o := cliCmd(home, "status", "--json")
	if err := json.Unmarshal([]byte(o.stdout), &st); err != nil || st.Writer == nil || st.Writer.PID != c.pid {
		t.Fatalf("status --json: %v %+v, want writer pid %d\n%s", err, st, c.pid, o.stdout)
	}
	id := c.ok(map[string]any{"op": "start_run", "workflow": "gated"})["run"].(string)

	var out lockedBuf
	done := cliAsync(home, &out, "logs", id, "--follow")
	for _, next := range []func() <-chan struct{}{
		func() <-chan struct{} { return out.holds("before\n") },
		func() <-chan struct{} { return openGate(g) },
	} {
		select {
		case o := <-done:
			t.Fatalf("logs --follow returned while the run was going: exit %d\n%s%s", o.code, o.stdout, o.stderr)
		case <-next():
		}
	}
	if o := <-done; o.code != exitOK || !strings.Contains(o.stdout, "before\n") || !strings.Contains(o.stdout, "after\n") {
		t.Fatalf("logs --follow: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}

	// cancel, by the run's number, goes to the writer, which stops the run and records it.
	id = c.ok(map[string]any{"op": "start_run", "workflow": "gated"})["run"].(string)
	num, _, _ := strings.Cut(id, "-")
	var res runResult
	o = cliCmd(home, "cancel", num, "--json")
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil || o.code != exitOK || res.ID != id || res.ForwardedTo != c.pid {
		t.Fatalf("cancel %s --json: exit %d, %+v, %v (want run %s, forwarded to pid %d)\n%s", num, o.code, res, err, id, c.pid, o.stderr)
	}
	if r := lastRun(t, home, "gated"); r.ID != id || r.Status != store.StatusCancelled {
		t.Fatalf("after cancel: run %s %s %q, want %s cancelled", r.ID, r.Status, r.Error, id)
	}
}

// TestCLIRunWaitWriterKilled: `baton run --wait` forwarded to a writer that is killed -9
// while the run's step goes still follows the run to its end (an "adopt" run goes on
// under its supervisor; with no writer left, its journal tells its end) and exits 0.
func TestCLIRunWaitWriterKilled(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	g, ready := gate(t, dir), fifo(t, dir, "ready")
	seedWorkflows(t, home, oneStep("kept", "adopt", "sh", "-c", "echo > "+ready+"; read x < "+g+"; echo done"))
	c := startChild(t, home)
	c.waitWriter(10 * time.Second)
	var out lockedBuf
	done := cliAsync(home, &out, "run", "kept", "--wait")
	select {
	case o := <-done:
		t.Fatalf("run kept --wait: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	case <-out.holds("(sent to the writer, pid " + strconv.Itoa(c.pid) + ")\n"): // it has its reply
	}
	if _, err := os.ReadFile(ready); err != nil { // the step runs: its supervisor lives
		t.Fatal(err)
	}
	c.kill9()
	select {
	case o := <-done:
		t.Fatalf("run --wait returned when the writer died, before its run ended: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	case <-openGate(g):
	}
	if o := <-done; o.code != exitOK || !strings.Contains(o.stdout, "done\n") || !strings.Contains(o.stdout, "succeeded") {
		t.Fatalf("run kept --wait: exit %d\n%s%s", o.code, o.stdout, o.stderr)
	}
}

// TestCLIRunHandsOver: a command that stays the writer for its run leaves as soon as a
// window opened meanwhile asks to write: that window adopts the run (whatever its
// workflow's policy: nobody died) and records its end.
func TestCLIRunHandsOver(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	g := gate(t, t.TempDir())
	seedWorkflows(t, home, oneStep("gated", "", "sh", "-c", "read x < "+g+"; echo passed"))
	var out lockedBuf
	done := cliAsync(home, &out, "run", "gated")
	select {
	case o := <-done:
		t.Fatalf("run gated: exit %d before its run ended\n%s%s", o.code, o.stdout, o.stderr)
	case <-out.holds(" running\n"):
	}
	c := startChild(t, home)
	if role := c.initialRole(); role != "reader" {
		t.Fatalf("a window opened while the command writes is a %s", role)
	}
	c.ok(map[string]any{"op": "request_write"})
	select {
	case o := <-done:
		if o.code != exitOK {
			t.Fatalf("run gated after the hand-over: exit %d\n%s", o.code, o.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the command did not leave within 20s of handing its run over")
	}
	<-openGate(g) // the run goes on after the command left
	c.waitEvent(0, 10*time.Second, eventIs("run", "workflow", "gated", "status", "succeeded"))
}
