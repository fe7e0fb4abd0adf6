package host

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"baton/store"
	"baton/workflow/proc"
)

func TestRoleStateMachine(t *testing.T) {
	legal := [][2]Role{{RoleReader, RolePromoting}, {RolePromoting, RoleWriter}, {RolePromoting, RoleReader},
		{RoleWriter, RoleReader}, {RoleReader, RoleClosed}, {RoleWriter, RoleClosed}, {RolePromoting, RoleClosed}}
	illegal := [][2]Role{{RoleReader, RoleWriter}, {RoleClosed, RoleReader}, {RoleClosed, RoleWriter}, {RoleWriter, RolePromoting}}
	for _, m := range legal {
		if !canMove(m[0], m[1]) {
			t.Errorf("%v -> %v should be legal", m[0], m[1])
		}
	}
	for _, m := range illegal {
		if canMove(m[0], m[1]) {
			t.Errorf("%v -> %v must be illegal (BecomeWriter is the only road to writer)", m[0], m[1])
		}
	}
}

func openStarted(t *testing.T, home string) *Core {
	t.Helper()
	w, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

func waitRole(t *testing.T, w *Core, r Role) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for w.Role() != r {
		if time.Now().After(deadline) {
			t.Fatalf("role %v, want %v", w.Role(), r)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestReaderRefusesWritesAndTakesOverOnClose(t *testing.T) {
	home := t.TempDir()
	a := openStarted(t, home)
	if a.Role() != RoleWriter {
		t.Fatalf("first window: %v", a.Role())
	}
	b := openStarted(t, home)
	if b.Role() != RoleReader {
		t.Fatalf("second window: %v", b.Role())
	}
	_, err := b.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}})
	var ro *ReadOnlyError
	if !errors.As(err, &ro) || ro.WriterPID != os.Getpid() || !strings.Contains(err.Error(), "is the writer") {
		t.Fatalf("reader write: %v", err)
	}
	if _, err := a.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "a", Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if _, err := a.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "late", Steps: []store.Step{{Argv: []string{"true"}}}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("closed window write: %v", err)
	}
	waitRole(t, b, RoleWriter)
	if _, err := b.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "b", Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
		t.Fatal(err)
	}
	if d := b.Snapshot(); d.Workflow("a") == nil || d.Workflow("b") == nil || d.Epoch != 2 {
		t.Fatalf("after takeover: %+v", d)
	}
	// a closed normally and said so (Writer cleared in its last save): b became the
	// writer without "taking over" from a window that did not die (issue 12, bug 11).
	if tk := b.LastTakeover(); len(tk.Steps) != 7 || tk.Steps[1].Name != "2.reread" || tk.OldOwner != nil {
		t.Fatalf("takeover after a clean close: %+v (old owner %+v)", tk, tk.OldOwner)
	}
}

func TestUnreadableFileBlocksTakeoverUntilFixed(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, store.FileName)
	os.WriteFile(path, []byte("{not json"), 0o600)
	w := openStarted(t, home)
	if w.Role() != RoleReader {
		t.Fatalf("role %v over an unreadable file, want reader", w.Role())
	}
	st := w.Status()
	if !strings.Contains(st.Problem, "not valid JSON") {
		t.Fatalf("problem %q", st.Problem)
	}
	_, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}})
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "unreadable") {
		t.Fatalf("write over unreadable file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "{not json" {
		t.Fatal("unreadable file was changed")
	}
	// The person fixes the file: the window (holding the lock) takes over by itself.
	store.WriteFileAtomic(path, []byte(`{"schema":1,"generation":4,"epoch":2}`), nil)
	waitRole(t, w, RoleWriter)
	if d := w.Snapshot(); d.Generation != 5 || d.Epoch != 3 {
		t.Fatalf("after fix: gen %d epoch %d", d.Generation, d.Epoch)
	}
}

func TestUnsafeHomeRefused(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	os.Mkdir(real, 0o700)
	link := filepath.Join(base, "link")
	os.Symlink(real, link)
	if _, err := Open(link, Options{}); !errors.Is(err, ErrUnsafeHome) || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("symlink home: %v", err)
	}
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	// A home others may write opens read-only, naming it (TestHomeRefusesUnsafeEntries
	// has the rest); the access of others is taken away at once.
	w, err := Open(open, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	if st := w.Status(); st.Role != RoleReader || !strings.Contains(st.Problem, "writable by group or others") || !errors.Is(w.unsafeHome(), ErrUnsafeHome) {
		t.Fatalf("world-writable home: %+v", st)
	}
	if fi, _ := os.Stat(open); fi.Mode().Perm() != 0o722 {
		t.Fatalf("world-writable home: mode %v, want the access of others but writing taken away", fi.Mode())
	}
	w.Close()
	fresh := filepath.Join(base, "new", "home")
	if _, err := PrepareHome(fresh); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(fresh); fi.Mode().Perm() != 0o700 {
		t.Fatalf("new home mode %v", fi.Mode().Perm())
	}
}

func TestLockFileReplacedStopsWriting(t *testing.T) {
	home := t.TempDir()
	w := openStarted(t, home)
	before := w.Self().Instance
	lock := filepath.Join(home, LockName)
	os.Remove(lock)
	os.WriteFile(lock, nil, 0o600)
	_, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}})
	if !errors.Is(err, ErrLockLost) {
		t.Fatalf("write with a replaced lock: %v", err)
	}
	if d, _ := store.New(home, store.Options{}).Reload(); d.Workflow("x") != nil {
		t.Fatal("write reached the disk with a replaced lock")
	}
	// The window stops writing, takes a new identity and waits on the new file; with
	// nobody else there it becomes the writer again, through a new takeover.
	deadline := time.Now().Add(5 * time.Second)
	for (w.Role() != RoleWriter || w.Self().Instance == before) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if w.Self().Instance == before || w.Role() != RoleWriter || w.Snapshot().Epoch != 2 {
		t.Fatalf("after losing the lock: role %v, epoch %d, same identity %v", w.Role(), w.Snapshot().Epoch, w.Self().Instance == before)
	}
}

// TestLockLostRunsAreReapedNotWedged: a writer whose state.lock was replaced stops writing
// and stops its runs; it retires its identity, so the next writer settles its runs (from
// their journals, or by reaping them with evidence) and the lane is free again, although
// the old window is still alive.
func TestLockLostRunsAreReapedNotWedged(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := openStarted(t, home)
	if _, err := a.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "slow", MaxConcurrent: 1, Steps: []store.Step{{Argv: []string{"sleep", "30"}}}}); err != nil {
		t.Fatal(err)
	}
	run, _, err := a.Intents().StartRun(context.Background(), "slow", "")
	if err != nil || run.Status != store.StatusRunning {
		t.Fatalf("start: %+v %v", run, err)
	}
	oldInstance := a.Self().Instance
	b := openStarted(t, home)
	lock := filepath.Join(home, LockName)
	os.Remove(lock)
	os.WriteFile(lock, nil, 0o600)
	// a refuses: by its lock check, or, if b already took over on the new file and a's
	// scheduler met b's higher epoch, because it was fenced to read-only.
	if _, err := a.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "x", Steps: []store.Step{{Argv: []string{"true"}}}}); !errors.Is(err, ErrLockLost) && !errors.Is(err, ErrReadOnly) && !errors.Is(err, store.ErrFenced) {
		t.Fatalf("write with a replaced lock: %v", err)
	}
	// a retires the identity that owns the run and waits on the new file like b: either
	// may win it. Whoever writes reaps the run (at its takeover, or with its standing
	// reaper if it took over while a still looked alive) and the lane is free again.
	var writer *Core
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if a.Self().Instance != oldInstance {
			if r := a.Snapshot().Run(run.ID); a.Role() == RoleWriter && r.Status != store.StatusRunning {
				writer = a
			}
		}
		if r := b.Snapshot().Run(run.ID); b.Role() == RoleWriter && r.Status != store.StatusRunning {
			writer = b
		}
		if writer != nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if writer == nil {
		t.Fatalf("no writer reaped the run: a %v (retired %v) %s, b %v %s", a.Role(), a.Self().Instance != oldInstance,
			a.Snapshot().Run(run.ID).Status, b.Role(), b.Snapshot().Run(run.ID).Status)
	}
	if a.Role() == RoleWriter && b.Role() == RoleWriter {
		t.Fatal("two writers")
	}
	// The demoted writer asked the run's supervisor to stop: the next writer records the
	// cancel from its journal, or, if the supervisor had not written its end yet, kills it
	// and fails the run naming the dead owner's evidence.
	r := writer.Snapshot().Run(run.ID)
	cancelled := r.Status == store.StatusCancelled && strings.Contains(r.Error, "stopped being the writer")
	failed := r.Status == store.StatusFailed && strings.Contains(r.Error, "instance lock")
	if !cancelled && !failed {
		t.Fatalf("run of the demoted writer: %s %q", r.Status, r.Error)
	}
	next, _, err := writer.Intents().StartRun(context.Background(), "slow", "")
	if err != nil || next.Status != store.StatusRunning {
		t.Fatalf("the lane is wedged: %+v %v", next, err)
	}
}

// TestFailedTakeoverLetsTheLockGo: a takeover that fails for any reason but an unreadable
// file (a full disk, an I/O error) must not keep state.lock, or the home has no writer.
func TestFailedTakeoverLetsTheLockGo(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	w, err := Open(home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	fl, ok, err := w.writerLock().TryLock()
	if !ok || err != nil {
		t.Fatal("cannot take the lock", err)
	}
	w.mu.Lock()
	tm := newTerm(w, w.self, fl)
	tm.phase, w.term = phasePromoting, tm
	w.mu.Unlock()
	w.failTakeover(tm, errors.New("save: no space left on device"))
	other := flock.New(filepath.Join(home, LockName))
	if ok, _ := other.TryLock(); !ok {
		t.Fatal("the failed takeover kept state.lock: the home has no writer")
	}
	other.Close()
	waitRole(t, w, RoleWriter) // it tries again by itself
}

// TestPublishNeverGoesBack: callers of one commit may publish after a later commit did;
// an older view is never published after a newer one.
func TestPublishNeverGoesBack(t *testing.T) {
	w, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	sub := w.Subscribe()
	newer := &store.Doc{Generation: 6, Epoch: 2, Runs: []store.Run{{ID: "r1", Status: store.StatusSucceeded}}}
	older := &store.Doc{Generation: 5, Epoch: 2, Runs: []store.Run{{ID: "r1", Status: store.StatusRunning}}}
	w.publish(newer)
	w.publish(older)
	w.publish(&store.Doc{Generation: 7, Epoch: 2, Runs: newer.Runs})
	var gens []uint64
	for len(gens) < 2 {
		e := <-sub.C
		if e.Kind == EventChanged {
			gens = append(gens, e.Generation)
		}
		if e.Kind == EventRun && e.Status == store.StatusRunning {
			t.Fatal("a run went back to running")
		}
	}
	if gens[0] != 6 || gens[1] != 7 {
		t.Fatalf("changed events %v, want [6 7]", gens)
	}
}

// The deletion rule for instances/: a temp name is removed only when the process its name
// names is gone (a free lock on it proves nothing: its window may be between creating and
// locking it), and a .lock only when its lock is free.
func TestCleanInstancesRemovesOnlyTheProvenAbandoned(t *testing.T) {
	home := t.TempDir()
	self, err := newIdentity()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(home, InstancesDir)
	os.MkdirAll(dir, 0o700)
	// A live process that is not this one, and a dead one (same pid, wrong start time).
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer live.Process.Kill()
	liveStart, err := proc.Start(live.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	liveOwner := store.Owner{PID: live.Process.Pid, Start: liveStart, Boot: self.Boot}
	deadOwner := store.Owner{PID: live.Process.Pid, Start: liveStart + 1, Boot: self.Boot}
	oldBoot := store.Owner{PID: live.Process.Pid, Start: liveStart, Boot: "00000000-0000"}
	files := map[string]bool{ // name -> must survive
		"." + procTag(liveOwner) + ".aaa.tmp": true,  // being born: its creator lives, unlocked
		"." + procTag(deadOwner) + ".bbb.tmp": false, // a recycled pid: that creator is gone
		"." + procTag(oldBoot) + ".ccc.tmp":   false, // an earlier boot
		".garbage.tmp":                        true,  // cannot tell who made it
		"free.lock":                           false, // lock free: its window is gone
		"held.lock":                           true,
	}
	for n := range files {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	held := flock.New(filepath.Join(dir, "held.lock"))
	if ok, err := held.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	defer held.Close()
	cleanInstances(home, self)
	for n, keep := range files {
		_, err := os.Stat(filepath.Join(dir, n))
		if (err == nil) != keep {
			t.Errorf("%s: exists=%v, want %v", n, err == nil, keep)
		}
	}
}

// A window opened while the writer cleans instances/ over and over keeps its instance
// file: the cleaner never removes the temp name of a live window that is starting.
func TestOpenDuringInstanceCleaning(t *testing.T) {
	home := t.TempDir()
	self, err := newIdentity()
	if err != nil {
		t.Fatal(err)
	}
	self.Instance = "cleaner"
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				cleanInstances(home, self)
			}
		}
	}()
	for i := 0; i < 200; i++ {
		w, err := Open(home, Options{})
		if err != nil {
			close(stop)
			t.Fatalf("open %d: %v", i, err)
		}
		if _, err := os.Stat(instancePath(home, w.Self().Instance)); err != nil {
			t.Errorf("open %d: own instance file: %v", i, err)
		}
		w.Close()
	}
	close(stop)
	<-done
}

// A save's temp file whose creator lives is left by the writer; once that creator dies
// the writer removes it (its housekeeping looks again), and the live file is untouched.
func TestWriterRemovesTempOnceCreatorDies(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	w := startChild(t, home)
	if w.initialRole() != "writer" {
		t.Fatal("not the writer")
	}
	w.ok(addWF("a", 1, "fail"))
	creator := exec.Command("sleep", "60")
	if err := creator.Start(); err != nil {
		t.Fatal(err)
	}
	defer creator.Process.Kill()
	start, err := proc.Start(creator.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	self, _ := newIdentity()
	tag := procTag(store.Owner{PID: creator.Process.Pid, Start: start, Boot: self.Boot})
	tmp := filepath.Join(home, ".baton-tmp-workflows.json-"+tag+"-1")
	if err := os.WriteFile(tmp, []byte("{half"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A file of a creator that is already gone (its pid with another start time), made
	// after the takeover: once the writer's housekeeping removed it, a pass has looked at
	// both files, and the live creator's file must still be there.
	gone := filepath.Join(home, ".baton-tmp-workflows.json-"+procTag(store.Owner{PID: creator.Process.Pid, Start: start + 1, Boot: self.Boot})+"-2")
	if err := os.WriteFile(gone, []byte("{half"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !waitGone(gone, 10*time.Second) {
		t.Fatalf("the temp file of a gone creator was never removed")
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("the temp file of a live creator was removed: %v", err)
	}
	creator.Process.Kill()
	creator.Wait()
	if !waitGone(tmp, 10*time.Second) {
		t.Fatalf("the temp file of a dead creator is still there")
	}
	if d := readDisk(t, home); d.Workflow("a") == nil {
		t.Fatal("live file lost its records")
	}
}

// waitGone waits until path does not exist (the state that proves the removal), polling
// the file; false when timeout passed first.
func waitGone(path string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}
