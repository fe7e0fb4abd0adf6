package ui

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
	"baton/ui/view"
)

// ChartRuns is how many recent runs the per-workflow chart shows.
const ChartRuns = view.ChartRuns

// TimelineSpan is how far back the timeline looks.
const TimelineSpan = view.TimelineSpan

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
	for _, s := range view.LegendStatuses {
		sw := canvas.NewRectangle(statusColor(s))
		sw.SetMinSize(fyne.NewSize(12, 12))
		sw.CornerRadius = 3
		legend.Add(container.NewCenter(sw))
		legend.Add(widget.NewLabel(s))
	}
	title := widget.NewLabelWithStyle("Recent runs over time: one row per lane of a workflow; runs that overlapped stack",
		fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Wrapping = fyne.TextWrapWord // a narrow window must not widen for it
	return container.NewBorder(container.NewVBox(title, legend), nil, nil, nil, container.NewVScroll(m.Timeline))
}

// DurationChart draws the recent runs of one workflow as bars: height is the duration,
// colour the outcome (view.DurationChart decides them). Touch it only on the UI goroutine.
type DurationChart struct {
	widget.BaseWidget
	model view.DurationChart
}

// NewDurationChart returns an empty chart.
func NewDurationChart() *DurationChart {
	c := &DurationChart{}
	c.ExtendBaseWidget(c)
	return c
}

// Bars returns how many runs the chart shows (for tests).
func (c *DurationChart) Bars() int { return len(c.model.Bars) }

func (c *DurationChart) set(doc *store.Doc, name string, now time.Time) {
	c.model.Set(doc, name, now)
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
	for len(r.rects) < len(r.c.model.Bars) {
		rc := canvas.NewRectangle(color.Transparent)
		rc.CornerRadius = 2
		r.rects = append(r.rects, rc)
	}
	r.objs = append(r.objs[:0], r.axis, r.caption)
	for i, b := range r.c.model.Bars {
		r.rects[i].FillColor = statusColor(b.Status)
		r.objs = append(r.objs, r.rects[i])
	}
	r.caption.Text = r.c.model.Caption
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
	n := len(r.c.model.Bars)
	if n == 0 {
		return
	}
	slot := (size.Width - 2*pad) / float32(ChartRuns)
	w := max(slot*0.7, 2)
	for i, b := range r.c.model.Bars {
		h := (base - pad) * b.Frac
		r.rects[i].Move(fyne.NewPos(pad+float32(i)*slot, base-h))
		r.rects[i].Resize(fyne.NewSize(w, h))
	}
}

// Timeline draws the runs of the last hours, one row per lane of each workflow, so runs
// that overlapped stack on rows below each other (view.Timeline packs them). Touch it
// only on the UI goroutine.
type Timeline struct {
	widget.BaseWidget
	model view.Timeline
}

// NewTimeline returns an empty timeline.
func NewTimeline() *Timeline {
	t := &Timeline{model: view.Timeline{Period: TimelineSpan}}
	t.ExtendBaseWidget(t)
	return t
}

// Spans returns how many runs the timeline shows (for tests).
func (t *Timeline) Spans() int { return len(t.model.Spans) }

// MaxTimelineRows caps the rows drawn.
const MaxTimelineRows = view.MaxTimelineRows

func (t *Timeline) set(doc *store.Doc, now time.Time) {
	t.model.Pack(doc, now)
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
	tlLabelW = 140
	tlRowH   = 22
	tlAxisH  = 20
)

func (r *timelineRenderer) Destroy() {}

func (r *timelineRenderer) MinSize() fyne.Size {
	return fyne.NewSize(tlLabelW+200, tlAxisH+float32(max(len(r.t.model.Rows), 3))*tlRowH)
}

func (r *timelineRenderer) Objects() []fyne.CanvasObject { return r.objs }

func (r *timelineRenderer) Refresh() {
	fg, sep := theme.Color(theme.ColorNameForeground), theme.Color(theme.ColorNameSeparator)
	for len(r.rects) < len(r.t.model.Spans) {
		rc := canvas.NewRectangle(color.Transparent)
		rc.CornerRadius = 3
		r.rects = append(r.rects, rc)
	}
	for len(r.labels) < len(r.t.model.Rows) {
		r.labels = append(r.labels, canvas.NewText("", fg))
	}
	for len(r.ticks) < len(r.t.model.Ticks) {
		tx := canvas.NewText("", fg)
		tx.TextSize = theme.CaptionTextSize()
		r.ticks = append(r.ticks, tx)
		r.grid = append(r.grid, canvas.NewLine(sep))
	}
	if r.empty == nil {
		r.empty = canvas.NewText("No runs in this period.", fg)
	}
	r.objs = r.objs[:0]
	for i, tk := range r.t.model.Ticks {
		r.ticks[i].Text, r.ticks[i].Color = tk.Label, fg
		r.grid[i].StrokeColor = sep
		r.objs = append(r.objs, r.grid[i], r.ticks[i])
	}
	for i, l := range r.t.model.Rows {
		r.labels[i].Text, r.labels[i].Color = l, fg
		r.objs = append(r.objs, r.labels[i])
	}
	for i, s := range r.t.model.Spans {
		r.rects[i].FillColor = statusColor(s.Status)
		r.objs = append(r.objs, r.rects[i])
	}
	if len(r.t.model.Spans) == 0 {
		r.empty.Color = fg
		r.objs = append(r.objs, r.empty)
	}
	r.Layout(r.t.Size())
	canvas.Refresh(r.t)
}

func (r *timelineRenderer) Layout(size fyne.Size) {
	pad := theme.Padding()
	plotW := max(size.Width-tlLabelW-2*pad, 10)
	for i, tk := range r.t.model.Ticks {
		x := tlLabelW + plotW*tk.At
		tw := r.ticks[i].MinSize().Width
		r.ticks[i].Move(fyne.NewPos(min(x-tw/2, size.Width-tw), 0))
		r.grid[i].Position1 = fyne.NewPos(x, tlAxisH)
		r.grid[i].Position2 = fyne.NewPos(x, max(size.Height, tlAxisH+float32(len(r.t.model.Rows))*tlRowH))
	}
	for i := range r.t.model.Rows {
		r.labels[i].Move(fyne.NewPos(pad, tlAxisH+float32(i)*tlRowH+2))
	}
	for i, s := range r.t.model.Spans {
		x := tlLabelW + plotW*s.Start
		w := max(plotW*(s.End-s.Start), 3)
		r.rects[i].Move(fyne.NewPos(x, tlAxisH+float32(s.Row)*tlRowH+3))
		r.rects[i].Resize(fyne.NewSize(w, tlRowH-6))
	}
	if r.empty != nil {
		r.empty.Move(fyne.NewPos(tlLabelW, tlAxisH+pad))
	}
}
