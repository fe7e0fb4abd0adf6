package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/store"
	"baton/workflow/proc"
)

// readDisk reads the document of home (workflows.json and the frames of workflows.wal that
// follow it); the test fails if workflows.json is not a valid document by itself.
func readDisk(t testing.TB, home string) *store.Doc {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Decode(data); err != nil {
		t.Fatalf("workflows.json on disk is not a valid document: %v", err)
	}
	d, err := store.ReadHome(home)
	if err != nil {
		t.Fatalf("the home's document (workflows.json and workflows.wal): %v", err)
	}
	return d
}

func diskNames(d *store.Doc) []string {
	var out []string
	for _, w := range d.Workflows {
		out = append(out, w.Name)
	}
	return out
}

// f1 runs the seed's stale-takeover scenario and returns the workflow names on disk after
// the takeover's first write, and after a restart.
func f1(t *testing.T) (disk, restart []string) {
	home := t.TempDir()
	a := startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("first window is not the writer")
	}
	a.ok(addWF("before", 1, "fail"))
	b := startChild(t, home)
	if b.initialRole() != "reader" {
		t.Fatal("second window is not a reader")
	}
	if got := b.snapshot().names(); !contains(got, "before") {
		t.Fatalf("reader did not load: %v", got)
	}
	a.ok(addWF("after", 1, "fail")) // the writer records more
	a.kill9()
	b.waitWriter(10 * time.Second)
	b.ok(addWF("by-survivor", 1, "fail")) // the survivor writes
	disk = diskNames(readDisk(t, home))
	if err := b.close(); err != nil {
		t.Fatalf("survivor did not exit cleanly: %v", err)
	}
	c := startChild(t, home)
	if c.initialRole() != "writer" {
		t.Fatalf("restarted window is not the writer: %v", c.eventsCopy())
	}
	restart = c.snapshot().names()
	return disk, restart
}

func TestF1TakeoverKeepsDeadWritersRecords(t *testing.T) {
	t.Parallel()
	disk, restart := f1(t)
	for _, want := range []string{"before", "after", "by-survivor"} {
		if !contains(disk, want) {
			t.Errorf("disk after takeover lacks %q: %v", want, disk)
		}
		if !contains(restart, want) {
			t.Errorf("restart lacks %q: %v", want, restart)
		}
	}
}

// The reverse controls: TestF1FrozenReaderReverseControl (BecomeWriter's re-read alone
// removed) and, in package store, TestRefreshBeforeWriteCanBeDisabledOnlyUnsafely
// (refresh-before-write removed).

// f1Frozen is the seed's stale takeover with only BecomeWriter's re-read in question:
// the reader is frozen (SIGSTOP) while the writer records a workflow and starts a run, so
// its copy is old; the writer is killed -9 while the reader is still frozen, then the
// reader is thawed and takes over. Its follow reloads and refresh-before-write stay on, so
// what its takeover decides from is all that differs. With hold, the reader's watch reads
// no change from the moment it is frozen until it is the writer, so its copy is stale at
// the takeover every time (else its thawed watch may reload before its lock wake). It
// returns the takeover's writer event, the id of the dead writer's running run, and the
// epoch the dead writer wrote.
func f1Frozen(t *testing.T, home string, skipReread, hold bool) (ev map[string]any, run string, deadEpoch uint64, a, b *child) {
	t.Helper()
	marks := t.TempDir()
	a = startChild(t, home)
	if a.initialRole() != "writer" {
		t.Fatal("first window is not the writer")
	}
	a.ok(addWF("before", 1, "fail"))
	var opts []childOpt
	if skipReread {
		opts = append(opts, withEnv("BATON_TEST_SKIP_TAKEOVER_REREAD=1"))
	}
	holdFile := filepath.Join(marks, "hold-reloads")
	opts = append(opts, withEnv("BATON_TEST_HOLD_RELOADS="+holdFile))
	b = startChild(t, home, opts...)
	if b.initialRole() != "reader" {
		t.Fatal("second window is not a reader")
	}
	if got := b.snapshot().names(); !contains(got, "before") {
		t.Fatalf("reader did not load: %v", got)
	}
	if hold {
		if err := os.WriteFile(holdFile, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(holdFile)
	}
	if err := b.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	a.ok(addWF("after", 1, "fail", sleeper(marks, 60)...))
	run = a.ok(map[string]any{"op": "start_run", "workflow": "after"})["run"].(string)
	runningWithGroup(t, a, run)
	deadEpoch = readDisk(t, home).Epoch
	a.kill9()
	if err := b.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	ev = b.waitWriter(10 * time.Second)
	return ev, run, deadEpoch, a, b
}

// stale reports what a takeover got wrong for the scenario of f1Frozen: the dead writer's
// running run not reaped by the takeover, or an epoch that does not rise above the dead
// writer's. Empty means the takeover decided from the newest file.
func f1FrozenWrong(t *testing.T, ev map[string]any, run string, deadEpoch uint64) []string {
	var wrong []string
	reaped, _ := ev["reaped"].([]any)
	if len(reaped) != 1 || reaped[0] != run {
		wrong = append(wrong, fmt.Sprintf("takeover reaped %v, want exactly [%s] (the dead writer's running run)", reaped, run))
	}
	if e := uint64(toF(ev["epoch"])); e != deadEpoch+1 {
		wrong = append(wrong, fmt.Sprintf("takeover epoch %d, want %d (one above the dead writer's)", e, deadEpoch+1))
	}
	return wrong
}

// TestF1FrozenReaderTakeover: a reader frozen while the writer records, thawed as the
// writer dies, takes over from the newest file: the dead writer's running run is reaped
// by the takeover itself, the epoch rises above the dead writer's, and every record stays.
func TestF1FrozenReaderTakeover(t *testing.T) {
	t.Parallel()
	for i := 0; i < 3; i++ {
		home := t.TempDir()
		// The first attempt holds the reader's watch: the re-read alone must make it right.
		ev, run, deadEpoch, a, b := f1Frozen(t, home, false, i == 0)
		for _, w := range f1FrozenWrong(t, ev, run, deadEpoch) {
			t.Errorf("attempt %d: %s", i, w)
		}
		b.ok(addWF("by-survivor", 1, "fail"))
		d := readDisk(t, home)
		for _, want := range []string{"before", "after", "by-survivor"} {
			if !contains(diskNames(d), want) {
				t.Errorf("attempt %d: disk lacks %q: %v", i, want, diskNames(d))
			}
		}
		if r := d.Run(run); r == nil || r.Status != store.StatusFailed || !strings.Contains(r.Error, strconv.Itoa(a.pid)) {
			t.Errorf("attempt %d: the dead writer's run on disk: %+v", i, r)
		}
		b.kill9()
	}
}

// TestF1FrozenReaderReverseControl removes only BecomeWriter's re-read (refresh-before-
// write stays on) from a reader whose watch is held while it is frozen, as in the first
// attempt of TestF1FrozenReaderTakeover: the takeover then decides from the frozen copy
// and goes wrong (a run not reaped by the takeover, an epoch not above the dead writer's).
// So that test would notice the re-read gone.
func TestF1FrozenReaderReverseControl(t *testing.T) {
	t.Parallel()
	ev, run, deadEpoch, _, b := f1Frozen(t, t.TempDir(), true, true)
	wrong := f1FrozenWrong(t, ev, run, deadEpoch)
	b.kill9()
	if len(wrong) == 0 {
		t.Fatal("the takeover without its re-read was right: the F1 frozen test would not notice the re-read gone")
	}
	t.Logf("without the re-read: %v", wrong)
}

// sleeper returns argv for a step that forks a grandchild, writes both pids to dir, and
// sleeps; marks counts its starts in dir/starts.
func sleeper(dir string, secs int) []string {
	script := fmt.Sprintf(`echo start >> %[1]s/starts; sleep %[2]d & echo $! > %[1]s/grandchild; echo $$ > %[1]s/child; sleep %[2]d; wait`, dir, secs)
	return []string{"sh", "-c", script}
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		b, err := os.ReadFile(path)
		if err == nil {
			if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return p
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

func pidAlive(pid int) bool { return proc.Alive(pid, 0) }

// runningWithGroup waits until run id is running with its process group recorded.
func runningWithGroup(t *testing.T, c *child, id string) (pgid int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		for _, r := range c.snapshot().Runs {
			if r.ID == id && r.Status == "running" && r.PGID > 0 {
				return r.PGID
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("run %s never ran with a recorded group", id)
	return 0
}

func TestF2TakeoverReapsDeadRunAndFreesLane(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("slow", 1, "fail", sleeper(marks, 300)...))
	r1 := a.ok(map[string]any{"op": "start_run", "workflow": "slow", "task": "of-dead-window"})["run"].(string)
	pgid := runningWithGroup(t, a, r1)
	grand := readPID(t, filepath.Join(marks, "grandchild"))
	r2 := a.ok(map[string]any{"op": "start_run", "workflow": "slow", "task": "queued-behind"})
	if r2["status"] != "queued" {
		t.Fatalf("second run in a lane of 1 should queue: %v", r2)
	}
	b := startChild(t, home)
	if b.initialRole() != "reader" {
		t.Fatal("b is not a reader")
	}
	deadPID := a.pid
	a.kill9()
	ev := b.waitWriter(10 * time.Second)
	if reaped := fmt.Sprint(ev["reaped"]); !strings.Contains(reaped, r1) {
		t.Fatalf("writer event does not list the reaped run %s: %v", r1, ev)
	}
	// The reaped run failed with an error that names the dead owner.
	snap := b.snapshot()
	var got1 string
	for _, r := range snap.Runs {
		if r.ID == r1 {
			got1 = r.Status + ": " + r.Error
		}
	}
	if !strings.HasPrefix(got1, "failed: ") || !strings.Contains(got1, fmt.Sprintf("pid %d", deadPID)) {
		t.Fatalf("reaped run: %q, want failed naming pid %d", got1, deadPID)
	}
	// No process of its group survives, the grandchild included.
	if proc.GroupAlive(pgid) {
		t.Errorf("process group %d of the dead run survives", pgid)
	}
	if pidAlive(grand) {
		t.Errorf("grandchild %d of the dead run survives", grand)
	}
	// The queued run starts at once in the freed lane, owned by the survivor.
	b.waitEvent(0, 5*time.Second, eventIs("run", "run", r2["run"].(string), "status", "running"))
	for _, r := range b.snapshot().Runs {
		if r.ID == r2["run"] && r.OwnerPID != b.pid {
			t.Errorf("queued run owned by %d, want survivor %d", r.OwnerPID, b.pid)
		}
	}
	// The audit log names the takeover and the reap with its evidence.
	au := b.ok(map[string]any{"op": "audit"})
	txt, _ := json.Marshal(au["entries"])
	if !strings.Contains(string(txt), `"kind":"reap"`) || !strings.Contains(string(txt), "instance lock") {
		t.Errorf("audit lacks the reap with evidence: %s", txt)
	}
}

func TestF2RequeueRunsAgainExactlyOnce(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	// The first attempt waits until it is killed (however slow the machine is at starting
	// the survivor); the second, the re-queued one, finds the mark and ends at once.
	step := fmt.Sprintf(`echo start >> %[1]s/starts; if mkdir %[1]s/first; then exec sleep 300; fi`, marks)
	a.ok(addWF("again", 1, "requeue", "sh", "-c", step))
	r1 := a.ok(map[string]any{"op": "start_run", "workflow": "again"})["run"].(string)
	runningWithGroup(t, a, r1)
	b := startChild(t, home)
	b.initialRole()
	a.kill9()
	b.waitWriter(10 * time.Second)
	b.waitEvent(0, 10*time.Second, eventIs("run", "run", r1, "status", "succeeded"))
	starts, _ := os.ReadFile(filepath.Join(marks, "starts"))
	if n := strings.Count(string(starts), "start"); n != 2 {
		t.Fatalf("step started %d times, want 2 (once by the dead writer, once by the survivor)", n)
	}
	running := 0
	from, _ := b.waitEvent(0, time.Second, eventIs("role", "role", "writer"))
	for _, e := range b.eventsCopy()[from:] {
		if e["event"] == "run" && e["run"] == r1 && e["status"] == "running" {
			running++
		}
	}
	if running != 1 {
		t.Fatalf("survivor started the re-queued run %d times, want 1", running)
	}
	for _, r := range b.snapshot().Runs {
		if r.ID == r1 && (r.Attempt != 2 || r.OwnerPID != b.pid) {
			t.Fatalf("re-queued run: attempt %d owner %d, want attempt 2 owner %d", r.Attempt, r.OwnerPID, b.pid)
		}
	}
}

// TestLockNotInheritedBySteps: the dead writer's orphaned step is alive, and the survivor
// still takes over, so the step did not inherit state.lock.
func TestLockNotInheritedBySteps(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("orphan", 1, "fail", sleeper(marks, 300)...))
	r1 := a.ok(map[string]any{"op": "start_run", "workflow": "orphan"})["run"].(string)
	runningWithGroup(t, a, r1)
	step := readPID(t, filepath.Join(marks, "child"))
	// No descriptor of the step refers to state.lock.
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", step))
	for _, fd := range fds {
		target, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", step, fd.Name()))
		if strings.HasSuffix(target, LockName) || strings.Contains(target, InstancesDir) {
			t.Fatalf("step %d holds %s open (fd %s)", step, target, fd.Name())
		}
	}
	a.kill9()
	if !pidAlive(step) {
		t.Fatal("the orphaned step died with its window; the test needs it alive")
	}
	// The orphan is alive and nobody has reaped it yet: a new window must still get the
	// lock at once, which is only possible if the orphan does not hold it.
	b := startChild(t, home)
	if b.initialRole() != "writer" {
		t.Fatalf("new window did not become the writer while the orphan %d lives: %v", step, b.eventsCopy())
	}
	if pidAlive(step) {
		t.Fatalf("the survivor did not kill the orphaned step %d when reaping", step)
	}
}

func TestSimultaneousStartExactlyOneWriter(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	const n = 5
	var cs []*child
	for i := 0; i < n; i++ {
		cs = append(cs, startChild(t, home))
	}
	var writer *child
	for _, c := range cs {
		if c.initialRole() == "writer" {
			if writer != nil {
				t.Fatalf("two writers: pids %d and %d", writer.pid, c.pid)
			}
			writer = c
		}
	}
	if writer == nil {
		t.Fatal("no writer among windows started at once")
	}
	for _, c := range cs {
		if c == writer {
			continue
		}
		st := c.ok(map[string]any{"op": "status"})
		if st["role"] != "reader" {
			t.Fatalf("window %d: role %v", c.pid, st["role"])
		}
		r := c.do(addWF("from-reader", 1, "fail"))
		if r["ok"] != false || r["code"] != "read_only" || !strings.Contains(fmt.Sprint(r["error"]), fmt.Sprintf("pid %d", writer.pid)) {
			t.Fatalf("reader write: %v, want read_only naming pid %d", r, writer.pid)
		}
	}
	if names := diskNames(readDisk(t, home)); contains(names, "from-reader") {
		t.Fatal("a reader's write reached the disk")
	}
}

func TestChainOfThree(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	b, c := startChild(t, home), startChild(t, home)
	b.initialRole()
	c.initialRole()
	a.ok(addWF("one", 1, "fail"))
	a.kill9()
	// Either survivor may win the lock.
	var second, third *child
	deadline := time.Now().Add(10 * time.Second)
	for second == nil && time.Now().Before(deadline) {
		for _, x := range []*child{b, c} {
			if x.ok(map[string]any{"op": "status"})["role"] == "writer" {
				second = x
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if second == nil {
		t.Fatal("nobody took over after the first writer died")
	}
	third = b
	if second == b {
		third = c
	}
	second.ok(addWF("two", 1, "fail"))
	second.kill9()
	third.waitWriter(10 * time.Second)
	third.ok(addWF("three", 1, "fail"))
	names := third.snapshot().names()
	for _, want := range []string{"one", "two", "three"} {
		if !contains(names, want) {
			t.Fatalf("last window lacks %q: %v", want, names)
		}
	}
	if ep := readDisk(t, home).Epoch; ep != 3 {
		t.Fatalf("epoch %d after three writers, want 3", ep)
	}
}

// TestGracefulCloseRecordsRunsAndHandsOver: end of stdin and SIGTERM cancel the running
// runs and record why; the survivor takes over and reaps nothing.
func TestGracefulCloseRecordsRunsAndHandsOver(t *testing.T) {
	t.Parallel()
	closers := map[string]func(*child) error{
		"end of stdin": (*child).close,
		"SIGTERM": func(c *child) error {
			if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				return err
			}
			done := make(chan error, 1)
			go func() { done <- c.cmd.Wait() }()
			select {
			case err := <-done:
				return err
			case <-time.After(20 * time.Second):
				return fmt.Errorf("no exit within 20s of SIGTERM")
			}
		},
	}
	for how, closeWindow := range closers {
		t.Run(how, func(t *testing.T) {
			home, marks := t.TempDir(), t.TempDir()
			a := startChild(t, home)
			a.initialRole()
			a.ok(addWF("long", 1, "fail", sleeper(marks, 300)...))
			r1 := a.ok(map[string]any{"op": "start_run", "workflow": "long"})["run"].(string)
			runningWithGroup(t, a, r1)
			grand := readPID(t, filepath.Join(marks, "grandchild"))
			b := startChild(t, home)
			b.initialRole()
			if err := closeWindow(a); err != nil {
				t.Fatal(err)
			}
			ev := b.waitWriter(10 * time.Second)
			if rs := ev["reaped"].([]any); len(rs) != 0 {
				t.Fatalf("survivor reaped %v after %s", rs, how)
			}
			r := readDisk(t, home).Run(r1)
			if r.Status != store.StatusCancelled || !strings.Contains(r.Error, "window closed") {
				t.Fatalf("run after %s: %s %q", how, r.Status, r.Error)
			}
			if pidAlive(grand) {
				t.Fatalf("grandchild %d survived %s", grand, how)
			}
			if kinds := auditKinds(t, b); kinds["shutdown"] != 1 || kinds["reap"] != 0 {
				t.Fatalf("audit: %v", kinds)
			}
		})
	}
}

func TestHistoryOpPagesLiveRuns(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("quick", 3, "fail"))
	var last string
	for i := 0; i < 5; i++ {
		last = a.ok(map[string]any{"op": "start_run", "workflow": "quick"})["run"].(string)
	}
	a.waitEvent(0, 5*time.Second, eventIs("run", "run", last, "status", "succeeded"))
	p1 := a.ok(map[string]any{"op": "history", "workflow": "quick", "limit": 3})
	runs := p1["runs"].([]any)
	if len(runs) != 3 || runs[0].(map[string]any)["id"] != last || p1["next"] == nil {
		t.Fatalf("page 1: %v", p1)
	}
	p2 := a.ok(map[string]any{"op": "history", "workflow": "quick", "limit": 3, "before": p1["next"]})
	if n := len(p2["runs"].([]any)); n != 2 {
		t.Fatalf("page 2 has %d runs, want 2: %v", n, p2)
	}
	if r := a.ok(map[string]any{"op": "history", "status": "failed"}); len(r["runs"].([]any)) != 0 {
		t.Fatalf("status filter: %v", r)
	}
}
