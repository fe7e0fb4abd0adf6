package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"baton/store"
)

// TestHiddenTabsJoinTheWindowWhenShown: at launch only the Workflow tab's content is in
// the window; the run view's log follows the selected run without its grid (whose first
// refresh loads the monospace fonts, emoji font included), and the Runs tab, once shown,
// holds the log read so far and keeps following it. The waits look for the output's two
// lines together: the log's first line names the command, which holds both words.
func TestHiddenTabsJoinTheWindowWhenShown(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "noisy", "sh", "-c", "echo first-line; echo second-line")
	q.waitFor(t, "the workflow listed", func() bool { return m.Workflows.Length() == 1 })
	m.OpenWorkflow("noisy")
	test.Tap(m.Editor.RunNow)
	q.waitFor(t, "the run's log read", func() bool {
		return m.RunView.Status.Text == store.StatusSucceeded && strings.Contains(m.RunView.LogPane.text, "first-line\nsecond-line")
	})

	tabs := map[string]fyne.CanvasObject{"Runs": m.RunView.Log, "Timeline": m.Timeline, "Schedules": m.Schedules.obj, "Activity": m.Activity}
	for title, o := range tabs {
		if holds(tabContent(m, title), o) {
			t.Errorf("the %s tab holds its content before it was shown", title)
		}
	}
	if got := m.RunView.Log.Text(); got != "" {
		t.Errorf("the log grid was filled before its tab was shown: %q", got)
	}

	m.ShowTab("Runs")
	if !holds(tabContent(m, "Runs"), m.RunView.Log) {
		t.Fatal("the Runs tab's content did not join the window when shown")
	}
	if got := m.RunView.Log.Text(); !strings.Contains(got, "first-line\nsecond-line") {
		t.Errorf("the shown log is %q, want the log read so far", got)
	}
	test.Tap(m.Editor.RunNow) // a second run: the log view follows it, now shown
	q.waitFor(t, "the second run's log shown", func() bool {
		return len(m.doc.Runs) == 2 && m.selRun == m.doc.Runs[1].ID && strings.Contains(m.RunView.Log.Text(), "first-line\nsecond-line")
	})
	for title, o := range tabs {
		m.ShowTab(title)
		if !holds(tabContent(m, title), o) {
			t.Errorf("the %s tab's content did not join the window when shown", title)
		}
	}
}

// tabContent is the content of the tab with the given title.
func tabContent(m *Main, title string) fyne.CanvasObject {
	for _, it := range m.Tabs.Items {
		if it.Text == title {
			return it.Content
		}
	}
	return nil
}

// holds reports whether o is in the tree of root, shown or hidden.
func holds(root, o fyne.CanvasObject) bool {
	found := false
	walkObjects(root, func(x fyne.CanvasObject) { found = found || x == o })
	return found
}
