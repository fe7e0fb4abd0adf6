package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"baton/store"
	"baton/store/storetest/tmpfs"
)

// A full disk is said out loud, on a real one: the home lives on a small tmpfs the test
// mounts and fills, with a real headless window, real supervisors and real steps.

// fdWaitRun waits until run id's record in c's snapshot satisfies cond and returns it.
func fdWaitRun(t *testing.T, c *child, id, what string, cond func(store.Run) bool) store.Run {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		r := c.ok(map[string]any{"op": "snapshot"})
		var runs []store.Run
		b, _ := json.Marshal(r["runs"])
		if err := json.Unmarshal(b, &runs); err != nil {
			t.Fatal(err)
		}
		for _, run := range runs {
			if run.ID == id && cond(run) {
				return run
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s: %s did not happen within 90 s; runs: %+v", id, what, runs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFullDiskIsSaidOutLoud: with the disk full, a change is either saved (the log of
// saves keeps its room) and kept, or refused naming the full disk; a run whose output no
// longer fits goes on to its end and is recorded with its log cut said (how much was
// kept, and why), never as a plain success, in the snapshot and by `baton runs`; a run
// that cannot start for want of space fails naming it; an audit entry the disk refused
// is written once space returns; nothing acknowledged is lost; and once space is freed
// the home works again.
func TestFullDiskIsSaidOutLoud(t *testing.T) {
	t.Parallel()
	dir := tmpfs.Mount(t, 24<<20)
	home := filepath.Join(dir, "home")
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("a is not the writer")
	}
	var acked []string
	for i := 0; i < 3; i++ {
		name := fmt.Sprintf("before-%d", i)
		a.ok(addWF(name, 1, "fail"))
		acked = append(acked, name)
	}
	// A first step that writes 8 MiB, far more than the disk will have left, then steps
	// enough that the run's journal outgrows the page it began in: its records must have
	// their room reserved to be written at all once the disk is full.
	steps := []any{map[string]any{"name": "chatty", "argv": []string{"sh", "-c", "yes baton | head -c 8388608"}}}
	for i := 0; i < 24; i++ {
		steps = append(steps, map[string]any{"name": fmt.Sprintf("quiet %d", i), "argv": []string{"true"}})
	}
	a.ok(map[string]any{"op": "add_workflow", "workflow": map[string]any{"name": "chatty", "steps": steps}})
	a.ok(addWF("hello", 1, "fail", "echo", "hello"))
	acked = append(acked, "chatty", "hello")

	fill := tmpfs.Fill(t, dir, "fill")
	// A change bigger than a page (a file's last page may take a small one). The log of
	// saves keeps its room (store/wal.go), so it may well be saved on a full disk: then it
	// is acknowledged and kept like any other; else its refusal names the full disk.
	during := false
	if r := a.do(addWF("during", 1, "fail", "echo", strings.Repeat("x", 32<<10))); r["ok"] == true {
		during = true
		acked = append(acked, "during")
	} else if !strings.Contains(fmt.Sprint(r["error"]), "no space left on device") {
		t.Fatalf("a change on a full disk was refused without naming the full disk: %v", r)
	}

	t.Logf("a change on the full disk was saved: %v", during)
	// A run that cannot start for want of space says so. (What a failed background save
	// freed is filled again first.)
	fill2 := tmpfs.Fill(t, dir, "fill2")
	if r := a.do(map[string]any{"op": "start_run", "workflow": "hello"}); r["ok"] != true {
		t.Logf("start_run on the full disk: %v", r["error"])
		if !strings.Contains(fmt.Sprint(r["error"]), "no space left on device") {
			t.Fatalf("start_run on a full disk was refused without naming the full disk: %v", r)
		}
	} else {
		id := r["run"].(string)
		got := fdWaitRun(t, a, id, "its end recorded", func(r store.Run) bool { return !r.Active() })
		t.Logf("a run started on the full disk: %s: %s %s", got.Status, got.Error, got.LogCut)
		log, _ := os.ReadFile(got.Log)
		switch {
		case got.Status == store.StatusFailed && strings.Contains(got.Error, "no space left on device"):
		case got.Status == store.StatusSucceeded && (got.LogCut != nil || strings.Contains(string(log), "hello")):
			// the disk found room after all (pages a failed background save let go)
		default:
			t.Fatalf("a run started on a full disk was recorded %s: %q, log %q, log_cut %v; want failed naming the full disk", got.Status, got.Error, log, got.LogCut)
		}
	}

	// Room for a run's start (its journal's room is 186 KiB), not for its output.
	if err := os.Remove(fill2); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(fill, fileSize(t, fill)-1<<20); err != nil {
		t.Fatal(err)
	}
	run := a.ok(map[string]any{"op": "start_run", "workflow": "chatty"})["run"].(string)
	got := fdWaitRun(t, a, run, "its end recorded", func(r store.Run) bool { return !r.Active() })
	if got.Status != store.StatusSucceeded || got.LogCut == nil {
		t.Fatalf("the run whose log did not fit was recorded %s with log_cut %v (%+v); want its success and its cut log said", got.Status, got.LogCut, got)
	}
	if got.LogCut.Reason != "no space left on device" || got.LogCut.Kept <= 0 || got.LogCut.Kept >= 8<<20 {
		t.Fatalf("log_cut %+v: want the bytes kept (between 0 and 8 MiB) and no space left on device", got.LogCut)
	}
	t.Logf("the run whose output did not fit: %s, %s", got.Status, got.LogCut)
	if size := fileSize(t, got.Log); size != got.LogCut.Kept {
		t.Fatalf("the log holds %d bytes, its record says %d were kept", size, got.LogCut.Kept)
	}
	if out := cliCmd(home, "runs"); out.code != 0 || !strings.Contains(out.stdout, run) ||
		!strings.Contains(out.stdout, "log cut at "+store.HumanBytes(got.LogCut.Kept)+": no space left on device") {
		t.Fatalf("baton runs does not say the log was cut (exit %d):\n%s%s", out.code, out.stdout, out.stderr)
	}

	// Space freed: the home works again.
	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	a.ok(addWF("after", 1, "fail"))
	acked = append(acked, "after")
	h := a.ok(map[string]any{"op": "start_run", "workflow": "hello"})["run"].(string)
	hr := fdWaitRun(t, a, h, "its end recorded", func(r store.Run) bool { return !r.Active() })
	if log, _ := os.ReadFile(hr.Log); hr.Status != store.StatusSucceeded || hr.LogCut != nil || string(log) == "" || !strings.Contains(string(log), "hello") {
		t.Fatalf("a run once space was freed: %+v, log %q", hr, log)
	}

	// Nothing acknowledged is lost: in the window's view, and on disk once it closed.
	if names := a.snapshot().names(); !allIn(acked, names) {
		t.Fatalf("acknowledged workflows %v, the window holds %v", acked, names)
	}
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range readDisk(t, home).Workflows {
		names = append(names, w.Name)
	}
	if !allIn(acked, names) {
		t.Fatalf("acknowledged workflows %v, the disk holds %v", acked, names)
	}
	// The audit entry of a change saved while the disk was full was written once it
	// had room again.
	if during {
		entries, _ := store.NewAudit(home).Read(0)
		found := false
		for _, e := range entries {
			found = found || (e.Kind == store.KindWorkflowChange && e.Data["workflow"] == "during")
		}
		if !found {
			t.Fatalf("the audit log lacks the change saved while the disk was full: %v", entries)
		}
	}
}

func allIn(want, have []string) bool {
	for _, w := range want {
		if !contains(have, w) {
			return false
		}
	}
	return true
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
