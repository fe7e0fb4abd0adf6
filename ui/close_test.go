package ui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
)

// overlayButton finds the button labelled text in the top overlay of m's window, or nil.
func overlayButton(m *Main, text string) *widget.Button {
	top := m.Win.Canvas().Overlays().Top()
	if top == nil {
		return nil
	}
	for _, o := range test.LaidOutObjects(top) {
		if b, ok := o.(*widget.Button); ok && b.Text == text && b.Visible() {
			return b
		}
	}
	return nil
}

// overlayText joins the label texts of the top overlay.
func overlayText(m *Main) string {
	var s []string
	if top := m.Win.Canvas().Overlays().Top(); top != nil {
		for _, o := range test.LaidOutObjects(top) {
			if l, ok := o.(*widget.Label); ok {
				s = append(s, l.Text)
			}
		}
	}
	return strings.Join(s, " | ")
}

func windowOpen(m *Main) bool { return slices.Contains(m.App.Driver().AllWindows(), m.Win) }

func TestClosingWriterWithRunsGoingAsksFirst(t *testing.T) {
	home, w, m, q := writerUI(t)
	m.Win.Resize(fyne.NewSize(1000, 700))
	closed := false
	m.Win.SetOnClosed(func() { closed = true })
	addWorkflow(t, w, "long", "sleep", "30")
	if n := m.RunsGoingHere(); n != 0 {
		t.Fatalf("an idle writer has %d runs going", n)
	}

	// A reader on the same home has nothing to lose: it would close without asking.
	w2 := openCore(t, home)
	if err := w2.Start(); err != nil {
		t.Fatal(err)
	}
	m2, _ := newUI(t, w2)

	run, _, err := w.Intents().StartRun(context.Background(), "long", "")
	if err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the run running", func() bool { return w.Snapshot().Run(run.ID).Status == store.StatusRunning })
	if n := m2.RunsGoingHere(); n != 0 {
		t.Errorf("the reader counts %d runs going in it", n)
	}
	m2.RequestClose()
	if m2.Win.Canvas().Overlays().Top() != nil || windowOpen(m2) {
		t.Error("the reader asked before closing, or did not close")
	}

	// The close button asks; Cancel keeps the window and the run.
	m.RequestClose()
	cancel, closeBtn := overlayButton(m, "Cancel"), overlayButton(m, "Close")
	if cancel == nil || closeBtn == nil {
		t.Fatalf("no close confirmation in the overlays; top overlay says %q", overlayText(m))
	}
	if txt := overlayText(m); !strings.Contains(txt, "1 run is going in this window") || !strings.Contains(txt, "recorded as cancelled") {
		t.Errorf("confirmation says %q", txt)
	}
	m.RequestClose() // a second press while asking does not stack a second dialog
	if n := len(m.Win.Canvas().Overlays().List()); n != 1 {
		t.Errorf("%d overlays after a second close request, want 1", n)
	}
	test.Tap(cancel)
	q.settle(200 * time.Millisecond)
	if m.Win.Canvas().Overlays().Top() != nil || closed || !windowOpen(m) {
		t.Fatalf("after Cancel: overlay %v, closed %v, open %v", m.Win.Canvas().Overlays().Top() != nil, closed, windowOpen(m))
	}
	if r := w.Snapshot().Run(run.ID); r.Status != store.StatusRunning {
		t.Fatalf("after Cancel the run is %s, want running", r.Status)
	}

	// Ctrl+Q asks the same question.
	m.RequestQuit()
	if overlayButton(m, "Cancel") == nil {
		t.Fatal("Quit with a run going did not ask")
	}
	test.Tap(overlayButton(m, "Cancel"))

	// Close closes the window; main then closes the core, which cancels and records the run.
	m.RequestClose()
	test.Tap(overlayButton(m, "Close"))
	if !closed || windowOpen(m) {
		t.Fatalf("after Close: closed %v, open %v", closed, windowOpen(m))
	}
	m.Stop()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := w.Snapshot().Run(run.ID)
	if r.Status != store.StatusCancelled || r.Error == "" {
		t.Errorf("after closing, the run is %s with reason %q; want cancelled with a reason", r.Status, r.Error)
	}
	// The reader took over from the closed writer and sees the same record.
	deadline := time.Now().Add(10 * time.Second)
	for w2.Role() != host.RoleWriter && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if r2 := w2.Snapshot().Run(run.ID); r2 == nil || r2.Status != store.StatusCancelled {
		t.Errorf("the next writer sees the run as %+v, want cancelled", r2)
	}
}
