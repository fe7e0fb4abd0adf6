package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"baton/host"
	"baton/store"
)

// TestLongNameNeverWidensTheWindow (issue 22, bug 1): a workflow with a 200-character
// name, opened, run and scheduled, needs no wider a window on any tab than a workflow
// with a short name; the whole name is still there to read (the editor's name field).
func TestLongNameNeverWidensTheWindow(t *testing.T) {
	_, w, m, q := writerUI(t)
	m.Win.Resize(fyne.NewSize(900, 600))
	widthsWith(t, w, m, q, "first") // every tab attached, a run and a schedule shown
	short := widthsWith(t, w, m, q, "short")
	long := strings.Repeat("a-very-long-name ", 6) + strings.Repeat("x", 98) // words, then one long one
	got := widthsWith(t, w, m, q, long)
	for tab, wd := range got {
		if wd > short[tab] {
			t.Errorf("on the %s tab the long name makes the window at least %.0f wide (%.0f with a short one)", tab, wd, short[tab])
		}
	}
	if m.Editor.Name.Text != long {
		t.Errorf("the editor's name field holds %q, want the whole name", m.Editor.Name.Text)
	}
}

// widthsWith adds workflow name, opens it, runs it, schedules it, shows its run and
// schedule, and returns the window's minimum width on each tab.
func widthsWith(t *testing.T, w *host.Core, m *Main, q *uiQueue, name string) map[string]float32 {
	t.Helper()
	ctx := context.Background()
	addWorkflow(t, w, name, "true")
	q.waitFor(t, "the workflow listed", func() bool { return m.doc.Workflow(name) != nil })
	m.OpenWorkflow(name)
	id, _, err := w.Intents().RunNow(ctx, name, "")
	if err != nil {
		t.Fatal(err)
	}
	sc, _, err := w.Intents().AddSchedule(ctx, store.Schedule{Workflow: name, Every: store.Duration(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the run and schedule listed", func() bool { return m.doc.Run(id) != nil && len(m.doc.Schedules) > 0 })
	widths := map[string]float32{}
	for _, tab := range []string{"Workflow", "Runs", "Timeline", "Schedules", "Activity"} {
		m.ShowTab(tab)
		switch tab {
		case "Runs":
			m.ShowRun(id)
		case "Schedules":
			for i := range m.doc.Schedules {
				if m.doc.Schedules[i].ID == sc.ID {
					m.Schedules.List.Select(i)
				}
			}
		}
		widths[tab] = m.Win.Content().MinSize().Width
	}
	return widths
}

// TestWheelOverTheFocusedFieldScrollsTheForm (issue 22, bug 6): the wheel over the field
// that has the focus scrolls the form, as over the others, while its text fits; a text
// longer than the field still scrolls under the caret.
func TestWheelOverTheFocusedFieldScrollsTheForm(t *testing.T) {
	_, w, m, q := writerUI(t)
	steps := make([]store.Step, 4)
	for i := range steps {
		steps[i] = store.Step{Argv: []string{"echo", "hi"}}
	}
	if _, err := w.Intents().AddWorkflow(context.Background(), store.Workflow{Name: "tall", Steps: steps}); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("tall")
	m.Win.Resize(fyne.NewSize(1000, 600))
	relayout(m)
	for _, en := range []*ScrollEntry{m.Editor.Steps[0].Args[1], m.Editor.Steps[0].Env, m.Editor.MaxConcurrent} {
		m.Editor.scroll.ScrollToTop()
		m.Win.Canvas().Focus(en)
		test.Type(en, "1")
		test.Scroll(m.Win.Canvas(), absPos(en).AddXY(10, 10), 0, -120)
		if y := m.Editor.scroll.Offset.Y; y <= 0 {
			t.Errorf("the wheel over the focused field %q left the editor at offset %v", en.Text, y)
		}
	}
	arg := m.Editor.Steps[0].Args[1]
	m.Win.Canvas().Focus(arg)
	test.Type(arg, strings.Repeat(" and more", 30))
	if arg.Scroll != fyne.ScrollBoth {
		t.Errorf("a focused field with text longer than it has scroll %v, want its own scroller", arg.Scroll)
	}
}

// TestLogMessagesNeverWidenTheWindow (issue 22, bug 1): what the log pane says after
// Copy or Find ("Copied the whole log: 200000 lines, …") ends in an ellipsis rather than
// widen the window.
func TestLogMessagesNeverWidenTheWindow(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "count", "seq", "1", "50")
	run, _, err := w.Intents().StartRun(context.Background(), "count", "")
	if err != nil {
		t.Fatal(err)
	}
	m.ShowRun(run.ID)
	m.Win.Resize(fyne.NewSize(800, 600))
	q.waitFor(t, "the log", func() bool { return strings.Contains(m.RunView.LogPane.text, "\n50\n") })
	before := m.Win.Content().MinSize().Width
	m.RunView.LogPane.Found.SetText("Copied the whole log: " + strings.Repeat("a long message ", 30))
	if after := m.Win.Content().MinSize().Width; after > before {
		t.Errorf("a long message in the log pane makes the window at least %.0f wide (%.0f before)", after, before)
	}
}
