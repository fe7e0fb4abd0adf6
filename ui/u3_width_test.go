package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

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
func widthsWith(t *testing.T, w *host.Window, m *Main, q *uiQueue, name string) map[string]float32 {
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
