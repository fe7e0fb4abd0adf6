package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// TestSmallWindowKeepsTextsInPlace (issue 22, bug 5): in a window of 640 by 480 the
// runs list's rows keep the run's id and name readable, no text drawn over another, and
// the filter box keeps room to type in.
func TestSmallWindowKeepsTextsInPlace(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "nightly backup of the photos", "sleep", "30")
	if _, _, err := w.Intents().RunNow(context.Background(), "nightly backup of the photos", ""); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the run running", func() bool {
		return m.Runs.Length() == 1 && m.rowRun(0).Status == "running"
	})
	m.ShowTab("Runs")
	m.Win.Resize(fyne.NewSize(640, 480))
	if got := m.Win.Canvas().Size(); got.Width > 640 || got.Height > 480 {
		t.Fatalf("the window is %v: its content needs more than 640 by 480", got)
	}
	m.Runs.Refresh()
	rows := 0
	for _, o := range rowsOf(m.Runs) {
		row, ok := o.(*runRow)
		if !ok || !row.Visible() || row.title.Text == "" {
			continue
		}
		rows++
		texts := drawnTexts(row, fyne.NewPos(-row.Position().X, -row.Position().Y), [2]float32{0, row.Size().Width})
		for k, a := range texts {
			if a.right > row.Size().Width+0.5 {
				t.Errorf("%q is drawn to %.0f, past the row's %.0f", a.text, a.right, row.Size().Width)
			}
			for _, b := range texts[k+1:] {
				if a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom {
					t.Errorf("%q (%.0f..%.0f) is drawn over %q (%.0f..%.0f)", a.text, a.left, a.right, b.text, b.left, b.right)
				}
			}
		}
		if w := row.title.Size().Width; w < MinRunTitleWidth {
			t.Errorf("the run's id and name get %.0f px, want at least %d", w, MinRunTitleWidth)
		}
	}
	if rows == 0 {
		t.Fatal("no run row drawn")
	}
	if w := m.RunsFilter.Size().Width; w < MinFilterWidth {
		t.Errorf("the filter box is %.0f px wide, want at least %d", w, MinFilterWidth)
	}
}

// rowsOf returns the row widgets l shows now.
func rowsOf(l fyne.Widget) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *runRow:
			out = append(out, x)
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c)
			}
		}
	}
	walk(l)
	return out
}
