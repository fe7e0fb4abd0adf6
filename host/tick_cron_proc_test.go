package host

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
)

// runTickAt runs `baton tick --once` as a real process whose clock starts at at
// (BATON_TEST_NOW; see testClock).
func runTickAt(t *testing.T, home string, at time.Time) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BATON_TEST_CHILD=tick", "BATON_TEST_HOME="+home, "BATON_TEST_NOW="+at.Format(time.RFC3339Nano))
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, string(out)
}

// tickModel is the rule for a schedule driven by ticks (workflow/README.md), worked out by
// hand: an occurrence is on time if at most 5 s late, or if it came due after the previous
// tick and is late by at most the driver's period (the time between the two ticks before,
// or since the previous one after the first) plus 5 s; the others are missed and follow the
// catch-up policy.
type tickModel struct {
	s              *store.Schedule
	last, ticked   time.Time
	gap            time.Duration
	ran            []time.Time
	late, resolved int
}

func (m *tickModel) tick(at time.Time) []time.Time {
	var missed, fresh []time.Time
	for t := m.last; ; {
		due, err := workflow.Next(m.s, t)
		if err != nil || due.After(at) {
			break
		}
		lateBy := at.Sub(due)
		period := m.gap
		if period == 0 {
			period = at.Sub(m.ticked)
		}
		if lateBy <= 5*time.Second || (!m.ticked.IsZero() && due.After(m.ticked) && lateBy <= period+5*time.Second) {
			fresh = append(fresh, due)
		} else {
			missed = append(missed, due)
		}
		m.last, t = due, due
	}
	var run []time.Time
	switch m.s.CatchUp {
	case workflow.CatchUpLatest:
		if len(fresh) == 0 && len(missed) > 0 {
			run = missed[len(missed)-1:]
		}
	case workflow.CatchUpAll:
		run = missed // all within the default catch-up window of 24h
	}
	run = append(run, fresh...)
	if !m.ticked.IsZero() {
		m.gap = at.Sub(m.ticked)
	}
	m.ticked = at
	m.ran = append(m.ran, run...)
	return run
}

// TestTickDrivenLikeCron is bug 3 and the README's crontab line: `tick --once` runs at
// whole minutes (real processes, each with its clock set to its minute), schedules were
// created at 27 s past a minute (every 1m, every 90s, cron * * * * *; each catch-up
// policy; overlap allow), ticks go on for six minutes, stop for fifteen (a machine
// asleep) and go on again. Each schedule runs exactly the occurrences the documented rule
// gives (every 1m with catch_up none once a minute: before the fix, never), each tick
// reports as many runs, and no occurrence runs twice.
func TestTickDrivenLikeCron(t *testing.T) {
	t.Parallel()
	home, marks := t.TempDir(), t.TempDir()
	t0 := time.Now().UTC().Truncate(time.Hour).Add(48*time.Hour + 27*time.Second)
	a := startChild(t, home, withEnv("BATON_TEST_NOW="+t0.Format(time.RFC3339Nano)))
	a.initialRole()
	a.ok(addWF("job", 100, "fail", "sh", "-c", fmt.Sprintf(`echo "$BATON_SCHEDULE $BATON_DUE" >> %s/log`, marks)))
	for _, cadence := range []map[string]any{{"every": "1m"}, {"every": "90s"}, {"cron": "* * * * *", "tz": "UTC"}} {
		for _, policy := range []string{"none", "latest", "all"} {
			s := map[string]any{"workflow": "job", "catch_up": policy, "overlap": "allow"}
			for k, v := range cadence {
				s[k] = v
			}
			a.ok(map[string]any{"op": "add_schedule", "schedule": s})
		}
	}
	if err := a.close(); err != nil {
		t.Fatal(err)
	}
	d := readDisk(t, home)
	models := map[string]*tickModel{}
	for i := range d.Schedules {
		s := d.Schedules[i]
		models[s.ID] = &tickModel{s: &s, last: s.LastDue}
	}
	var ticks []time.Time
	for _, k := range []int{1, 2, 3, 4, 5, 6, 21, 22} {
		ticks = append(ticks, t0.Truncate(time.Minute).Add(time.Duration(k)*time.Minute))
	}
	for _, at := range ticks {
		code, out := runTickAt(t, home, at)
		// The tick judged as of the instant its clock read when it began (at, plus its
		// start-up), which it recorded: the model works from the same instant.
		asOf := readDisk(t, home).Schedules[0].Ticked
		if asOf.Before(at) || asOf.After(at.Add(time.Minute)) {
			t.Fatalf("tick at %s recorded ticked %s", at.Format("15:04:05"), asOf)
		}
		want := 0
		for _, m := range models {
			want += len(m.tick(asOf))
		}
		if code != 0 || !strings.Contains(out, fmt.Sprintf("baton tick: %d run(s) succeeded", want)) {
			t.Fatalf("tick at %s (as of %s): exit %d, %q; want %d run(s) succeeded", at.Format("15:04:05"), asOf.Format("15:04:05.000"), code, out, want)
		}
	}
	got := map[string][]string{}
	for _, l := range lines(filepath.Join(marks, "log")) {
		f := strings.Fields(l)
		if slices.Contains(got[f[0]], f[1]) {
			t.Fatalf("occurrence %s of %s ran twice", f[1], f[0])
		}
		got[f[0]] = append(got[f[0]], f[1])
	}
	for id, m := range models {
		var want []string
		for _, due := range m.ran {
			want = append(want, due.Format(time.RFC3339))
		}
		slices.Sort(want)
		slices.Sort(got[id])
		cad := "cron " + m.s.Cron
		if m.s.Cron == "" {
			cad = "every " + m.s.Every.D().String()
		}
		// workflow/README.md's example, by hand: an every-1m schedule made at :27 runs at each of
		// the ticks 2-6, then one (none, latest) or fifteen (all) at the tick after the
		// sleep, then one.
		if hand := map[string]int{"none": 7, "latest": 7, "all": 21}[m.s.CatchUp]; m.s.Every.D() == time.Minute && len(want) != hand {
			t.Errorf("%s (%s, catch_up %s): the model says %d runs, workflow/README.md %d", id, cad, m.s.CatchUp, len(want), hand)
		}
		if !slices.Equal(got[id], want) {
			t.Errorf("%s (%s, catch_up %s): ran %d %v\nwant %d %v", id, cad, m.s.CatchUp, len(got[id]), got[id], len(want), want)
		} else {
			t.Logf("%s (%s, catch_up %s): %d runs as documented", id, cad, m.s.CatchUp, len(want))
		}
	}
}
