package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"baton/store"
)

// newLogTestPane returns a log pane in a window of the given size, with lines lines.
func newLogTestPane(t *testing.T, size fyne.Size, lines int) (*LogPane, fyne.App, fyne.Window) {
	t.Helper()
	isolate(t)
	a := test.NewTempApp(t)
	p := newLogPane(a.Clipboard)
	p.attach()
	w := test.NewWindow(p.obj)
	t.Cleanup(w.Close)
	w.Resize(size)
	var b strings.Builder
	for i := range lines {
		b.WriteString(strings.Repeat("x", i%7) + " line\n")
	}
	p.reset(b.String())
	return p, a, w
}

// visibleRows is how many rows of the grid fit its height.
func visibleRows(g *widget.TextGrid) float32 {
	h := g.PositionForCursorLocation(1, 0).Y - g.PositionForCursorLocation(0, 0).Y
	return g.Size().Height / h
}

// TestLogLinesStayAdjacentAcrossReads reads a log file through the tail as it grows, in
// pieces that end a line, end mid-line and hold several lines: the log view shows the
// file's text, with no blank line between lines adjacent in the file.
func TestLogLinesStayAdjacentAcrossReads(t *testing.T) {
	p, _, _ := newLogTestPane(t, fyne.NewSize(600, 400), 0)
	v := &RunView{LogPane: p, Log: p.Grid}
	path := filepath.Join(t.TempDir(), "run.log")
	var tl tail
	v.logGen = tl.follow(&store.Run{ID: "r1", Log: path})
	var file string
	for _, piece := range []string{"first\n", "second\n", "thi", "rd\nfourth\nfif", "th\n"} {
		file += piece
		if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
		v.appendLog(tl.read())
		if got := v.Log.Text(); got != file {
			t.Fatalf("after reading %q the log shows %q, want %q", piece, got, file)
		}
	}
}

// TestLogFollowsTheEndUntilScrolledUp: new lines scroll into view while the person is
// at the bottom; after scrolling up, new lines leave the view where it is; End resumes.
func TestLogFollowsTheEndUntilScrolledUp(t *testing.T) {
	p, _, w := newLogTestPane(t, fyne.NewSize(600, 300), 200)
	atEnd := func() bool { return p.Grid.PositionForCursorLocation(len(p.Grid.Rows)-1, 0).Y < p.Grid.Size().Height }
	if !atEnd() {
		t.Fatal("a new log does not show its end")
	}
	p.append("new line\n")
	if !atEnd() || !p.atBottom() {
		t.Fatal("a line added while at the end is not shown")
	}
	// The person scrolls up with the wheel, over the grid.
	test.Scroll(w.Canvas(), fyne.NewPos(100, 150), 0, 2000)
	top := p.Grid.PositionForCursorLocation(0, 0).Y
	if top < 0 && p.atBottom() {
		t.Fatalf("scrolled up (first row at %v) but still at the bottom", top)
	}
	p.append("another\n")
	if atEnd() || p.Grid.PositionForCursorLocation(0, 0).Y != top {
		t.Fatal("the log scrolled to its end while the person was reading above it")
	}
	// Up to the first line: still no following.
	test.Scroll(w.Canvas(), fyne.NewPos(100, 150), 0, 100000)
	p.append("yet another\n")
	if p.Grid.PositionForCursorLocation(0, 0).Y != 0 {
		t.Fatal("the log scrolled away from its first line while the person was reading it")
	}
	test.Tap(p.End)
	p.append("and one more\n")
	if !atEnd() {
		t.Fatal("End did not resume following")
	}
}

// TestLogFindShowsMatchingLinesMarked: Find keeps only the lines with its text (any
// case), marks the text, counts the lines, and keeps filtering lines that arrive.
func TestLogFindShowsMatchingLinesMarked(t *testing.T) {
	p, _, _ := newLogTestPane(t, fyne.NewSize(600, 300), 0)
	p.reset("start\nERROR: disk full\nok\nretry: error again\n")
	test.Type(p.Find, "error")
	if got, want := p.Grid.Text(), "ERROR: disk full\nretry: error again"; got != want {
		t.Errorf("find shows %q, want %q", got, want)
	}
	if p.Found.Text != "2 lines match" {
		t.Errorf("found %q", p.Found.Text)
	}
	if st := p.Grid.Rows[1].Cells[7].Style; st == nil || st.BackgroundColor() == nil {
		t.Error("the match is not marked")
	}
	if st := p.Grid.Rows[1].Cells[0].Style; st != nil && st.BackgroundColor() != nil {
		t.Error("text outside the match is marked")
	}
	p.append("fine\nlast error\n")
	if got := p.Grid.Text(); !strings.HasSuffix(got, "\nlast error") || strings.Contains(got, "fine") {
		t.Errorf("lines read while finding: the grid shows %q", got)
	}
	p.Find.SetText("")
	if got, want := p.Grid.Text(), p.text; got != want {
		t.Errorf("cleared find shows %q, want the whole log %q", got, want)
	}
}

// TestLogCopyPutsTheWholeLogOnTheClipboard, also while Find shows only some lines.
func TestLogCopyPutsTheWholeLogOnTheClipboard(t *testing.T) {
	p, a, _ := newLogTestPane(t, fyne.NewSize(600, 300), 500)
	p.append("tail\n")
	test.Type(p.Find, "tail")
	test.Tap(p.Copy)
	if got := a.Clipboard().Content(); got != p.text || !strings.HasSuffix(got, "line\ntail\n") || strings.Count(got, "\n") != 501 {
		t.Errorf("clipboard holds %d bytes, want the whole log of %d", len(got), len(p.text))
	}
}

// minLogRows is the fewest log lines the run view shows in a window of 700 by 600.
const minLogRows = 10

// TestLogGetsMostOfTheRunsTab: in the window at its first size, and at 700 by 600, a
// chosen run's log shows many lines, not three.
func TestLogGetsMostOfTheRunsTab(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "chatty", "seq", "1", "300")
	run, _, err := w.Intents().StartRun(context.Background(), "chatty", "")
	if err != nil {
		t.Fatal(err)
	}
	m.ShowRun(run.ID)
	q.waitFor(t, "the log", func() bool { return strings.Contains(m.RunView.Log.Text(), "\n300\n") })
	for _, size := range []fyne.Size{DefaultSize, fyne.NewSize(700, 600)} {
		m.Win.Resize(size)
		n := visibleRows(m.RunView.Log)
		if n < minLogRows {
			t.Errorf("at %v the log shows %.1f lines, want at least %d", size, n, minLogRows)
		}
		t.Logf("at %v: %.1f lines", size, n)
	}
}

// TestLogOfARunWhoseLogIsGone: a finished run whose log file was removed (by history
// retention, or by hand) says so in the log pane instead of showing an empty log; a run
// whose log is there shows it.
func TestLogOfARunWhoseLogIsGone(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "quick", "echo", "out-of-quick")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	var ids []string
	for range 2 {
		run, _, err := w.Intents().StartRun(context.Background(), "quick", "")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, run.ID)
		q.waitFor(t, "the run to end", func() bool { r := w.Snapshot().Run(run.ID); return r != nil && !r.Active() })
	}
	m.ShowRun(ids[1])
	q.waitFor(t, "the second run's log", func() bool { return strings.Contains(m.RunView.Log.Text(), "\nout-of-quick\n") })
	if strings.Contains(m.RunView.Log.Text(), "log is gone") {
		t.Fatalf("a run whose log is there says it is gone: %q", m.RunView.Log.Text())
	}
	gone := w.Snapshot().Run(ids[0])
	if err := os.Remove(gone.Log); err != nil {
		t.Fatal(err)
	}
	m.ShowRun(ids[0])
	if got := m.RunView.Log.Text(); !strings.Contains(got, "log is gone") {
		t.Fatalf("the log pane of run %s, whose log is gone, shows %q", ids[0], got)
	}
}

// TestLogGoneOnlyForAFinishedRunThatStarted: a run that never started (cancelled while
// queued) or is still going has no log to miss.
func TestLogGoneOnlyForAFinishedRunThatStarted(t *testing.T) {
	dir := t.TempDir()
	there := filepath.Join(dir, "there.log")
	if err := os.WriteFile(there, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.log")
	at := time.Now()
	for _, c := range []struct {
		r    store.Run
		gone bool
	}{
		{store.Run{Status: store.StatusSucceeded, Log: missing, Started: at}, true},
		{store.Run{Status: store.StatusSucceeded, Log: there, Started: at}, false},
		{store.Run{Status: store.StatusCancelled, Log: missing}, false}, // cancelled while queued
		{store.Run{Status: store.StatusRunning, Log: missing, Started: at}, false},
		{store.Run{Status: store.StatusQueued, Log: missing}, false},
	} {
		if got := logGone(&c.r) != ""; got != c.gone {
			t.Errorf("%s run (started %v, log %s): gone %v, want %v", c.r.Status, !c.r.Started.IsZero(), filepath.Base(c.r.Log), got, c.gone)
		}
	}
}
