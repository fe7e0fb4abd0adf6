package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"baton/store"
)

// TestBecomeWriterIsNotReentered: a second BecomeWriter while one is promoting does
// nothing. The chaos harness found the race: the lock watcher's takeover and a reload's
// retry both ran, one removed the other's temp file as stale, and both failed, leaving a
// window that held the lock and never wrote.
func TestBecomeWriterIsNotReentered(t *testing.T) {
	w, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.mu.Lock()
	w.term = newTerm(w, w.self, folderLock{path: w.lockPath}.hold(flock.New(w.lockPath))) // as if the lock watcher's takeover were under way
	w.term.phase = phasePromoting
	w.mu.Unlock()
	w.BecomeWriter()
	if r := w.Role(); r != RolePromoting {
		t.Fatalf("a second BecomeWriter ran beside the first: role now %v", r)
	}
	if _, err := w.st.Update(func(*store.Doc) error { return nil }); !errors.Is(err, store.ErrNotWriter) {
		t.Fatalf("the second BecomeWriter began an epoch: %v", err)
	}
}

// crashPoints are the named failpoints a save or a takeover can be killed at. The log's
// point is reached in the crashing window's takeover save (a frame of workflows.wal, its
// first save), the save points in its first whole save of workflows.json after that (the
// checkpoint, a second later).
var crashPoints = []string{
	"wal.after-write", "save.after-temp-write", "save.after-fsync", "save.after-rename",
	"takeover.after-lock", "takeover.after-reread", "takeover.mid-reap", "takeover.before-save",
}

// TestCrashPoints: a writer acknowledges writes and has a run going; it dies; the next
// window, armed with one failpoint, is killed exactly there in its takeover; a third
// window takes over and must have every acknowledged write, reap the dead run exactly
// once, and clean stale temp files, never the live file.
func TestCrashPoints(t *testing.T) {
	for _, fp := range crashPoints {
		t.Run(fp, func(t *testing.T) {
			t.Parallel()
			crashAt(t, fp)
		})
	}
}

func crashAt(t *testing.T, fp string) {
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	a.ok(addWF("acked-1", 1, "fail"))
	a.ok(addWF("slow", 1, "fail", sleeper(marks, 300)...))
	run := a.ok(map[string]any{"op": "start_run", "workflow": "slow"})["run"].(string)
	runningWithGroup(t, a, run)
	grand := readPID(t, filepath.Join(marks, "grandchild"))
	a.ok(addWF("acked-2", 1, "fail"))
	b := startChild(t, home, withEnv("BATON_FAILPOINTS="+fp))
	if b.initialRole() != "reader" {
		t.Fatal("b is not a reader")
	}
	a.kill9()
	if !b.waitFor(10*time.Second, func() bool { return b.exited }) {
		t.Fatalf("b was not killed at %s", fp)
	}
	b.kill9() // reaps it
	if ws, ok := b.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("b ended with %v, not by its failpoint", b.cmd.ProcessState)
	}
	// What the crash left: a file that parses with everything acknowledged.
	d := readDisk(t, home)
	for _, n := range []string{"acked-1", "acked-2", "slow"} {
		if d.Workflow(n) == nil {
			t.Fatalf("after the crash at %s the file lacks acknowledged %q", fp, n)
		}
	}
	temps, _ := filepath.Glob(filepath.Join(home, ".baton-tmp-*"))
	wantTemp := fp == "save.after-temp-write" || fp == "save.after-fsync"
	if wantTemp != (len(temps) > 0) {
		t.Fatalf("after the crash at %s temp files are %v (want some: %v)", fp, temps, wantTemp)
	}
	c := startChild(t, home)
	ev := c.waitWriter(10 * time.Second)
	if ep := uint64(toF(ev["epoch"])); ep <= d.Epoch {
		t.Fatalf("new writer's epoch %d is not above the disk's %d", ep, d.Epoch)
	}
	c.ok(addWF("after", 1, "fail"))
	d = readDisk(t, home)
	for _, n := range []string{"acked-1", "acked-2", "slow", "after"} {
		if d.Workflow(n) == nil {
			t.Fatalf("after recovery from %s the file lacks %q", fp, n)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(home, ".baton-tmp-*")); len(left) > 0 {
		t.Fatalf("stale temp files survive the next takeover: %v", left)
	}
	r := d.Run(run)
	if r == nil || r.Status != store.StatusFailed || !strings.Contains(r.Error, fmt.Sprintf("pid %d", a.pid)) {
		t.Fatalf("the dead writer's run after recovery: %+v", r)
	}
	if pidAlive(grand) {
		t.Fatalf("the dead run's grandchild %d survives", grand)
	}
	reaps := 0
	es, _ := store.NewAudit(home).Read(0)
	for _, e := range es {
		if e.Kind == "reap" && e.Data["run"] == run {
			reaps++
		}
	}
	// Killed after its takeover's frame was written (even before its fdatasync: the frame is
	// whole, and a killed process's writes stay), b had recorded the reap: c must not reap
	// again. The audit log has the reap once: c's, or b's when b lived to write it (it
	// does so right after its frame, a second before its whole save, so on a machine too
	// loaded for that it may not have); none when b died at its frame. Never twice.
	reapedByB := !strings.HasPrefix(fp, "takeover.")
	if inC := strings.Contains(fmt.Sprint(ev["reaped"]), run); inC == reapedByB {
		t.Fatalf("c's takeover reaped %v; the run was reaped by the crashed window: %v", ev["reaped"], reapedByB)
	}
	switch {
	case strings.HasPrefix(fp, "save.") && reaps <= 1:
	case reaps != map[bool]int{false: 0, true: 1}[fp != "wal.after-write"]:
		t.Fatalf("run %s reaped %d times in the audit log (crash at %s)", run, reaps, fp)
	}
	if _, err := os.Stat(filepath.Join(home, store.FileName)); err != nil {
		t.Fatal(err)
	}
}
