package host

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"baton/store"
)

// guardedStep returns argv for a step that detects two live runs of itself at once: it
// takes a mkdir lock in marks, records a double run if the lock is taken, sleeps secs,
// and appends its due time and watermark to marks/log.
func guardedStep(marks string, secs float64) []string {
	script := fmt.Sprintf(`if ! mkdir %[1]s/live 2>/dev/null; then echo double >> %[1]s/double; fi
echo "$BATON_DUE wm=$BATON_WATERMARK" >> %[1]s/log
sleep %[2]g
rmdir %[1]s/live 2>/dev/null; true`, marks, secs)
	return []string{"sh", "-c", script}
}

func auditKinds(t *testing.T, c *child) map[string]int {
	t.Helper()
	r := c.ok(map[string]any{"op": "audit"})
	out := map[string]int{}
	for _, e := range r["entries"].([]any) {
		out[e.(map[string]any)["kind"].(string)]++
	}
	return out
}

func lines(path string) []string {
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestSeedSlowScheduledRunIsNeverRunTwice is the seed report live: every 1 s with a 1 s
// budget, a step that takes 3.5 s. The run overruns, is never reclaimed, and the next
// occurrences are skipped; no two runs ever overlap.
func TestSeedSlowScheduledRunIsNeverRunTwice(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("slow", 5, "fail", guardedStep(marks, 3.5)...))
	a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{
		"workflow": "slow", "every": "1s", "max_runtime": "1s", "overlap": "skip"}})
	// Waits until the audit shows the overrun and two skipped occurrences (each second
	// after the first is skipped while the run lives) and the first run has ended (a double
	// start could come until then), however slow the machine is.
	var k map[string]int
	ended := false
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		k = auditKinds(t, a)
		for _, r := range a.snapshot().Runs {
			ended = ended || r.Status == "succeeded"
		}
		if k["overrun"] >= 1 && k["skipped"] >= 2 && ended || time.Now().After(deadline) {
			break
		}
	}
	if d := lines(filepath.Join(marks, "double")); len(d) > 0 {
		t.Fatalf("two runs of the schedule ran at once (%d times)", len(d))
	}
	if k["overrun"] < 1 || k["skipped"] < 2 || k["reclaim"] != 0 || !ended {
		t.Fatalf("audit: %v, want overrun >= 1, skipped >= 2, no reclaim; first run ended: %v", k, ended)
	}
	snap := a.snapshot()
	running := 0
	for _, r := range snap.Runs {
		if r.Status == "running" {
			running++
		}
	}
	if running > 1 {
		t.Fatalf("%d runs running at once", running)
	}
	d := readDisk(t, home)
	over := false
	for _, r := range d.Runs {
		over = over || r.Overrun
	}
	if !over {
		t.Fatal("no run recorded as overrun")
	}
}

// TestKillWriterMidOccurrence: the survivor reaps the run of the dead writer, frees the
// schedule's lock, and the next occurrence runs exactly once.
func TestKillWriterMidOccurrence(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("job", 5, "fail", guardedStep(marks, 30)...))
	a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "job", "every": "2s"}})
	b := startChild(t, home)
	b.initialRole()
	// Wait for the first occurrence to be running in a.
	_, ev := a.waitEvent(0, 5*time.Second, eventIs("run", "status", "running"))
	first := ev["run"].(string)
	runningWithGroup(t, a, first)
	os.Remove(filepath.Join(marks, "live")) // the dead run's guard; its step is killed by the reaper
	a.kill9()
	we := b.waitWriter(10 * time.Second)
	if !strings.Contains(fmt.Sprint(we["reaped"]), first) {
		t.Fatalf("survivor did not reap %s: %v", first, we)
	}
	os.Remove(filepath.Join(marks, "live"))
	// The next occurrence starts in the survivor, once.
	_, ev2 := b.waitEvent(0, 6*time.Second, func(e map[string]any) bool {
		return e["event"] == "run" && e["status"] == "running" && e["run"] != first
	})
	time.Sleep(500 * time.Millisecond)
	d := readDisk(t, home)
	seen := map[string]string{}
	for _, r := range d.Runs {
		key := r.Schedule + "@" + r.Due.String()
		if prev, dup := seen[key]; dup {
			t.Fatalf("occurrence %s has two runs: %s and %s", key, prev, r.ID)
		}
		seen[key] = r.ID
	}
	if r := d.Run(first); r.Status != store.StatusFailed {
		t.Fatalf("dead writer's occurrence: %s", r.Status)
	}
	if s := d.Schedules[0]; s.Lock == nil || s.Lock.Run != ev2["run"] {
		t.Fatalf("schedule lock: %+v, want held by %v", s.Lock, ev2["run"])
	}
	if k := auditKinds(t, b); k["reap"] != 1 || k["reclaim"] != 1 {
		t.Fatalf("audit: %v", k)
	}
}

func TestWatermarkOverProcesses(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	// Each run reads the watermark and reports the next one; the second run fails.
	script := fmt.Sprintf(`n=$(cat %[1]s/n 2>/dev/null || echo 0); n=$((n+1)); echo $n > %[1]s/n
echo "run $n got $BATON_WATERMARK" >> %[1]s/log
echo "w$n" > "$BATON_WATERMARK_OUT"
[ $n -ne 2 ]`, marks)
	a.ok(addWF("inc", 1, "fail", "sh", "-c", script))
	a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "inc", "every": "1s", "watermark": "w0"}})
	deadline := time.Now().Add(10 * time.Second)
	for len(lines(filepath.Join(marks, "log"))) < 4 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	got := lines(filepath.Join(marks, "log"))
	want := []string{"run 1 got w0", "run 2 got w1", "run 3 got w1", "run 4 got w3"}
	if len(got) < 4 || strings.Join(got[:4], "|") != strings.Join(want, "|") {
		t.Fatalf("watermarks seen: %q, want %q", got, want)
	}
}

func runTick(t *testing.T, home string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BATON_TEST_CHILD=tick", "BATON_TEST_HOME="+home)
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// seedSchedule makes a home with a workflow and a 1 s schedule, then closes its window.
func seedSchedule(t *testing.T, marks string, secs float64) string {
	home := t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("job", 5, "fail", guardedStep(marks, secs)...))
	a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "job", "every": "1s", "overlap": "skip"}})
	if err := a.close(); err != nil { // closed well before the first occurrence
		t.Fatal(err)
	}
	time.Sleep(7 * time.Second) // occurrences are now missed (late by more than 5 s)
	return home
}

func TestTickOnceAlone(t *testing.T) {
	t.Parallel()
	marks := t.TempDir()
	home := seedSchedule(t, marks, 0.2)
	code, out := runTick(t, home)
	if code != 0 || !strings.Contains(out, "1 run(s) succeeded") {
		t.Fatalf("tick: %d %q", code, out)
	}
	if n := len(lines(filepath.Join(marks, "log"))); n != 1 {
		t.Fatalf("catch_up latest ran %d occurrences, want 1", n)
	}
	// Again: the occurrence the first tick ran is never run again (a newer one may be due).
	code, out = runTick(t, home)
	if code != 0 {
		t.Fatalf("second tick: %d %q", code, out)
	}
	dues := lines(filepath.Join(marks, "log"))
	if len(dues) > 2 || (len(dues) == 2 && dues[0] == dues[1]) {
		t.Fatalf("occurrences run by two ticks: %q", dues)
	}
	d := readDisk(t, home)
	if d.Epoch < 3 || d.Writer != nil { // each tick took over (epoch) and closed normally (no writer named)
		t.Fatalf("tick did not go through the takeover and a clean close: epoch %d, writer %+v", d.Epoch, d.Writer)
	}
}

func TestTickOnceAgainstLiveWriter(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	code, out := runTick(t, home)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("window pid %d is the writer", a.pid)) {
		t.Fatalf("tick beside a writer: %d %q", code, out)
	}
}

func TestTwoTicksNeverRunAnOccurrenceTwice(t *testing.T) {
	t.Parallel()
	marks := t.TempDir()
	home := seedSchedule(t, marks, 0.5)
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i := range outs {
		wg.Add(1)
		go func(i int) { defer wg.Done(); _, outs[i] = runTick(t, home) }(i)
	}
	wg.Wait()
	if d := lines(filepath.Join(marks, "double")); len(d) > 0 {
		t.Fatalf("an occurrence ran twice at once: %v", outs)
	}
	dues := lines(filepath.Join(marks, "log"))
	seen := map[string]bool{}
	for _, d := range dues {
		if seen[d] {
			t.Fatalf("occurrence %s ran twice: %v", d, dues)
		}
		seen[d] = true
	}
	if len(dues) < 1 {
		t.Fatalf("no occurrence ran: %v", outs)
	}
}

func TestTickFailingRunExitsNonZero(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("bad", 1, "fail", "sh", "-c", "exit 7"))
	r := a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "bad", "every": "1s"}})
	a.ok(map[string]any{"op": "pause_schedule", "schedule": r["schedule"]})
	a.ok(map[string]any{"op": "resume_schedule", "schedule": r["schedule"]})
	a.close()
	time.Sleep(1100 * time.Millisecond)
	code, out := runTick(t, home)
	if code != 1 || !strings.Contains(out, "exited with code 7") {
		t.Fatalf("tick with a failing run: %d %q", code, out)
	}
}

func TestScheduleOpsValidation(t *testing.T) {
	home := t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("w", 1, "fail"))
	for req, want := range map[string]string{
		`{"workflow":"w","every":"10ms"}`:                    "at least 1s",
		`{"workflow":"w","cron":"bogus"}`:                    "cron",
		`{"workflow":"nope","every":"1m"}`:                   "no workflow",
		`{"workflow":"w","every":"1m","overlap":"sideways"}`: "overlap",
		`{"workflow":"w","every":"1m","surprise":1}`:         "unknown field",
	} {
		var s map[string]any
		json.Unmarshal([]byte(req), &s)
		r := a.do(map[string]any{"op": "add_schedule", "schedule": s})
		if r["ok"] != false || r["code"] != "invalid" || !strings.Contains(fmt.Sprint(r["error"]), want) {
			t.Errorf("%s: %v, want invalid naming %q", req, r, want)
		}
	}
	r := a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "w", "cron": "0 9 * * 1-5", "tz": "Europe/Paris"}})
	id := r["schedule"].(string)
	a.ok(map[string]any{"op": "update_schedule", "schedule": id, "set": map[string]any{"workflow": "w", "cron": "0 10 * * *", "tz": "UTC"}})
	snap := a.ok(map[string]any{"op": "snapshot"})
	s := snap["schedules"].([]any)[0].(map[string]any)
	if s["cron"] != "0 10 * * *" || s["next_due"] == nil {
		t.Fatalf("after update: %v", s)
	}
	if r := a.do(map[string]any{"op": "delete_schedule", "schedule": "s999"}); r["code"] != "not_found" {
		t.Fatalf("delete unknown: %v", r)
	}
	a.ok(map[string]any{"op": "delete_schedule", "schedule": id})
}
