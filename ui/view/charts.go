package view

import (
	"fmt"
	"sort"
	"time"

	"baton/store"
)

// ChartRuns is how many recent runs the per-workflow chart shows.
const ChartRuns = 40

// Bar is one run in the duration chart.
type Bar struct {
	Frac   float32 // height: the run's duration over the longest shown, at least 0.02
	Status string
}

// DurationChart is what the duration chart of one workflow shows: its last ChartRuns
// runs that started, oldest left, as bars whose height is the duration.
type DurationChart struct {
	Bars    []Bar
	Caption string
}

// Set fills c for workflow name ("" for none) of doc, reusing c.Bars.
func (c *DurationChart) Set(doc *store.Doc, name string, now time.Time) {
	c.Bars = c.Bars[:0]
	var longest time.Duration
	var idx [ChartRuns]int
	n := 0
	for i := len(doc.Runs) - 1; i >= 0 && n < ChartRuns && name != ""; i-- {
		r := &doc.Runs[i]
		if r.Workflow == name && !r.Started.IsZero() {
			idx[n] = i
			n++
			longest = max(longest, RunDuration(r, now))
		}
	}
	for k := n - 1; k >= 0; k-- {
		r := &doc.Runs[idx[k]]
		f := float32(1)
		if longest > 0 {
			f = float32(RunDuration(r, now)) / float32(longest)
		}
		c.Bars = append(c.Bars, Bar{Frac: max(f, 0.02), Status: r.Status})
	}
	switch {
	case name == "":
		c.Caption = ""
	case n == 0:
		c.Caption = "No runs yet."
	default:
		c.Caption = fmt.Sprintf("Last %s, oldest left; the tallest took %s.", Plural(n, "run", "runs"), Human(longest))
	}
}

// TimelineSpan is how far back the timeline looks.
const TimelineSpan = 3 * time.Hour

// MaxTimelineRows caps the rows drawn.
const MaxTimelineRows = 40

// TimelineTicks is the most intervals the time axis is cut into (ticks are one more).
const TimelineTicks = 6

// tickSteps are the round steps between the axis's ticks, smallest first: the axis uses
// the smallest that cuts its window into at most TimelineTicks intervals.
var tickSteps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// TimelinePeriods are the windows the timeline zooms between: the smallest that holds
// every run of the last TimelineSpan.
var TimelinePeriods = []time.Duration{10 * time.Minute, 30 * time.Minute, time.Hour, TimelineSpan}

// LegendStatuses are the statuses the timeline's legend explains, in its order.
var LegendStatuses = []string{store.StatusRunning, store.StatusSucceeded, store.StatusFailed, store.StatusCancelled}

// Tick is one label of the time axis and its gridline.
type Tick struct {
	At    float32 // where, as a fraction of the time window
	Label string  // the local time at At, exactly: "15:04", "15:04:05" or "2 Jan"
}

// Span is one run on the timeline, in fractions of the time window.
type Span struct {
	Row        int
	Start, End float32
	Status     string
}

// Timeline is what the timeline shows: one row per lane of each workflow (workflows by
// name), so runs of a workflow that overlapped stack on rows below each other.
type Timeline struct {
	Rows   []string // row labels ("" for extra lanes of the workflow above)
	Spans  []Span
	Ticks  []Tick // the axis, left to right
	Period time.Duration
}

// Pack fills t with the runs of doc that started and did not end before the window,
// reusing its slices.
func (t *Timeline) Pack(doc *store.Doc, now time.Time) {
	earliest := now
	for i := range doc.Runs {
		r := &doc.Runs[i]
		if !r.Started.IsZero() && r.Started.Before(earliest) && (r.Ended.IsZero() || now.Sub(r.Ended) < TimelineSpan) {
			earliest = r.Started
		}
	}
	for _, p := range TimelinePeriods {
		t.Period = p
		if now.Sub(earliest) <= p {
			break
		}
	}
	from := now.Add(-t.Period)
	type iv struct {
		s, e   time.Time
		status string
	}
	by := map[string][]iv{}
	var names []string
	for i := range doc.Runs {
		r := &doc.Runs[i]
		if r.Started.IsZero() {
			continue
		}
		end := r.Ended
		if end.IsZero() {
			end = now
		}
		if end.Before(from) {
			continue
		}
		if _, ok := by[r.Workflow]; !ok {
			names = append(names, r.Workflow)
		}
		by[r.Workflow] = append(by[r.Workflow], iv{r.Started, end, r.Status})
	}
	sort.Strings(names)
	t.Rows, t.Spans = t.Rows[:0], t.Spans[:0]
	frac := func(x time.Time) float32 {
		f := float32(x.Sub(from)) / float32(t.Period)
		return min(max(f, 0), 1)
	}
	for _, name := range names {
		ivs := by[name]
		sort.Slice(ivs, func(a, b int) bool { return ivs[a].s.Before(ivs[b].s) })
		var laneEnd []time.Time
		first := len(t.Rows)
		for _, v := range ivs {
			lane := -1
			for k, e := range laneEnd {
				if !v.s.Before(e) {
					lane = k
					break
				}
			}
			if lane < 0 {
				laneEnd = append(laneEnd, time.Time{})
				lane = len(laneEnd) - 1
				if first+lane >= MaxTimelineRows {
					break
				}
				label := ""
				if lane == 0 {
					label = name
				}
				t.Rows = append(t.Rows, label)
			}
			laneEnd[lane] = v.e
			t.Spans = append(t.Spans, Span{Row: first + lane, Start: frac(v.s), End: frac(v.e), Status: v.status})
		}
		if len(t.Rows) >= MaxTimelineRows {
			break
		}
	}
	t.Ticks = AppendTicks(t.Ticks[:0], from, t.Period)
}

// AppendTicks appends to dst the ticks of the window of length period from from: round
// local times (whole steps of tickSteps counted from local midnight), each labelled to
// the precision its step needs, so a label is the exact time at its gridline.
func AppendTicks(dst []Tick, from time.Time, period time.Duration) []Tick {
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if period/s <= TimelineTicks {
			step = s
			break
		}
	}
	layout := "15:04"
	switch {
	case step < time.Minute:
		layout = "15:04:05"
	case step >= 24*time.Hour:
		layout = "2 Jan"
	}
	from = from.Local()
	y, mo, d := from.Date()
	midnight := time.Date(y, mo, d, 0, 0, 0, 0, time.Local)
	at := midnight.Add(from.Sub(midnight) / step * step)
	if at.Before(from) {
		at = at.Add(step)
	}
	for end := from.Add(period); !at.After(end); at = at.Add(step) {
		dst = append(dst, Tick{At: float32(at.Sub(from)) / float32(period), Label: at.Format(layout)})
	}
	return dst
}
