package ui

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"baton/ui/view"
)

// TestWholeLogShownSearchedCopiedAndSelected (issue 22, bug 2): a log longer than one
// read (seq 1 200000, 1.2 MB) shows its end first; scrolling up pages in the text before
// it, keeping the line in view where it was, down to the first line; Find counts and
// shows the matches of the whole log; Copy copies the whole log and says so; the mouse
// selects part of it and Ctrl+C copies that.
func TestWholeLogShownSearchedCopiedAndSelected(t *testing.T) {
	const n = 200000
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "count", "seq", "1", strconv.Itoa(n))
	run, _, err := w.Intents().StartRun(context.Background(), "count", "")
	if err != nil {
		t.Fatal(err)
	}
	m.ShowRun(run.ID)
	m.Win.Resize(fyne.NewSize(1000, 700))
	p := m.RunView.LogPane
	q.waitFor(t, "the run's end", func() bool { r := m.doc.Run(run.ID); return r != nil && !r.Active() })
	last := fmt.Sprintf("\n%d\n%s\n", n, view.EndLine(m.doc.Run(run.ID))) // the writer ends the log with how the run ended
	q.waitFor(t, "the log's end", func() bool { return strings.HasSuffix(p.text, last) })
	file, err := os.ReadFile(w.Snapshot().Run(run.ID).Log)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(file)) <= MaxLogRead || !p.Earlier.Visible() {
		t.Fatalf("the log (%d bytes) fits one read, or Earlier is not offered", len(file))
	}

	// Scroll up to the first line: each wheel at the top pages in earlier text.
	over := absPos(p.Grid).AddXY(50, 50)
	topLine := func() string {
		r, _ := p.Grid.CursorLocationForPosition(fyne.NewPos(1, 1))
		return p.Grid.RowText(r)
	}
	test.Scroll(m.Win.Canvas(), over, 0, 1e9)
	before := topLine()
	test.Scroll(m.Win.Canvas(), over, 0, 0.5)
	if got := topLine(); got != before {
		t.Errorf("paging in earlier text moved the view: %q at the top, was %q", got, before)
	}
	for i := 0; p.base > 0 && i < 100; i++ {
		test.Scroll(m.Win.Canvas(), over, 0, 1e9)
	}
	if p.text != string(file) || !strings.HasPrefix(p.Grid.Text(), strings.TrimSuffix(p.text, "\n")) || p.Earlier.Visible() {
		t.Fatalf("scrolled up to %q (Earlier offered: %v), want the whole log from its first line", p.Grid.RowText(0), p.Earlier.Visible())
	}

	want := 0
	for i := 1; i <= n; i++ {
		if strings.Contains(strconv.Itoa(i), "777") {
			want++
		}
	}
	test.Type(p.Find, "777")
	if p.Found.Text != view.FoundText(want) || len(p.Grid.Rows) != want {
		t.Errorf("Find 777 says %q and shows %d lines; the log has %d", p.Found.Text, len(p.Grid.Rows), want)
	}
	p.Find.SetText("")

	test.Tap(p.Copy)
	if got := m.App.Clipboard().Content(); got != string(file) {
		t.Errorf("Copy put %d characters on the clipboard, the log has %d", len(got), len(file))
	}
	if !strings.HasPrefix(p.Found.Text, fmt.Sprintf("Copied the whole log: %d lines", strings.Count(string(file), "\n"))) {
		t.Errorf("after Copy the pane says %q", p.Found.Text)
	}

	// Select the first three lines with the mouse, and copy them.
	p.Grid.ScrollToTop()
	h := p.rowHeight()
	// The drag reaches the overlay, not the grid's scroller under it.
	test.Drag(m.Win.Canvas(), absPos(p.Grid).AddXY(30, 3*h+h/2), 3, -2*h) // clear of the split handle on its left
	if !p.Select.has {
		t.Fatal("a drag over the log selects nothing")
	}
	// As the desktop driver sends a drag: where the pointer is, and how far it moved.
	// Rows 1 to 3, below the step's header line.
	start, end := fyne.NewPos(1, h+h/2), fyne.NewPos(4, 3*h+h/2)
	p.Select.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: start.AddXY(1, 1)}, Dragged: fyne.NewDelta(1, 1)})
	p.Select.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: end}, Dragged: fyne.NewDelta(end.X-start.X-1, end.Y-start.Y-1)})
	p.Select.DragEnd()
	p.Select.TypedShortcut(&fyne.ShortcutCopy{})
	if got := m.App.Clipboard().Content(); got != "1\n2\n3" {
		t.Errorf("the selection copied %.40q, want the first three lines", got)
	}
	if !strings.HasPrefix(p.Found.Text, "Copied the selection: 3 lines") {
		t.Errorf("after copying the selection the pane says %q", p.Found.Text)
	}
}
