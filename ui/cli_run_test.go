package ui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCLIRunWait drives `baton run --wait` of the real binary (issue 14) under
// LANG=C.UTF-8: with no window open it becomes the writer and follows the run itself; with
// a real headless writer open it forwards the run to that writer, which runs it (its
// owner). Either way a success exits 0 with the log tail, a failure exits 1 naming the run
// and why, --json is one JSON document, and stderr says nothing of Fyne or locales.
func TestCLIRunWait(t *testing.T) {
	bin := buildApp(t)
	env := append(cliEnv(t), "LANG=C.UTF-8")
	home := filepath.Join(t.TempDir(), "home")
	seed := exec.Command(bin, "--headless", "--home", home)
	seed.Env = env
	seed.Stdin = strings.NewReader(`{"id":1,"op":"add_workflow","workflow":{"name":"hello","steps":[{"argv":["echo","hi"]}]}}
{"id":2,"op":"add_workflow","workflow":{"name":"bad","steps":[{"argv":["sh","-c","echo oops; exit 3"]}]}}
`)
	if out, err := seed.CombinedOutput(); err != nil || strings.Count(string(out), `"ok":true`) != 2 {
		t.Fatalf("add the workflows: %v\n%s", err, out)
	}
	baton := func(args ...string) (int, string, string) {
		cmd := exec.Command(bin, append(args, "--home", home)...)
		cmd.Env = env
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		code := 0
		if err := cmd.Run(); err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		if low := strings.ToLower(errb.String()); strings.Contains(low, "fyne") || strings.Contains(low, "locale") {
			t.Errorf("baton %v: stderr must say nothing of Fyne or locales:\n%s", args, errb.String())
		}
		return code, out.String(), errb.String()
	}
	// check runs hello and bad with --wait; forwardedTo is the writer's pid, 0 for none.
	check := func(forwardedTo int) {
		t.Helper()
		code, out, errs := baton("run", "hello", "--wait")
		if code != 0 || !strings.Contains(out, "hi\n") || !strings.Contains(out, "succeeded") {
			t.Fatalf("run hello --wait: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		code, out, errs = baton("run", "bad", "--wait")
		if code != 1 || !strings.Contains(out, "\noops\n") || !strings.Contains(errs, "baton run: run r") ||
			!strings.Contains(errs, "exited with code 3") {
			t.Fatalf("run bad --wait: exit %d (want 1, naming the run and why)\nstdout:\n%s\nstderr:\n%s", code, out, errs)
		}
		code, out, errs = baton("run", "hello", "--wait", "--json")
		var res struct {
			ID          string `json:"id"`
			Status      string `json:"status"`
			LogTail     string `json:"log_tail"`
			ForwardedTo int    `json:"forwarded_to"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.Status != "succeeded" ||
			res.LogTail == "" || res.ForwardedTo != forwardedTo {
			t.Fatalf("run hello --wait --json: exit %d, %+v (want forwarded_to %d), %v\nstdout:\n%s\nstderr:\n%s",
				code, res, forwardedTo, err, out, errs)
		}
	}
	t.Run("no window open", func(t *testing.T) { check(0) })
	t.Run("writer open", func(t *testing.T) {
		h := cliHeadless(t, bin, home, env)
		h.await(t, func(m map[string]any) bool { return m["event"] == "role" && m["role"] == "writer" })
		check(h.pid)
		// The writer ran them: every run of this subtest is owned by it.
		snap := h.do(t, `{"op":"snapshot"}`)
		runs, _ := snap["runs"].([]any)
		owned := 0
		for _, r := range runs {
			if m := r.(map[string]any); m["owner_pid"] == float64(h.pid) {
				owned++
			}
		}
		if owned != 3 {
			t.Fatalf("%d runs owned by the writer pid %d, want the 3 this subtest started:\n%v", owned, h.pid, runs)
		}
	})
}

// headlessProc is a real `baton --headless` window whose stdin stays open.
type headlessProc struct {
	pid int
	in  io.WriteCloser

	mu    sync.Mutex
	lines []map[string]any
	more  chan struct{} // closed at each new line
	next  int
}

func cliHeadless(t *testing.T, bin, home string, env []string) *headlessProc {
	t.Helper()
	cmd := exec.Command(bin, "--headless", "--home", home)
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &headlessProc{pid: cmd.Process.Pid, in: in, more: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var m map[string]any
			_ = json.Unmarshal(sc.Bytes(), &m)
			h.mu.Lock()
			h.lines = append(h.lines, m)
			close(h.more)
			h.more = make(chan struct{})
			h.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = in.Close() // a graceful close
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return h
}

// await waits for a line (reply or event) matching pred and returns it.
func (h *headlessProc) await(t *testing.T, pred func(map[string]any) bool) map[string]any {
	t.Helper()
	timeout := time.After(20 * time.Second)
	for seen := 0; ; {
		h.mu.Lock()
		for ; seen < len(h.lines); seen++ {
			if pred(h.lines[seen]) {
				m := h.lines[seen]
				h.mu.Unlock()
				return m
			}
		}
		more := h.more
		h.mu.Unlock()
		select {
		case <-more:
		case <-timeout:
			t.Fatalf("headless pid %d: no matching line within 20s", h.pid)
		}
	}
}

// do sends one request (a JSON object without its id) and returns its reply.
func (h *headlessProc) do(t *testing.T, req string) map[string]any {
	t.Helper()
	h.mu.Lock()
	h.next++
	id := fmt.Sprintf("cli%d", h.next)
	h.mu.Unlock()
	line := `{"id":"` + id + `",` + strings.TrimPrefix(req, "{") + "\n"
	if _, err := io.WriteString(h.in, line); err != nil {
		t.Fatal(err)
	}
	return h.await(t, func(m map[string]any) bool { return m["id"] == id })
}
