package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/store"
)

// homeData reads every data file of home (all but state.lock and instances/, which are
// liveness), by path relative to home.
func homeData(t *testing.T, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(home, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(home, p)
		if e.IsDir() && rel == InstancesDir {
			return filepath.SkipDir
		}
		if e.IsDir() || rel == LockName {
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameData(t *testing.T, what, home string, before map[string]string) {
	t.Helper()
	after := homeData(t, home)
	for name, b := range before {
		if after[name] != b {
			t.Fatalf("%s: %s changed or vanished", what, name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Fatalf("%s: %s was created", what, name)
		}
	}
}

// ackedUntilKilled starts a writer window that dies by SIGKILL when its first timed
// checkpoint begins, adds workflows w0, w1, ... until it is dead, and returns the names
// whose add was acknowledged: all of them only frames of the log.
func ackedUntilKilled(t *testing.T, home string) []string {
	t.Helper()
	a := startChild(t, home, withEnv("BATON_FAILPOINTS=wal.before-checkpoint"))
	a.waitWriter(20 * time.Second)
	var acked []string
	for i := 0; ; i++ {
		name := fmt.Sprintf("w%d", i)
		id := a.send(addWF(name, 1, "fail"))
		var r map[string]any
		a.waitFor(30*time.Second, func() bool { r = a.replies[id]; return r != nil })
		if r == nil {
			break // killed at its checkpoint
		}
		if r["ok"] != true {
			t.Fatalf("add %s: %v", name, r)
		}
		acked = append(acked, name)
	}
	a.kill9() // reaped (it is dead already)
	if len(acked) < 2 {
		t.Fatalf("the writer acknowledged only %d saves before its checkpoint", len(acked))
	}
	d, err := store.Decode([]byte(homeData(t, home)[store.FileName]))
	if err != nil || d.Workflow(acked[0]) != nil {
		t.Fatalf("workflows.json has the acknowledged saves: the log is not what is tested (%v)", err)
	}
	return acked
}

// With real windows: a writer acknowledges saves that are only frames of the log and is
// killed -9; the home is then damaged. The next window wins state.lock but stays
// read-only, its problem naming the damage and `baton recover` (as `baton status` does);
// it writes nothing, and no file changes, not even workflows.prev.json or audit.log.
// `baton recover` is refused while that window holds the lock; once it closed, recover
// restores what the damage left, and the next window writes.
func TestDamagedHomeRefusedThenRecovered(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, home string)
		all    bool // every acknowledged save comes back
	}{
		{"workflows.json deleted", func(t *testing.T, home string) {
			os.Remove(filepath.Join(home, store.FileName))
		}, true},
		{"log of zeros", func(t *testing.T, home string) {
			os.WriteFile(filepath.Join(home, store.WALName), make([]byte, 1<<20), 0o600)
		}, false},
		{"log cut short", func(t *testing.T, home string) {
			os.Truncate(filepath.Join(home, store.WALName), 200)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			acked := ackedUntilKilled(t, home)
			tc.damage(t, home)
			before := homeData(t, home)

			b := startChild(t, home)
			_, ev := b.waitEvent(0, 20*time.Second, func(e map[string]any) bool {
				return e["event"] == "role" && strings.Contains(fmt.Sprint(e["problem"]), "damaged")
			})
			if p := fmt.Sprint(ev["problem"]); ev["role"] == "writer" || !strings.Contains(p, "baton recover") {
				t.Fatalf("the window on a damaged home: %v", ev)
			}
			if r := b.do(addWF("intruder", 1, "fail")); r["ok"] == true {
				t.Fatalf("a window wrote on a damaged home: %v", r)
			}
			if o := cliCmd(home, "status"); !strings.Contains(o.stdout+o.stderr, "damaged") ||
				!strings.Contains(o.stdout+o.stderr, "baton recover") {
				t.Fatalf("baton status on a damaged home: exit %d: %s%s", o.code, o.stdout, o.stderr)
			}
			if o := cliCmd(home, "recover"); o.code != exitFail || !strings.Contains(o.stderr, "state.lock") {
				t.Fatalf("baton recover beside the window that holds the lock: exit %d: %s", o.code, o.stderr)
			}
			sameData(t, "a damaged home with a window open", home, before)
			if err := b.close(); err != nil {
				t.Fatal(err)
			}
			sameData(t, "a damaged home after its window closed", home, before)
			// The commands that would write are refused too, and write nothing.
			if o := cliCmd(home, "run", acked[0]); o.code == exitOK || !strings.Contains(o.stderr, "baton recover") {
				t.Fatalf("baton run on a damaged home: exit %d: %s", o.code, o.stderr)
			}
			var out bytes.Buffer
			if code := TickOnce(home, Options{}, &out); code == 0 {
				t.Fatalf("baton tick on a damaged home: exit 0: %s", out.String())
			}
			sameData(t, "a damaged home after baton run and tick", home, before)
			// A dry run says what recovery would do and changes nothing, not even the
			// folder's access (a real recovery withdraws it, as every window does).
			if err := os.Chmod(home, 0o750); err != nil {
				t.Fatal(err)
			}
			if o := cliCmd(home, "recover", "--dry-run"); o.code != exitOK || !strings.Contains(o.stdout, "Nothing was changed") {
				t.Fatalf("baton recover --dry-run: exit %d: %s%s", o.code, o.stdout, o.stderr)
			}
			sameData(t, "a damaged home after baton recover --dry-run", home, before)
			if fi, err := os.Stat(home); err != nil || fi.Mode().Perm() != 0o750 {
				t.Fatalf("baton recover --dry-run changed the home's mode: %v %v", fi.Mode(), err)
			}

			o := cliCmd(home, "recover")
			if o.code != exitOK {
				t.Fatalf("baton recover: exit %d: %s%s", o.code, o.stdout, o.stderr)
			}
			if !strings.Contains(o.stdout, "Moved aside") {
				t.Fatalf("baton recover said: %s", o.stdout)
			}
			c := startChild(t, home)
			c.waitWriter(20 * time.Second)
			names := c.snapshot().names()
			for _, n := range acked {
				if tc.all && !contains(names, n) {
					t.Fatalf("acknowledged %s is missing after recovery: %v", n, names)
				}
			}
			c.ok(addWF("after", 1, "fail"))
		})
	}
}

// damagedHomeWindow makes a home whose writer was killed with saves only in its log, then
// removes workflows.json, and opens a window on it: the window holds state.lock and is a
// reader saying the home is damaged. It returns the home, the acknowledged workflows and
// the window.
func damagedHomeWindow(t *testing.T) (string, []string, *Core) {
	home := t.TempDir()
	acked := ackedUntilKilled(t, home)
	os.Remove(filepath.Join(home, store.FileName))
	w := openStarted(t, home)
	if w.Role() != RoleReader || !strings.Contains(w.Status().Problem, "damaged") {
		t.Fatalf("a window on a damaged home: %v, %q", w.Role(), w.Status().Problem)
	}
	return home, acked, w
}

// The window that holds state.lock on a damaged home (read-only, saying why) recovers it
// through Intents.Recover, with the document it holds in memory among the candidates, and
// becomes the writer; another window may not recover meanwhile.
func TestWindowRecoversTheHomeItHoldsTheLockOf(t *testing.T) {
	home, acked, w := damagedHomeWindow(t)
	plan, err := w.Intents().PlanRecovery()
	if err != nil || plan.Restored == 0 {
		t.Fatalf("plan: %+v, %v", plan, err)
	}
	other, err := Open(home, Options{NoWait: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Intents().Recover(); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("a window without the lock recovered: %v", err)
	}
	rec, err := w.Intents().Recover()
	if err != nil {
		t.Fatal(err)
	}
	waitRole(t, w, RoleWriter)
	d := w.Snapshot()
	for _, n := range acked {
		if d.Workflow(n) == nil {
			t.Fatalf("acknowledged %s is missing after the window's recovery (%+v)", n, rec)
		}
	}
}

// A window's recovery while another process holds the audit log's lock (it appends an
// entry): the home is restored, the window becomes the writer at once, and the record of
// the recovery, held meanwhile, is written once the lock is free. Before, Recover failed
// ("the audit log could not record it") after restoring the home, and the window stayed
// read-only until its watch noticed.
func TestWindowRecoversWhileTheAuditLogIsLocked(t *testing.T) {
	home, acked, w := damagedHomeWindow(t)
	other, err := os.OpenFile(filepath.Join(home, store.AuditName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	rec, err := w.Intents().Recover()
	if err != nil {
		t.Fatalf("recover while another process appends to the audit log: %v", err)
	}
	waitRole(t, w, RoleWriter)
	d := w.Snapshot()
	for _, n := range acked {
		if d.Workflow(n) == nil {
			t.Fatalf("acknowledged %s is missing after the recovery (%+v)", n, rec)
		}
	}
	if err := syscall.Flock(int(other.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the recovery's audit entry", func() bool {
		es, _ := store.NewAudit(home).Read(1000)
		for _, e := range es {
			if e.Kind == store.KindRecovery {
				return true
			}
		}
		return false
	})
}

// TestWriterDamagedUnderItStopsAndRecovers: workflows.json is removed under a live
// writer. The writer stops writing at once (it does not stay "writer" on a damaged home),
// the window that holds state.lock recovers it, and its writes after that go to the new
// log, not to the old one moved aside: a fresh read of the home has them.
func TestWriterDamagedUnderItStopsAndRecovers(t *testing.T) {
	home := t.TempDir()
	w := openStarted(t, home)
	waitRole(t, w, RoleWriter)
	ctx := context.Background()
	for _, n := range []string{"a", "b", "c"} {
		if _, err := w.Intents().AddWorkflow(ctx, oneStep(n, "fail", "true")); err != nil {
			t.Fatal(err)
		}
	}
	// The timed checkpoint writes workflows.json whole a second after the first frame: one
	// under way as the file is removed puts it back whole (its check ran before the
	// removal, its rename comes after), and the home is not damaged at all. Remove it once
	// the checkpoint is done, so that nothing of the writer's is in flight.
	gen := w.Snapshot().Generation
	waitUntil(t, "the checkpoint", func() bool {
		data, err := os.ReadFile(filepath.Join(home, store.FileName))
		d, derr := store.Decode(data)
		return err == nil && derr == nil && d.Generation >= gen
	})
	if err := os.Remove(filepath.Join(home, store.FileName)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for st := w.Status(); st.Role == RoleWriter || !strings.Contains(st.Problem, "damaged"); st = w.Status() {
		if time.Now().After(deadline) {
			t.Fatalf("the writer of a home damaged under it: role %s, problem %q", st.Role, st.Problem)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, not a synchronisation
	}
	var rec *store.Recovery
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if rec, err = w.Intents().Recover(); err == nil || time.Now().After(deadline) {
			break // the window takes state.lock back as a reader first
		}
	}
	if err != nil {
		t.Fatalf("recover from the window that holds state.lock: %v", err)
	}
	waitRole(t, w, RoleWriter)
	if _, err := w.Intents().AddWorkflow(ctx, oneStep("after", "fail", "true")); err != nil {
		t.Fatalf("a write after the recovery (%+v): %v", rec, err)
	}
	d, err := store.ReadHome(home)
	if err != nil {
		t.Fatalf("the recovered home does not read: %v", err)
	}
	for _, n := range []string{"a", "b", "c", "after"} {
		if d.Workflow(n) == nil {
			t.Errorf("%s is missing from the recovered home as read afresh (generation %d)", n, d.Generation)
		}
	}
}
