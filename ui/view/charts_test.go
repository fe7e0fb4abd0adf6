package view

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"baton/store"
)

func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-4 }

// run is a run of workflow wf that started at start and ran for d (0: still running).
func run(wf, status string, start time.Time, d time.Duration) store.Run {
	r := store.Run{Workflow: wf, Status: status, Created: start, Started: start}
	if d > 0 {
		r.Ended = start.Add(d)
	}
	return r
}

func TestDurationChart(t *testing.T) {
	now := at(12, 0, 0)
	ok, bad := store.StatusSucceeded, store.StatusFailed
	doc := &store.Doc{Runs: []store.Run{
		run("backup", ok, at(10, 0, 0), 4*time.Minute),
		run("other", bad, at(10, 30, 0), time.Hour), // another workflow: not charted
		run("backup", bad, at(11, 0, 0), time.Minute),
		{Workflow: "backup", Status: store.StatusQueued, Created: at(11, 30, 0)}, // never started: no bar
		run("backup", store.StatusRunning, at(11, 59, 58), 0),                    // running: 2 s so far
	}}
	var c DurationChart
	c.Set(doc, "backup", now)
	want := []Bar{{1, ok}, {0.25, bad}, {0.02, store.StatusRunning}} // oldest left; 2 s of 4 min is below the floor
	if len(c.Bars) != len(want) {
		t.Fatalf("bars %+v, want %+v", c.Bars, want)
	}
	for i := range want {
		if !near(c.Bars[i].Frac, want[i].Frac) || c.Bars[i].Status != want[i].Status {
			t.Errorf("bar %d = %+v, want %+v", i, c.Bars[i], want[i])
		}
	}
	if want := "Last 3 runs, oldest left; the tallest took 4 min 00 s."; c.Caption != want {
		t.Errorf("caption %q, want %q", c.Caption, want)
	}

	c.Set(doc, "never ran", now)
	if len(c.Bars) != 0 || c.Caption != "No runs yet." {
		t.Errorf("a workflow without runs: %d bars, caption %q", len(c.Bars), c.Caption)
	}
	c.Set(doc, "", now)
	if len(c.Bars) != 0 || c.Caption != "" {
		t.Errorf("no workflow: %d bars, caption %q", len(c.Bars), c.Caption)
	}

	// Only the newest ChartRuns runs are drawn, oldest of them left.
	doc = &store.Doc{}
	for i := range ChartRuns + 5 {
		doc.Runs = append(doc.Runs, run("many", ok, at(10, i, 0), time.Duration(i+1)*time.Second))
	}
	c.Set(doc, "many", now)
	if len(c.Bars) != ChartRuns {
		t.Fatalf("%d bars, want %d", len(c.Bars), ChartRuns)
	}
	longest := float32(ChartRuns + 5)
	if !near(c.Bars[0].Frac, 6/longest) || !near(c.Bars[ChartRuns-1].Frac, 1) {
		t.Errorf("first bar %v, last %v: want the 6th run (%v) first and the newest (1) last", c.Bars[0].Frac, c.Bars[ChartRuns-1].Frac, 6/longest)
	}
}

func TestTimelinePacksOverlappingRunsIntoLanes(t *testing.T) {
	now := at(12, 0, 0)
	ok, run1 := store.StatusSucceeded, store.StatusRunning
	doc := &store.Doc{Runs: []store.Run{
		run("b", ok, at(11, 50, 0), 5*time.Minute),                 // lane 0
		run("b", store.StatusFailed, at(11, 52, 0), 6*time.Minute), // overlaps the first: lane 1
		run("a", ok, at(11, 57, 0), 2*time.Minute),
		run("b", run1, at(11, 56, 0), 0),                                    // starts after the first ended: lane 0 again
		{Workflow: "a", Status: store.StatusQueued, Created: at(11, 58, 0)}, // never started: not drawn
	}}
	var tl Timeline
	tl.Pack(doc, now)
	if tl.Period != 10*time.Minute {
		t.Errorf("period %v, want the 10 min that hold every run", tl.Period)
	}
	if want := []string{"a", "b", ""}; !slices.Equal(tl.Rows, want) {
		t.Errorf("rows %q, want %q (workflows by name, one row per lane)", tl.Rows, want)
	}
	want := []Span{
		{0, 0.7, 0.9, ok},
		{1, 0, 0.5, ok},
		{2, 0.2, 0.8, store.StatusFailed},
		{1, 0.6, 1, run1},
	}
	if len(tl.Spans) != len(want) {
		t.Fatalf("spans %+v, want %+v", tl.Spans, want)
	}
	for i, w := range want {
		s := tl.Spans[i]
		if s.Row != w.Row || !near(s.Start, w.Start) || !near(s.End, w.End) || s.Status != w.Status {
			t.Errorf("span %d = %+v, want %+v", i, s, w)
		}
	}
	wantTicks := []Tick{{0, "11:50"}, {0.2, "11:52"}, {0.4, "11:54"}, {0.6, "11:56"}, {0.8, "11:58"}, {1, "12:00"}}
	if len(tl.Ticks) != len(wantTicks) {
		t.Fatalf("ticks %v, want %v", tl.Ticks, wantTicks)
	}
	for i, w := range wantTicks {
		if g := tl.Ticks[i]; g.Label != w.Label || !near(g.At, w.At) {
			t.Errorf("tick %d = %v, want %v", i, g, w)
		}
	}

	// Packing again reuses the slices and does not keep old rows.
	tl.Pack(&store.Doc{}, now)
	if len(tl.Rows) != 0 || len(tl.Spans) != 0 || len(tl.Ticks) != len(wantTicks) {
		t.Errorf("empty doc: %d rows, %d spans, %d ticks", len(tl.Rows), len(tl.Spans), len(tl.Ticks))
	}
}

func TestTimelineZoomsToTheSmallestPeriod(t *testing.T) {
	now := at(12, 0, 0)
	ok := store.StatusSucceeded
	for _, c := range []struct {
		name   string
		runs   []store.Run
		period time.Duration
		spans  int
	}{
		{"nothing ran", nil, 10 * time.Minute, 0},
		{"a run 5 min ago", []store.Run{run("a", ok, now.Add(-5*time.Minute), time.Minute)}, 10 * time.Minute, 1},
		{"a run 20 min ago", []store.Run{run("a", ok, now.Add(-20*time.Minute), time.Minute)}, 30 * time.Minute, 1},
		{"a run 40 min ago", []store.Run{run("a", ok, now.Add(-40*time.Minute), time.Minute)}, time.Hour, 1},
		{"a run 2 h ago", []store.Run{run("a", ok, now.Add(-2*time.Hour), time.Minute)}, TimelineSpan, 1},
		{"a run that ended before the span is not drawn and does not zoom out",
			[]store.Run{run("a", ok, now.Add(-5*time.Hour), time.Hour), run("a", ok, now.Add(-5*time.Minute), time.Minute)}, 10 * time.Minute, 1},
		{"a run going for 5 h is drawn from the left edge",
			[]store.Run{run("a", store.StatusRunning, now.Add(-5*time.Hour), 0)}, TimelineSpan, 1},
	} {
		var tl Timeline
		tl.Pack(&store.Doc{Runs: c.runs}, now)
		if tl.Period != c.period || len(tl.Spans) != c.spans {
			t.Errorf("%s: period %v with %d spans, want %v with %d", c.name, tl.Period, len(tl.Spans), c.period, c.spans)
		}
		for _, s := range tl.Spans {
			if s.Start < 0 || s.End > 1 || s.Start > s.End {
				t.Errorf("%s: span %+v is outside the window", c.name, s)
			}
		}
	}
}

func TestTimelineCapsRows(t *testing.T) {
	now := at(12, 0, 0)
	doc := &store.Doc{}
	for i := range MaxTimelineRows - 1 {
		doc.Runs = append(doc.Runs, run(fmt.Sprintf("w%02d", i), store.StatusSucceeded, at(11, 55, 0), time.Minute))
	}
	// The last workflow has three runs at once: only its first lane fits.
	for range 3 {
		doc.Runs = append(doc.Runs, run("zz", store.StatusRunning, at(11, 56, 0), 0))
	}
	doc.Runs = append(doc.Runs, run("zzz", store.StatusRunning, at(11, 56, 0), 0)) // no room at all
	var tl Timeline
	tl.Pack(doc, now)
	if len(tl.Rows) != MaxTimelineRows || len(tl.Spans) != MaxTimelineRows {
		t.Fatalf("%d rows and %d spans, want %d of each", len(tl.Rows), len(tl.Spans), MaxTimelineRows)
	}
	if last := tl.Rows[MaxTimelineRows-1]; last != "zz" {
		t.Errorf("last row %q, want zz", last)
	}
	for _, s := range tl.Spans {
		if s.Row >= MaxTimelineRows {
			t.Errorf("span on row %d, past the cap", s.Row)
		}
	}
}

// TestTimelineTickLabelsAreExactAtTheirGridlines checks the time axis for windows of every
// size, starting on and off round times: each label reads the exact local time at its
// gridline (to the second when the step is under a minute), the steps are round and
// equal, and the axis is cut into at most TimelineTicks intervals.
func TestTimelineTickLabelsAreExactAtTheirGridlines(t *testing.T) {
	periods := append([]time.Duration{45 * time.Second, 100 * time.Second, 7 * time.Minute, 2 * 24 * time.Hour}, TimelinePeriods...)
	for _, period := range periods {
		for _, from := range []time.Time{at(11, 50, 0), at(11, 26, 37), at(23, 59, 59)} {
			ticks := AppendTicks(nil, from, period)
			if len(ticks) < 2 || len(ticks) > TimelineTicks+1 {
				t.Errorf("%v from %s: %d ticks, want 2 to %d", period, from.Format("15:04:05"), len(ticks), TimelineTicks+1)
				continue
			}
			layout := "15:04"
			if strings.Count(ticks[0].Label, ":") == 2 {
				layout = "15:04:05"
			} else if !strings.Contains(ticks[0].Label, ":") {
				layout = "2 Jan"
			}
			var xs []time.Time
			for i, tk := range ticks {
				// The time at the gridline (float32 fractions: to the second).
				x := from.Add(time.Duration(float64(tk.At) * float64(period))).Round(time.Second)
				if (layout != "15:04:05" && x.Second() != 0) || x.Format(layout) != tk.Label {
					t.Errorf("%v from %s: tick %d %q sits at %s", period, from.Format("15:04:05"), i, tk.Label, x.Format("15:04:05"))
				}
				if xs = append(xs, x); i > 1 && x.Sub(xs[i-1]) != xs[i-1].Sub(xs[i-2]) {
					t.Errorf("%v from %s: unequal steps at tick %d", period, from.Format("15:04:05"), i)
				}
			}
			if (period < 6*time.Minute) != (layout == "15:04:05") {
				t.Errorf("%v: labels %q: seconds must show exactly when the step is under a minute", period, ticks[0].Label)
			}
		}
	}
}
