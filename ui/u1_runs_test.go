package ui

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

// drawn is one text as drawn: its words, where they reach, and the box of the widget
// that draws them, in window coordinates.
type drawn struct {
	text            string
	left, right     float32
	top, bottom     float32
	boxLeft, boxEnd float32
}

// drawnTexts walks o as laid out at pos and returns every visible text with the span it
// is drawn over (a canvas.Text is drawn at its alignment inside its box) and the box of
// the innermost widget it belongs to (box when none).
func drawnTexts(o fyne.CanvasObject, pos fyne.Position, box [2]float32) []drawn {
	if !o.Visible() {
		return nil
	}
	pos = pos.Add(o.Position())
	var out []drawn
	switch o := o.(type) {
	case *canvas.Text:
		if o.Text == "" {
			return nil
		}
		w, size := o.MinSize().Width, o.Size().Width
		left := pos.X
		switch o.Alignment {
		case fyne.TextAlignCenter:
			left += (size - w) / 2
		case fyne.TextAlignTrailing:
			left += size - w
		}
		return []drawn{{o.Text, left, left + w, pos.Y, pos.Y + o.MinSize().Height, box[0], box[1]}}
	case *fyne.Container:
		for _, c := range o.Objects {
			out = append(out, drawnTexts(c, pos, box)...)
		}
	case fyne.Widget:
		box = [2]float32{pos.X, pos.X + o.Size().Width}
		for _, c := range test.WidgetRenderer(o).Objects() {
			out = append(out, drawnTexts(c, pos, box)...)
		}
	}
	return out
}

// TestRunRowTextsStayInTheirColumns draws rows of the runs list for runs whose texts are
// long ("cancelled at step 1 of 2", a duration of hours, another window's pid): no text
// spills over another or out of the row.
func TestRunRowTextsStayInTheirColumns(t *testing.T) {
	isolate(t)
	test.NewTempApp(t)
	now := time.Date(2026, 5, 4, 12, 0, 0, 0, time.Local)
	code := 1
	doc := &store.Doc{Runs: []store.Run{
		{ID: "r123456", Workflow: "a workflow with a rather long name", Task: "nightly", Status: store.StatusCancelled, Steps: 2,
			Created: now.Add(-time.Hour), Started: now.Add(-time.Hour), Ended: now.Add(-time.Minute), OwnerPID: 4194303},
		{ID: "r7", Workflow: "w", Status: store.StatusFailed, Steps: 12, Step: 10, Started: now.Add(-125 * time.Hour), Ended: now,
			OwnerPID: 4194303, ExitCode: &code},
		{ID: "r8", Workflow: "w", Status: store.StatusRunning, Steps: 100, Step: 98, Started: now.Add(-time.Minute), OwnerPID: 99},
		{ID: "r9", Workflow: "w", Status: store.StatusQueued, Steps: 2, Created: now},
	}}
	m := &Main{doc: doc, runIdx: []int{0, 1, 2, 3}, opts: Options{Now: func() time.Time { return now }}}
	m.st.PID = 99
	for i := range doc.Runs {
		row := newRunRow()
		w := test.NewWindow(row)
		w.Resize(fyne.NewSize(520, 40))
		m.updateRunRow(i, row)
		texts := drawnTexts(row, fyne.NewPos(-row.Position().X, -row.Position().Y), [2]float32{0, row.Size().Width})
		if len(texts) < 3 {
			t.Fatalf("run %s: found only %v", doc.Runs[i].ID, texts)
		}
		for k, a := range texts {
			if a.left < a.boxLeft-0.5 || a.right > a.boxEnd+0.5 {
				t.Errorf("run %s: %q is drawn over %.0f..%.0f, outside its column %.0f..%.0f", doc.Runs[i].ID, a.text, a.left, a.right, a.boxLeft, a.boxEnd)
			}
			for _, b := range texts[k+1:] {
				if a.left < b.right && b.left < a.right {
					t.Errorf("run %s: %q (%.0f..%.0f) runs into %q (%.0f..%.0f)", doc.Runs[i].ID, a.text, a.left, a.right, b.text, b.left, b.right)
				}
			}
		}
		w.Close()
	}
}

// TestStatusColours: the bars of the runs list and of the run view take the colour of
// their run's status, from the theme: failed red, cancelled orange, running blue,
// succeeded green, queued grey.
func TestStatusColours(t *testing.T) {
	isolate(t)
	test.NewTempApp(t).Settings().SetTheme(theme.DefaultTheme())
	th, v := theme.DefaultTheme(), fyne.CurrentApp().Settings().ThemeVariant()
	want := map[string]color.Color{
		store.StatusFailed:    th.Color(theme.ColorNameError, v),
		store.StatusCancelled: th.Color(theme.ColorNameWarning, v),
		store.StatusRunning:   th.Color(theme.ColorNamePrimary, v),
		store.StatusSucceeded: th.Color(theme.ColorNameSuccess, v),
		store.StatusQueued:    th.Color(theme.ColorNameDisabled, v),
	}
	hue := map[string]string{store.StatusFailed: "red", store.StatusCancelled: "orange", store.StatusRunning: "blue",
		store.StatusSucceeded: "green", store.StatusQueued: "grey"}
	for st, c := range want {
		if got := hueOf(c); got != hue[st] {
			t.Errorf("%s is %s (%v), want %s", st, got, c, hue[st])
		}
	}
	seen := map[color.Color]string{}
	for st, c := range want {
		if got := statusColor(st); got != c {
			t.Errorf("%s: colour %v, want %v", st, got, c)
		}
		if other, dup := seen[c]; dup {
			t.Errorf("%s and %s have the same colour", st, other)
		}
		seen[c] = st
		b := NewStatusBar()
		w := test.NewWindow(b)
		w.Resize(fyne.NewSize(200, 30))
		b.Set(st, 0.5, "step 1 of 2")
		fill := test.WidgetRenderer(b).(*statusBarRenderer).fill
		if fill.FillColor != c || fill.Size().Width < 80 || fill.Size().Width > 120 {
			t.Errorf("%s bar: fill %v of width %.0f, want %v of about half the bar", st, fill.FillColor, fill.Size().Width, c)
		}
		w.Close()
	}
	// The bar in the runs list is a StatusBar fed the run's status.
	now := time.Now()
	m := &Main{doc: &store.Doc{Runs: []store.Run{{ID: "r1", Workflow: "w", Status: store.StatusFailed, Steps: 2, Step: 1,
		Started: now, Ended: now}}}, runIdx: []int{0}, opts: Options{Now: time.Now}}
	row := newRunRow().(*runRow)
	m.updateRunRow(0, row)
	if row.bar.Status != store.StatusFailed {
		t.Errorf("the runs list's bar shows status %q, want failed", row.bar.Status)
	}
}

// maxRunViewWidth is the most the run view may ask for: what it has beside the sidebar
// in a window 700 wide, whatever run it shows.
const maxRunViewWidth = 480

// TestFailedRunDoesNotWidenTheWindow opens a window 700 wide on a home with a failed run
// whose error is long and has long words (a path), and selects it: the window's minimum
// width stays what it was with no run chosen, and within 700.
func TestFailedRunDoesNotWidenTheWindow(t *testing.T) {
	isolate(t)
	home := newHome(t)
	abs, err := host.PrepareHome(home)
	if err != nil {
		t.Fatal(err)
	}
	st := store.New(abs, store.Options{})
	if _, err := st.Reload(); err != nil {
		t.Fatal(err)
	}
	st.BeginEpoch()
	path := "/home/someone/projects/" + strings.Repeat("very-long-folder-name/", 6) + "build.sh"
	_, err = st.Update(func(d *store.Doc) error {
		d.Workflows = append(d.Workflows, store.Workflow{Name: "w", MaxConcurrent: 1, OnOwnerLost: "fail",
			Steps: []store.Step{{Argv: []string{path}}}})
		d.Seq++
		start := time.Now().Add(-time.Minute).UTC()
		d.Runs = append(d.Runs, store.Run{ID: workflow.NewRunID(d.Seq), Seq: d.Seq, Workflow: "w", Status: store.StatusFailed,
			Task: strings.Repeat("a long task name ", 4), Steps: 2, Created: start, Started: start, Ended: start.Add(time.Second), OwnerPID: 4194303,
			SupervisorPID: 4194302,
			Error:         fmt.Sprintf("step 1 (step 1): cannot start %q: fork/exec %s: no such file or directory", path, path)})
		return nil
	})
	st.EndEpoch()
	if err != nil {
		t.Fatal(err)
	}
	m, q := newUI(t, openCore(t, home))
	q.waitFor(t, "the run listed", func() bool { return m.Runs.Length() == 1 })
	m.ShowTab("Runs")
	m.Win.Resize(fyne.NewSize(700, 600))
	before := m.Win.Content().MinSize().Width
	m.Runs.Select(0)
	if !m.RunView.Error.Visible() {
		t.Fatal("the failed run's error is not shown")
	}
	if after := m.Win.Content().MinSize().Width; after > before {
		t.Errorf("selecting the failed run made the window at least %.0f wide (%.0f before)", after, before)
	}
	if w := m.RunView.obj.MinSize().Width; w > maxRunViewWidth {
		t.Errorf("the run view needs %.0f px, more than the %d it has in a window 700 wide", w, maxRunViewWidth)
	}
}

// hueOf names the hue of c roughly: red, orange, green, blue or grey.
func hueOf(c color.Color) string {
	r, g, b, _ := c.RGBA()
	r, g, b = r>>8, g>>8, b>>8
	switch {
	case max(r, g, b)-min(r, g, b) < 40:
		return "grey"
	case b > r && b > g:
		return "blue"
	case g > r && g > b:
		return "green"
	case r > b && g*10 > r*4:
		return "orange"
	case r > g && r > b:
		return "red"
	}
	return "other"
}
