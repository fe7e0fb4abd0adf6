package ui

import (
	"fmt"
	"image/color"
	"sort"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
)

// ChartRuns is how many recent runs the per-workflow chart shows.
const ChartRuns = 40

// TimelineSpan is how far back the timeline looks.
const TimelineSpan = 3 * time.Hour

// renderPictures feeds the chart (the workflow in the editor) and the timeline.
func (m *Main) renderPictures() {
	now := m.opts.Now()
	m.Chart.set(m.doc, m.Editor.existing, now)
	if m.Editor.existing == "" {
		m.chartBox.Hide()
	} else {
		m.chartBox.Show()
	}
	m.Timeline.set(m.doc, now)
}

func (m *Main) timelinePane() fyne.CanvasObject {
	legend := container.NewHBox()
	for _, s := range []string{store.StatusRunning, store.StatusSucceeded, store.StatusFailed, store.StatusCancelled} {
		sw := canvas.NewRectangle(theme.Color(statusColorName(s)))
		sw.SetMinSize(fyne.NewSize(12, 12))
		sw.CornerRadius = 3
		legend.Add(container.NewCenter(sw))
		legend.Add(widget.NewLabel(s))
	}
	title := widget.NewLabelWithStyle("Recent runs over time: one row per lane of a workflow; runs that overlapped stack",
		fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	return container.NewBorder(container.NewVBox(title, legend), nil, nil, nil, container.NewVScroll(m.Timeline))
}

// bar is one run in the duration chart.
type bar struct {
	frac   float32
	status string
}

// DurationChart draws the recent runs of one workflow as bars: height is the duration,
// colour the outcome. Touch it only on the UI goroutine.
type DurationChart struct {
	widget.BaseWidget
	bars    []bar
	caption string
}

// NewDurationChart returns an empty chart.
func NewDurationChart() *DurationChart {
	c := &DurationChart{}
	c.ExtendBaseWidget(c)
	return c
}

// Bars returns how many runs the chart shows (for tests).
func (c *DurationChart) Bars() int { return len(c.bars) }

func (c *DurationChart) set(doc *store.Doc, name string, now time.Time) {
	c.bars = c.bars[:0]
	var longest time.Duration
	var idx [ChartRuns]int
	n := 0
	for i := len(doc.Runs) - 1; i >= 0 && n < ChartRuns && name != ""; i-- {
		r := &doc.Runs[i]
		if r.Workflow == name && !r.Started.IsZero() {
			idx[n] = i
			n++
			longest = max(longest, runDuration(r, now))
		}
	}
	for k := n - 1; k >= 0; k-- {
		r := &doc.Runs[idx[k]]
		f := float32(1)
		if longest > 0 {
			f = float32(runDuration(r, now)) / float32(longest)
		}
		c.bars = append(c.bars, bar{frac: max(f, 0.02), status: r.Status})
	}
	switch {
	case name == "":
		c.caption = ""
	case n == 0:
		c.caption = "No runs yet."
	default:
		c.caption = fmt.Sprintf("Last %s, oldest left; the tallest took %s.", plural(n, "run", "runs"), human(longest))
	}
	c.Refresh()
}

// CreateRenderer draws the bars with canvas rectangles.
func (c *DurationChart) CreateRenderer() fyne.WidgetRenderer {
	r := &chartRenderer{c: c, caption: canvas.NewText("", theme.Color(theme.ColorNameForeground)), axis: canvas.NewLine(theme.Color(theme.ColorNameSeparator))}
	r.caption.TextSize = theme.CaptionTextSize()
	r.Refresh()
	return r
}

type chartRenderer struct {
	c       *DurationChart
	rects   []*canvas.Rectangle
	caption *canvas.Text
	axis    *canvas.Line
	objs    []fyne.CanvasObject
}

func (r *chartRenderer) Destroy() {}

func (r *chartRenderer) MinSize() fyne.Size { return fyne.NewSize(200, 130) }

func (r *chartRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *chartRenderer) Refresh() {
	for len(r.rects) < len(r.c.bars) {
		rc := canvas.NewRectangle(color.Transparent)
		rc.CornerRadius = 2
		r.rects = append(r.rects, rc)
	}
	r.objs = append(r.objs[:0], r.axis, r.caption)
	for i, b := range r.c.bars {
		r.rects[i].FillColor = theme.Color(statusColorName(b.status))
		r.objs = append(r.objs, r.rects[i])
	}
	r.caption.Text = r.c.caption
	r.caption.Color = theme.Color(theme.ColorNameForeground)
	r.axis.StrokeColor = theme.Color(theme.ColorNameSeparator)
	r.Layout(r.c.Size())
	canvas.Refresh(r.c)
}

func (r *chartRenderer) Layout(size fyne.Size) {
	pad := theme.Padding()
	capH := r.caption.MinSize().Height
	r.caption.Move(fyne.NewPos(pad, size.Height-capH))
	base := size.Height - capH - pad
	r.axis.Position1 = fyne.NewPos(pad, base)
	r.axis.Position2 = fyne.NewPos(size.Width-pad, base)
	n := len(r.c.bars)
	if n == 0 {
		return
	}
	slot := (size.Width - 2*pad) / float32(ChartRuns)
	w := max(slot*0.7, 2)
	for i, b := range r.c.bars {
		h := (base - pad) * b.frac
		r.rects[i].Move(fyne.NewPos(pad+float32(i)*slot, base-h))
		r.rects[i].Resize(fyne.NewSize(w, h))
	}
}

// span is one run on the timeline, in fractions of the time window.
type span struct {
	row        int
	start, end float32
	status     string
}

// Timeline draws the runs of the last hours, one row per lane of each workflow, so runs
// that overlapped stack on rows below each other.
type Timeline struct {
	widget.BaseWidget
	rows   []string // row labels ("" for extra lanes of the workflow above)
	spans  []span
	ticks  []string
	period time.Duration
}

// NewTimeline returns an empty timeline.
func NewTimeline() *Timeline {
	t := &Timeline{period: TimelineSpan}
	t.ExtendBaseWidget(t)
	return t
}

// Spans returns how many runs the timeline shows (for tests).
func (t *Timeline) Spans() int { return len(t.spans) }

// MaxTimelineRows caps the rows drawn.
const MaxTimelineRows = 40

// timelinePeriods are the windows the timeline zooms between: the smallest that holds
// every run of the last TimelineSpan.
var timelinePeriods = []time.Duration{10 * time.Minute, 30 * time.Minute, time.Hour, TimelineSpan}

func (t *Timeline) set(doc *store.Doc, now time.Time) {
	earliest := now
	for i := range doc.Runs {
		r := &doc.Runs[i]
		if !r.Started.IsZero() && r.Started.Before(earliest) && (r.Ended.IsZero() || now.Sub(r.Ended) < TimelineSpan) {
			earliest = r.Started
		}
	}
	for _, p := range timelinePeriods {
		t.period = p
		if now.Sub(earliest) <= p {
			break
		}
	}
	from := now.Add(-t.period)
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
	t.rows, t.spans = t.rows[:0], t.spans[:0]
	frac := func(x time.Time) float32 {
		f := float32(x.Sub(from)) / float32(t.period)
		return min(max(f, 0), 1)
	}
	for _, name := range names {
		ivs := by[name]
		sort.Slice(ivs, func(a, b int) bool { return ivs[a].s.Before(ivs[b].s) })
		var laneEnd []time.Time
		first := len(t.rows)
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
				t.rows = append(t.rows, label)
			}
			laneEnd[lane] = v.e
			t.spans = append(t.spans, span{row: first + lane, start: frac(v.s), end: frac(v.e), status: v.status})
		}
		if len(t.rows) >= MaxTimelineRows {
			break
		}
	}
	t.ticks = t.ticks[:0]
	for k := 0; k <= timelineTicks; k++ {
		t.ticks = append(t.ticks, from.Add(t.period*time.Duration(k)/timelineTicks).Local().Format("15:04"))
	}
	t.Refresh()
}

// CreateRenderer draws the timeline with canvas primitives.
func (t *Timeline) CreateRenderer() fyne.WidgetRenderer {
	r := &timelineRenderer{t: t}
	r.Refresh()
	return r
}

type timelineRenderer struct {
	t      *Timeline
	rects  []*canvas.Rectangle
	labels []*canvas.Text
	ticks  []*canvas.Text
	grid   []*canvas.Line
	empty  *canvas.Text
	objs   []fyne.CanvasObject
}

const (
	timelineTicks = 6
	tlLabelW      = 140
	tlRowH        = 22
	tlAxisH       = 20
)

func (r *timelineRenderer) Destroy() {}

func (r *timelineRenderer) MinSize() fyne.Size {
	return fyne.NewSize(tlLabelW+200, tlAxisH+float32(max(len(r.t.rows), 3))*tlRowH)
}

func (r *timelineRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *timelineRenderer) Refresh() {
	fg, sep := theme.Color(theme.ColorNameForeground), theme.Color(theme.ColorNameSeparator)
	for len(r.rects) < len(r.t.spans) {
		rc := canvas.NewRectangle(color.Transparent)
		rc.CornerRadius = 3
		r.rects = append(r.rects, rc)
	}
	for len(r.labels) < len(r.t.rows) {
		r.labels = append(r.labels, canvas.NewText("", fg))
	}
	for len(r.ticks) < len(r.t.ticks) {
		tx := canvas.NewText("", fg)
		tx.TextSize = theme.CaptionTextSize()
		r.ticks = append(r.ticks, tx)
		r.grid = append(r.grid, canvas.NewLine(sep))
	}
	if r.empty == nil {
		r.empty = canvas.NewText("No runs in this period.", fg)
	}
	r.objs = r.objs[:0]
	for i, tk := range r.t.ticks {
		r.ticks[i].Text, r.ticks[i].Color = tk, fg
		r.grid[i].StrokeColor = sep
		r.objs = append(r.objs, r.grid[i], r.ticks[i])
	}
	for i, l := range r.t.rows {
		r.labels[i].Text, r.labels[i].Color = l, fg
		r.objs = append(r.objs, r.labels[i])
	}
	for i, s := range r.t.spans {
		r.rects[i].FillColor = theme.Color(statusColorName(s.status))
		r.objs = append(r.objs, r.rects[i])
	}
	if len(r.t.spans) == 0 {
		r.empty.Color = fg
		r.objs = append(r.objs, r.empty)
	}
	r.Layout(r.t.Size())
	canvas.Refresh(r.t)
}

func (r *timelineRenderer) Layout(size fyne.Size) {
	pad := theme.Padding()
	plotW := max(size.Width-tlLabelW-2*pad, 10)
	n := len(r.t.ticks)
	for i := 0; i < n; i++ {
		x := tlLabelW + plotW*float32(i)/float32(max(n-1, 1))
		tw := r.ticks[i].MinSize().Width
		r.ticks[i].Move(fyne.NewPos(min(x-tw/2, size.Width-tw), 0))
		r.grid[i].Position1 = fyne.NewPos(x, tlAxisH)
		r.grid[i].Position2 = fyne.NewPos(x, max(size.Height, tlAxisH+float32(len(r.t.rows))*tlRowH))
	}
	for i := range r.t.rows {
		r.labels[i].Move(fyne.NewPos(pad, tlAxisH+float32(i)*tlRowH+2))
	}
	for i, s := range r.t.spans {
		x := tlLabelW + plotW*s.start
		w := max(plotW*(s.end-s.start), 3)
		r.rects[i].Move(fyne.NewPos(x, tlAxisH+float32(s.row)*tlRowH+3))
		r.rects[i].Resize(fyne.NewSize(w, tlRowH-6))
	}
	if r.empty != nil {
		r.empty.Move(fyne.NewPos(tlLabelW, tlAxisH+pad))
	}
}
