package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"baton/host/forward"
	"baton/store"
	"baton/workflow"
)

// waitRunEnd waits until run id of window w has ended and returns it.
func waitRunEnd(t *testing.T, w *Core, id string) store.Run {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if r := w.Snapshot().Run(id); r != nil && r.Status != store.StatusQueued && r.Status != store.StatusRunning {
			return *r
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s did not end", id)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not a synchronisation
	}
}

// TestRunLogSymlinkRefused: a run's log path made a symbolic link before the run starts
// (to a file outside the home, or to nowhere): the run's output never goes through it:
// the run fails saying so, the refusal is audited, and the file outside is untouched.
func TestRunLogSymlinkRefused(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"file", "dangling"} {
		t.Run(target, func(t *testing.T) {
			home, dir := t.TempDir(), t.TempDir()
			outside := filepath.Join(dir, "outside")
			if target == "file" {
				if err := os.WriteFile(outside, []byte("precious\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			w := openStarted(t, home)
			waitRole(t, w, RoleWriter)
			g := gate(t, dir)
			ctx := context.Background()
			in := w.Intents()
			if _, err := in.AddWorkflow(ctx, oneStep("w", "fail", "sh", "-c", "cat "+g+" >/dev/null; echo secret-output")); err != nil {
				t.Fatal(err)
			}
			first, _, err := in.StartRun(ctx, "w", "")
			if err != nil {
				t.Fatal(err)
			}
			second, _, err := in.StartRun(ctx, "w", "") // queued behind the first: its log does not exist yet
			if err != nil {
				t.Fatal(err)
			}
			logPath, err := workflow.LogPath(home, second.ID)
			if err != nil {
				t.Fatal(err)
			}
			firstLog, _ := workflow.LogPath(home, first.ID)
			for deadline := time.Now().Add(30 * time.Second); ; { // the first run is going: runs/ exists
				if _, err := os.Stat(firstLog); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the first run's log never appeared")
				}
				time.Sleep(5 * time.Millisecond) // polling a condition, not a synchronisation
			}
			if err := os.Symlink(outside, logPath); err != nil {
				t.Fatal(err)
			}
			<-openGate(g)
			if r := waitRunEnd(t, w, first.ID); r.Status != store.StatusSucceeded {
				t.Fatalf("first run: %s %q", r.Status, r.Error)
			}
			g2 := openGate(g) // the second run's step, should it ever start
			r := waitRunEnd(t, w, second.ID)
			if r.Status != store.StatusFailed || !strings.Contains(r.Error, "symbolic link") || !strings.Contains(r.Error, logPath) {
				t.Fatalf("run with a symlinked log: %s %q", r.Status, r.Error)
			}
			b, err := os.ReadFile(outside)
			switch {
			case target == "file" && string(b) != "precious\n":
				t.Fatalf("the file outside the home was written through the run's log: %q", b)
			case target == "dangling" && !errors.Is(err, os.ErrNotExist):
				t.Fatalf("a file was created outside the home through the run's log: %v %q", err, b)
			}
			if fi, err := os.Lstat(logPath); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the symlink was replaced: %v", err)
			}
			wantAudit(t, home, logPath, "refused")
			select {
			case <-g2:
				t.Fatal("the second run's step started")
			default:
			}
		})
	}
}

// TestLogsRefusesSymlink: `baton logs` never prints through a symbolic link: a run's log
// replaced by one to a file outside the home is refused, naming it, and nothing of the
// file is printed.
func TestLogsRefusesSymlink(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	seedWorkflows(t, home, oneStep("w", "fail", "echo", "own-output"))
	if o := cliCmd(home, "run", "w", "--wait"); o.code != 0 {
		t.Fatalf("run: %+v", o)
	}
	r := lastRun(t, home, "w")
	if o := cliCmd(home, "logs", r.ID); o.code != 0 || !strings.Contains(o.stdout, "own-output") {
		t.Fatalf("logs of a plain log: %+v", o)
	}
	outside := filepath.Join(dir, "outside")
	if err := os.WriteFile(outside, []byte("outside-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath, _ := workflow.LogPath(home, r.ID)
	if err := os.Remove(logPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, logPath); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"logs", r.ID}, {"logs", r.ID, "--json"}, {"logs", r.ID, "--follow"}} {
		o := cliCmd(home, args...)
		if all := o.stdout + o.stderr; o.code != 1 || strings.Contains(all, "outside-secret") || !strings.Contains(all, "symbolic link") || !strings.Contains(all, logPath) {
			t.Fatalf("%v through a symlink: %+v", args, o)
		}
	}
}

// TestSymlinkPlantedUnderWriter: a file of the home replaced by a symbolic link while a
// window writes: nothing is written through it, and the writer steps down naming it.
func TestSymlinkPlantedUnderWriter(t *testing.T) {
	t.Parallel()
	for _, name := range []string{store.AuditName, store.PrevName, store.FileName} {
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			outside := filepath.Join(t.TempDir(), "outside")
			if err := os.WriteFile(outside, []byte("precious"), 0o600); err != nil {
				t.Fatal(err)
			}
			w := openStarted(t, home)
			waitRole(t, w, RoleWriter)
			ctx := context.Background()
			if _, err := w.Intents().AddWorkflow(ctx, oneStep("a", "fail", "true")); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(home, name)
			if err := os.Symlink(outside, p+".planted"); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(p+".planted", p); err != nil {
				t.Fatal(err)
			}
			_, _ = w.Intents().AddWorkflow(ctx, oneStep("b", "fail", "true")) // may be refused already
			deadline := time.Now().Add(30 * time.Second)
			for st := w.Status(); st.Role != RoleReader || !strings.Contains(st.Problem, p); st = w.Status() {
				if time.Now().After(deadline) {
					t.Fatalf("the writer did not step down: %+v", st)
				}
				time.Sleep(5 * time.Millisecond) // polling a condition, not a synchronisation
			}
			if _, err := w.Intents().AddWorkflow(ctx, oneStep("c", "fail", "true")); !errors.Is(err, ErrReadOnly) {
				t.Fatalf("a write after the symlink was found: %v", err)
			}
			if b, _ := os.ReadFile(outside); string(b) != "precious" {
				t.Fatalf("written through the symlink: %q", b)
			}
			if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("the symlink was replaced (a symlink is refused, never repaired): %v", err)
			}
		})
	}
}

// TestSafeCommandMakesHomeSafe: the one command an unsafe home's problem gives makes the
// whole home safe, whatever its path holds (a space, a quote, glob characters): odd
// files and another user's request and reply files are removed, this user's own are
// kept, and nothing unsafe is left.
func TestSafeCommandMakesHomeSafe(t *testing.T) {
	t.Parallel()
	needRoot(t)
	home := filepath.Join(t.TempDir(), "it's [a] home*?")
	w := openStarted(t, home)
	waitRole(t, w, RoleWriter)
	if _, err := w.Intents().AddWorkflow(context.Background(), oneStep("a", "fail", "true")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	mine := filepath.Join(home, forward.RequestsDir, "mine.json")
	theirs := filepath.Join(home, forward.RequestsDir, "theirs.json")
	theirReply := filepath.Join(home, forward.RepliesDir, "theirs.json")
	for _, p := range []string{mine, theirs, theirReply} {
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{theirs, theirReply} {
		if err := os.Chown(p, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(home, "runs", "x.log")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(filepath.Join(home, store.AuditName), nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(home, store.FileName), 0o666); err != nil {
		t.Fatal(err)
	}
	faults, _ := inspectHome(home)
	if len(faults) < 2 {
		t.Fatalf("faults: %+v", faults)
	}
	runSafeCommand(t, homeFaultError(home, faults).Error())
	if faults, _ := inspectHome(home); len(faults) > 0 {
		t.Fatalf("still unsafe after the command: %+v", faults)
	}
	for p, want := range map[string]bool{mine: true, theirs: false, theirReply: false, filepath.Join(home, "runs", "x.log"): false} {
		if _, err := os.Lstat(p); (err == nil) != want {
			t.Errorf("%s: present %v, want %v", p, err == nil, want)
		}
	}
	w = openStarted(t, home)
	waitRole(t, w, RoleWriter)
}
