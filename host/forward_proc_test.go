package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/host/forward"
	"baton/store"
)

// Forwarding proven with real windows, real files and kill -9.

func fwd(req map[string]any) map[string]any {
	req["forward"] = true
	return req
}

func startRun(name, task string) map[string]any {
	return map[string]any{"op": "start_run", "workflow": name, "task": task}
}

// runsByTask counts the runs of workflow name by task, live and archived, as window c
// reads them.
func runsByTask(t *testing.T, c *child, name string) map[string][]string {
	t.Helper()
	r := c.ok(map[string]any{"op": "history", "workflow": name, "limit": 1000})
	out := map[string][]string{}
	for _, x := range r["runs"].([]any) {
		run := x.(map[string]any)
		task := fmt.Sprint(run["task"])
		out[task] = append(out[task], fmt.Sprint(run["id"]))
	}
	return out
}

// noDuplicateApplied fails if workflows.json records one request twice.
func noDuplicateApplied(t *testing.T, home string) {
	t.Helper()
	seen := map[string]bool{}
	for _, a := range readDisk(t, home).Applied {
		if seen[a.ID] {
			t.Fatalf("request %s is recorded applied twice", a.ID)
		}
		seen[a.ID] = true
	}
}

// TestForwardedStartRunRunsOnceInWriter: a reader's start_run with forward is run once,
// by the writer (its owner), the reply names the writer, and no file is left; without
// forward the reader refuses as before.
func TestForwardedStartRunRunsOnceInWriter(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	a.ok(addWF("count", 1, "fail", "sh", "-c", "echo run >> "+filepath.Join(marks, "starts")))
	b := startChild(t, home)
	if b.initialRole() != "reader" {
		t.Fatal("b is not a reader")
	}
	if r := b.do(startRun("count", "x")); r["code"] != "read_only" {
		t.Fatalf("start_run without forward from a reader: %v", r)
	}
	r := b.ok(fwd(startRun("count", "x")))
	if r["forwarded_to"] != float64(a.pid) {
		t.Fatalf("reply %v does not name the writer %d", r, a.pid)
	}
	run := r["run"].(string)
	a.waitEvent(0, 10*time.Second, eventIs("run", "run", run, "status", "succeeded"))
	s := a.snapshot()
	if len(s.Runs) != 1 || s.Runs[0].ID != run || s.Runs[0].OwnerPID != a.pid {
		t.Fatalf("runs %+v, want the one forwarded run owned by the writer %d", s.Runs, a.pid)
	}
	if starts := lines(filepath.Join(marks, "starts")); len(starts) != 1 {
		t.Fatalf("the step ran %d times", len(starts))
	}
	if ap := readDisk(t, home).Applied; len(ap) != 1 || !strings.Contains(string(ap[0].Reply), run) {
		t.Fatalf("Applied %+v does not record the request with its run", ap)
	}
	waitNoForwardFiles(t, home, 10*time.Second)
}

// TestForwardedCancelRun: a reader's cancel_run with forward stops the writer's run; the
// reply comes once the writer recorded it cancelled.
func TestForwardedCancelRun(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	a.ok(addWF("slow", 1, "fail", sleeper(marks, 60)...))
	b := startChild(t, home)
	if b.initialRole() != "reader" {
		t.Fatal("b is not a reader")
	}
	run := b.ok(fwd(startRun("slow", "")))["run"].(string)
	runningWithGroup(t, a, run)
	if r := b.ok(fwd(map[string]any{"op": "cancel_run", "run": run})); r["forwarded_to"] != float64(a.pid) {
		t.Fatalf("cancel reply %v does not name the writer", r)
	}
	status := ""
	for _, r := range a.snapshot().Runs {
		if r.ID == run {
			status = r.Status
		}
	}
	if status != "cancelled" {
		t.Fatalf("run %s is %q in the writer after its forwarded cancel was answered", run, status)
	}
}

// TestForwardedOnceWhenWriterDies: the writer is killed after it applied a forwarded
// start_run, before and after it answered; the survivor finds the request claimed by a
// dead window and answers it from workflows.json: one run, the one in the reply.
func TestForwardedOnceWhenWriterDies(t *testing.T) {
	t.Parallel()
	for _, fp := range []string{"forward.after-apply", "forward.after-reply"} {
		t.Run(fp, func(t *testing.T) {
			home := t.TempDir()
			a := startChild(t, home, withEnv("BATON_FAILPOINTS="+fp))
			if a.initialRole() != "writer" {
				t.Fatal("a is not the writer")
			}
			a.ok(addWF("w", 1, "fail"))
			b := startChild(t, home)
			c := startChild(t, home)
			if b.initialRole() != "reader" || c.initialRole() != "reader" {
				t.Fatal("b and c must be readers")
			}
			r := b.ok(fwd(startRun("w", "once")))
			if err := a.cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
				t.Fatalf("the writer did not die at %s: %v", fp, err)
			}
			runs := runsByTask(t, b, "w")["once"]
			if len(runs) != 1 || runs[0] != r["run"] {
				t.Fatalf("runs of the forwarded request %v, want exactly the one replied (%v)", runs, r["run"])
			}
			noDuplicateApplied(t, home)
			waitNoForwardFiles(t, home, 10*time.Second)
		})
	}
}

// TestForward50WithWriterKilled: five readers forward 50 start_runs (distinct tasks) while
// the writer is killed -9 in the middle. Every acknowledged request has exactly its run,
// none has two, and the unacknowledged ones at most one.
func TestForward50WithWriterKilled(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	a.ok(addWF("lane", 1, "fail", sleeper(marks, 30)...))
	var rs []*child
	for range 5 {
		c := startChild(t, home)
		if c.initialRole() != "reader" {
			t.Fatal("a second window is not a reader")
		}
		rs = append(rs, c)
	}
	const n = 50
	ids := make([]string, n)
	for i := range n {
		ids[i] = rs[i%len(rs)].send(fwd(startRun("lane", fmt.Sprint("t", i))))
	}
	acked := func() int {
		k := 0
		for i, id := range ids {
			c := rs[i%len(rs)]
			c.mu.Lock()
			if r := c.replies[id]; r != nil && r["ok"] == true {
				k++
			}
			c.mu.Unlock()
		}
		return k
	}
	for deadline := time.Now().Add(60 * time.Second); acked() < 15; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("only %d requests acknowledged in 60s", acked())
		}
	}
	atKill := acked()
	a.kill9()
	if atKill == n {
		t.Fatal("every request was answered before the kill: the kill tested nothing")
	}
	replies := make([]map[string]any, n)
	for i, id := range ids {
		replies[i] = rs[i%len(rs)].reply(id, 60*time.Second)
	}
	byTask := runsByTask(t, rs[0], "lane")
	ok := 0
	for i, r := range replies {
		runs := byTask[fmt.Sprint("t", i)]
		switch {
		case len(runs) > 1:
			t.Errorf("request %d applied %d times: %v", i, len(runs), runs)
		case r["ok"] == true:
			ok++
			if len(runs) != 1 || runs[0] != r["run"] {
				t.Errorf("acknowledged request %d (%v) has runs %v", i, r["run"], runs)
			}
		case r["code"] != "conflict":
			t.Errorf("request %d: unexpected reply %v", i, r)
		}
	}
	t.Logf("%d of %d acknowledged, %d of them before the kill", ok, n, atKill)
	noDuplicateApplied(t, home)
}

// TestForwardTimeoutNeverApplied: with the writer frozen, a forwarded request is answered
// conflict after ForwardTimeout and withdrawn; the thawed writer serves the next request
// and never applies the withdrawn one.
func TestForwardTimeoutNeverApplied(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	b := startChild(t, home)
	if b.initialRole() != "reader" {
		t.Fatal("b is not a reader")
	}
	freeze(t, a)
	thawed := false
	thaw := func() {
		if !thawed {
			thawed = true
			_ = syscall.Kill(a.pid, syscall.SIGCONT)
		}
	}
	defer thaw()
	t0 := time.Now()
	r := b.reply(b.send(fwd(addWF("late", 1, "fail"))), ForwardTimeout+20*time.Second)
	if r["code"] != "conflict" || !strings.Contains(fmt.Sprint(r["error"]), "withdrawn") || !strings.Contains(fmt.Sprint(r["error"]), fmt.Sprint(a.pid)) {
		t.Fatalf("forward to a frozen writer: %v, want a conflict naming it and the withdrawal", r)
	}
	if took := time.Since(t0); took < ForwardTimeout {
		t.Fatalf("answered after %s, before the %s timeout", took, ForwardTimeout)
	}
	thaw()
	b.ok(fwd(addWF("next", 1, "fail")))
	if names := a.snapshot().names(); contains(names, "late") || !contains(names, "next") {
		t.Fatalf("workflows after the thaw: %v, want next and never late", names)
	}
	waitNoForwardFiles(t, home, 10*time.Second)
}

// TestForwardRequesterKilledLeavesNothing: a requester killed -9 while it waits leaves
// nothing for ever: its request is applied (or not) and its reply removed once its
// window is proven dead; a next writer sweeps replies and withdrawn requests of dead
// windows.
func TestForwardRequesterKilledLeavesNothing(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	b := startChild(t, home)
	if b.initialRole() != "reader" {
		t.Fatal("b is not a reader")
	}
	freeze(t, a)
	b.send(fwd(addWF("orphan", 1, "fail")))
	for deadline := time.Now().Add(10 * time.Second); !hasPendingRequest(home); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("b wrote no request")
		}
	}
	b.kill9()
	_ = syscall.Kill(a.pid, syscall.SIGCONT)
	waitNoForwardFiles(t, home, 10*time.Second)

	// Files of windows that died in the middle: a reply never read, a withdrawn request
	// not yet removed. The next writer's sweep removes them.
	dead := store.Owner{PID: b.pid, Instance: "00000000-dead-dead-dead-000000000000"}
	reply, _ := json.Marshal(forward.Reply{ID: strings.Repeat("1a", 16), Requester: dead, WriterPID: a.pid, Outcome: json.RawMessage(`{"ok":true}`)})
	req, _ := json.Marshal(forwardRequest{ID: strings.Repeat("2b", 16), Requester: dead, Request: Request{Op: "start_run"}})
	for path, data := range map[string][]byte{forward.ReplyPath(home, strings.Repeat("1a", 16)): reply, forward.RequestPath(home, strings.Repeat("2b", 16), ".withdrawn"): req} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := startChild(t, home)
	a.kill9()
	c.waitWriter(10 * time.Second)
	waitNoForwardFiles(t, home, 10*time.Second)
}

func hasPendingRequest(home string) bool {
	for _, p := range forward.ListDir(filepath.Join(home, forward.RequestsDir)) {
		if n, ok := forward.ParseName(filepath.Base(p)); ok && n.Suffix == ".json" {
			return true
		}
	}
	return false
}

// freeze SIGSTOPs window c and waits until every thread of it is stopped: a group stop
// takes effect only once one of its threads has been scheduled, and until then its other
// threads run on (a writer not yet stopped could still take a request).
func freeze(t *testing.T, c *child) {
	t.Helper()
	if err := syscall.Kill(c.pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !threadsStopped(c.pid); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("window %d did not stop within 10s of SIGSTOP", c.pid)
		}
	}
}

// TestForwardAnsweredFromTheDocument: the writer applied a forwarded request and died
// before replying, and no window takes over (the requester never waits for the lock, as
// the command line does not): the requester still gets the answer, from "applied" in
// workflows.json, instead of "may still be applied".
func TestForwardAnsweredFromTheDocument(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home, withEnv("BATON_FAILPOINTS=forward.after-apply"))
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	a.ok(addWF("w", 1, "fail"))
	b, err := Open(home, Options{NoWait: true, NoScheduler: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Start(); err != nil || b.Role() != RoleReader {
		t.Fatalf("requester: %v, %v", err, b.Role())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	rep, err := Call(ctx, b, &Request{Op: "start_run", Workflow: json.RawMessage(`"w"`), Task: "once", Forward: true})
	if werr := a.cmd.Wait(); werr == nil || !strings.Contains(werr.Error(), "killed") {
		t.Fatalf("the writer did not die after applying: %v", werr)
	}
	if err != nil {
		t.Fatalf("forwarded start_run whose writer died before replying: %v", err)
	}
	d := readDisk(t, home)
	if len(d.Runs) != 1 || d.Runs[0].ID != rep["run"] || d.Runs[0].Task != "once" {
		t.Fatalf("runs %+v, want exactly the one in the reply %v", d.Runs, rep)
	}
}
