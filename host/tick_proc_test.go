package host

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"baton/store"
	"baton/workflow"
	"baton/workflow/proc"
)

// tickProc is one `baton tick --once` child process.
type tickProc struct {
	cmd   *exec.Cmd
	out   bytes.Buffer
	done  chan struct{}
	start time.Time
}

func startTickProc(t *testing.T, home string) *tickProc {
	t.Helper()
	p := &tickProc{done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], "-test.run=^$")
	p.cmd.Env = append(os.Environ(), "BATON_TEST_CHILD=tick", "BATON_TEST_HOME="+home)
	p.cmd.Stdout = &p.out
	p.start = time.Now()
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.kill9() })
	return p
}

// wait waits up to bound for the tick to exit on its own; it reports whether it did, and
// kills it otherwise.
func (p *tickProc) wait(bound time.Duration) (code int, out string, took time.Duration, exited bool) {
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode(), p.out.String(), time.Since(p.start), true
	case <-time.After(bound):
		p.kill9()
		return -1, p.out.String(), time.Since(p.start), false
	}
}

func (p *tickProc) kill9() {
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
	}
}

// waitFile waits, on fsnotify events of its folder, until path exists.
func waitFile(t *testing.T, path string, timeout time.Duration) {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(timeout)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			t.Fatalf("watch %s: %v", path, err)
		case <-deadline:
			t.Fatalf("%s did not appear within %s", path, timeout)
		}
	}
}

// seedTickHome makes a home whose only window added a workflow and a schedule due every
// second, then closed: from then on nothing runs the schedule but a tick. It returns the
// home and the document as that window left it.
func seedTickHome(t *testing.T, lane int, onLost string, sched map[string]any, argv ...string) (string, *store.Doc) {
	t.Helper()
	home := t.TempDir()
	// A failing test may kill a tick while its step runs: leave no step behind (only
	// processes that carry this home's run markers are hit).
	t.Cleanup(func() {
		d, err := store.ReadHome(home)
		if err != nil {
			return
		}
		for _, r := range d.Runs {
			for _, pid := range workflow.RunProcesses(home, r.ID) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("job", lane, onLost, argv...))
	sched["workflow"], sched["every"] = "job", "1s"
	a.ok(map[string]any{"op": "add_schedule", "schedule": sched})
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	return home, readDisk(t, home)
}

// sleepUntil waits for the wall clock to reach at: occurrences come due with time, and
// there is no other event to wait on.
func sleepUntil(at time.Time) { time.Sleep(time.Until(at)) }

// keysIn counts the occurrences of an every-second schedule in (after, upTo].
func keysIn(after, upTo time.Time) int {
	if !upTo.After(after) {
		return 0
	}
	return int(upTo.Sub(after) / time.Second)
}

// TestTickOnceIsOnePass: with a schedule due every second whose step takes a second, a
// tick runs what was due when it started (by the catch-up policy) and what that makes
// wait, waits for those runs, records them and exits; what comes due meanwhile is left
// for the next tick. Before the fix, the tick went on running a new occurrence after each
// run and never exited.
func TestTickOnceIsOnePass(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		sched   map[string]any
		lane    int
		dueFor  time.Duration // how long after the last handled occurrence the tick starts
		expect  func(keys int) int
		waitFor string
	}{
		// Every occurrence due is on time: the first runs, the others are skipped (its run
		// is live). Exactly one run whatever the number due.
		{name: "latest-skip", sched: map[string]any{"catch_up": "latest", "overlap": "skip"}, lane: 1,
			dueFor: 1300 * time.Millisecond, expect: func(int) int { return 1 }},
		// Every occurrence due gets a run, two at a time.
		{name: "all-allow", sched: map[string]any{"catch_up": "all", "overlap": "allow"}, lane: 2,
			dueFor: 3300 * time.Millisecond, expect: func(keys int) int { return keys }},
		// The occurrences late by more than 5 s run one after the other (the second waits
		// in Pending and starts when the first ends, inside the tick); the on-time ones
		// find a live run and are skipped.
		{name: "all-skip-late", sched: map[string]any{"catch_up": "all", "overlap": "skip"}, lane: 1,
			dueFor: 7300 * time.Millisecond, expect: func(keys int) int { return max(keys-5, 1) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			marks := t.TempDir()
			step := fmt.Sprintf(`echo "$BATON_DUE $BATON_RUN_ID" >> %s/guard; sleep 1`, marks)
			home, before := seedTickHome(t, c.lane, "fail", c.sched, "sh", "-c", step)
			s0 := before.Schedules[0]
			old := map[string]bool{}
			for _, r := range before.Runs {
				old[r.ID] = true
			}
			sleepUntil(s0.LastDue.Add(c.dueFor))
			dueAtLaunch := keysIn(s0.LastDue, time.Now())
			p := startTickProc(t, home)
			// The bound follows from what can be due at the tick's start: the occurrences
			// due at launch and those coming due during the process's start-up (a second
			// each at most, counted generously), a second per run per lane slot, plus
			// slack for a loaded machine.
			most := c.expect(dueAtLaunch + 3)
			bound := time.Duration((most+c.lane-1)/c.lane)*time.Second + 10*time.Second
			code, out, took, exited := p.wait(bound)
			d := readDisk(t, home)
			var mine []store.Run
			for _, r := range d.Runs {
				if !old[r.ID] {
					mine = append(mine, r)
				}
			}
			if !exited {
				t.Fatalf("tick did not exit within %s (due at launch: %d); it had started %d runs; output %q",
					bound, dueAtLaunch, len(mine), out)
			}
			s := d.Schedules[0]
			keys := keysIn(s0.LastDue, s.LastDue) // occurrences the tick handled
			want := c.expect(keys)
			t.Logf("due at launch %d, handled by the tick %d, runs %d (want %d), exited in %s: %q",
				dueAtLaunch, keys, len(mine), want, took.Round(time.Millisecond), strings.TrimSpace(out))
			if code != 0 || !strings.Contains(out, fmt.Sprintf("baton tick: %d run(s) succeeded", want)) {
				t.Fatalf("tick: exit %d, output %q; want 0 and %d run(s) succeeded", code, out, want)
			}
			if keys < dueAtLaunch {
				t.Fatalf("the tick handled %d occurrences, but %d were due when it was launched", keys, dueAtLaunch)
			}
			if len(mine) != want {
				t.Fatalf("the tick made %d runs for %d occurrences due at its start, want %d", len(mine), keys, want)
			}
			// One pass: nothing that came due after the tick's first run started was
			// handled, and every run is for an occurrence due at the start.
			first := mine[0].Started
			for _, r := range mine {
				if r.Started.Before(first) {
					first = r.Started
				}
				if r.Status != store.StatusSucceeded || r.Due.After(s.LastDue) || !r.Due.After(s0.LastDue) {
					t.Fatalf("run %s: %s for %s; the tick handled (%s, %s]", r.ID, r.Status, r.Due, s0.LastDue, s.LastDue)
				}
			}
			if s.LastDue.After(first) {
				t.Fatalf("the tick handled an occurrence due at %s, after its first run started at %s", s.LastDue, first)
			}
			// Each run started its step exactly once, each for its own occurrence.
			seen := map[string]bool{}
			guard := lines(filepath.Join(marks, "guard"))
			for _, l := range guard {
				due := strings.Fields(l)[0]
				if seen[due] {
					t.Fatalf("occurrence %s started twice: %q", due, guard)
				}
				seen[due] = true
			}
			if len(guard) != want {
				t.Fatalf("%d step starts, want %d: %q", len(guard), want, guard)
			}
		})
	}
}

// stepPIDs reads the pids the step wrote to its marker (the shell and its sleep) with
// their start times, as seen now.
func stepPIDs(t *testing.T, path string) map[int]uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]uint64{}
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("marker %q: %v", b, err)
		}
		st, err := proc.Start(pid)
		if err != nil {
			t.Fatalf("step process %d is already gone: %v", pid, err)
		}
		out[pid] = st
	}
	// A failing test must not leave the step behind (only the very processes are hit).
	t.Cleanup(func() {
		for _, pid := range anyAlive(out) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	if len(out) != 2 {
		t.Fatalf("marker %q: want two pids", b)
	}
	return out
}

func anyAlive(pids map[int]uint64) []int {
	var out []int
	for pid, st := range pids {
		if proc.Alive(pid, st) {
			out = append(out, pid)
		}
	}
	return out
}

// auditOf reads the home's audit log.
func auditOf(t *testing.T, home string) []store.Entry {
	t.Helper()
	es, err := store.NewAudit(home).Read(0)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

func countAudit(es []store.Entry, kind, run string) int {
	n := 0
	for _, e := range es {
		if e.Kind == kind && fmt.Sprint(e.Data["run"]) == run {
			n++
		}
	}
	return n
}

// TestTickKilledMidStepIsReapedOnce: a tick killed with -9 while its step runs leaves the
// step running (its own process group). The next tick, or the next window, reaps it: the
// step's processes are dead once it took over, the run is failed exactly once (no later
// takeover reaps it again), and that occurrence never runs a second time. The step keeps
// a guard file through the kill: one line per start, with its occurrence key.
func TestTickKilledMidStepIsReapedOnce(t *testing.T) {
	t.Parallel()
	for _, next := range []string{"tick", "window"} {
		t.Run("next-"+next, func(t *testing.T) {
			t.Parallel()
			marks := t.TempDir()
			// The first start holds on (a shell and its sleep); the later ones end at once.
			step := fmt.Sprintf(`echo "$BATON_DUE $BATON_RUN_ID" >> %[1]s/guard
if mkdir %[1]s/first 2>/dev/null; then
  sleep 300 &
  echo "$$ $!" > %[1]s/started.tmp && mv %[1]s/started.tmp %[1]s/started
  wait
fi`, marks)
			home, before := seedTickHome(t, 1, "fail", map[string]any{"catch_up": "latest", "overlap": "skip"}, "sh", "-c", step)
			sleepUntil(before.Schedules[0].LastDue.Add(1300 * time.Millisecond))
			p := startTickProc(t, home)
			waitFile(t, filepath.Join(marks, "started"), 30*time.Second)
			pids := stepPIDs(t, filepath.Join(marks, "started"))
			p.kill9()
			if alive := anyAlive(pids); len(alive) != 2 {
				t.Fatalf("the step did not outlive the killed tick (alive: %v): the test proves nothing", alive)
			}
			d := readDisk(t, home)
			if len(d.Runs) != 1 || d.Runs[0].Status != store.StatusRunning {
				t.Fatalf("after the kill: %+v, want one running run", d.Runs)
			}
			killed := d.Runs[0]

			switch next {
			case "tick":
				sleepUntil(killed.Due.Add(1300 * time.Millisecond)) // a later occurrence is due
				q := startTickProc(t, home)
				code, out, _, exited := q.wait(30 * time.Second)
				if !exited || code != 0 {
					t.Fatalf("next tick: exited %v, code %d, %q", exited, code, out)
				}
				if alive := anyAlive(pids); len(alive) > 0 {
					t.Fatalf("step processes %v of the killed tick's run survive the next tick", alive)
				}
			case "window":
				b := startChild(t, home)
				we := b.waitWriter(20 * time.Second)
				// Checked at once: the takeover kills before it reports writer.
				if alive := anyAlive(pids); len(alive) > 0 {
					t.Fatalf("step processes %v survive the takeover that reaped their run", alive)
				}
				if !strings.Contains(fmt.Sprint(we["reaped"]), killed.ID) {
					t.Fatalf("the window did not reap %s: %v", killed.ID, we)
				}
				// Later occurrences run in the window; wait for one to end.
				b.waitEvent(0, 20*time.Second, func(e map[string]any) bool {
					return e["event"] == "run" && e["status"] == "succeeded" && e["run"] != killed.ID
				})
				if err := b.close(); err != nil {
					t.Fatal(err)
				}
			}
			// A further tick takes over again: nothing is left to reap.
			q := startTickProc(t, home)
			if code, out, _, exited := q.wait(30 * time.Second); !exited || code != 0 {
				t.Fatalf("last tick: exited %v, code %d, %q", exited, code, out)
			}

			d = readDisk(t, home)
			// One run per occurrence key, and one step start per key.
			runs := map[string]string{}
			for _, r := range d.Runs {
				k := r.Due.Format(time.RFC3339)
				if prev, dup := runs[k]; dup {
					t.Fatalf("occurrence %s has two runs: %s and %s", k, prev, r.ID)
				}
				runs[k] = r.ID
			}
			starts := map[string]int{}
			guard := lines(filepath.Join(marks, "guard"))
			for _, l := range guard {
				starts[strings.Fields(l)[0]]++
			}
			for k, n := range starts {
				if n != 1 {
					t.Fatalf("occurrence %s started %d times: %q", k, n, guard)
				}
			}
			if k := killed.Due.Format(time.RFC3339); starts[k] != 1 {
				t.Fatalf("the killed occurrence %s started %d times: %q", k, starts[k], guard)
			}
			if len(guard) < 2 {
				t.Fatalf("no occurrence ran after the reap: %q", guard)
			}
			r := d.Run(killed.ID)
			wantErr := fmt.Sprintf("owner window pid %d died", killed.OwnerPID)
			if r == nil || r.Status != store.StatusFailed || !strings.Contains(r.Error, wantErr) {
				t.Fatalf("killed tick's run: %+v, want failed naming %q", r, wantErr)
			}
			es := auditOf(t, home)
			if n, m := countAudit(es, "reap", killed.ID), countAudit(es, "reclaim", killed.ID); n != 1 || m != 1 {
				t.Fatalf("run %s reaped %d times and its schedule lock reclaimed %d times, want once each", killed.ID, n, m)
			}
		})
	}
}

// TestTickOnceCancelsOnOverrun: the tick waits on its window's events, and on a timer
// only for a max_runtime deadline: a run over its budget with on_overrun cancel is
// cancelled at the deadline and the tick exits, long before the step would have ended.
func TestTickOnceCancelsOnOverrun(t *testing.T) {
	t.Parallel()
	home, before := seedTickHome(t, 1, "fail", map[string]any{"max_runtime": "1s", "on_overrun": "cancel"},
		"sh", "-c", "sleep 60")
	sleepUntil(before.Schedules[0].LastDue.Add(1300 * time.Millisecond))
	p := startTickProc(t, home)
	code, out, took, exited := p.wait(20 * time.Second)
	if !exited {
		t.Fatalf("tick still waiting after %s for a run whose max_runtime is 1s: %q", took, out)
	}
	t.Logf("exited in %s: %q", took.Round(time.Millisecond), strings.TrimSpace(out))
	if code != 1 || !strings.Contains(out, "1 of 1 run(s) did not succeed") || !strings.Contains(out, "cancelled") {
		t.Fatalf("tick: exit %d, %q; want 1 naming the cancelled run", code, out)
	}
	d := readDisk(t, home)
	if len(d.Runs) != 1 || d.Runs[0].Status != store.StatusCancelled || !d.Runs[0].Overrun {
		t.Fatalf("runs %+v, want one cancelled overrun", d.Runs)
	}
	if n := countAudit(auditOf(t, home), "overrun", d.Runs[0].ID); n != 1 {
		t.Fatalf("%d overrun entries, want 1", n)
	}
}
