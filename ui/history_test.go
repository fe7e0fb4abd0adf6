package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"baton/host"
	"baton/store"
)

// finishRuns starts runs of workflow name and waits until n of its runs have finished,
// live or archived.
func finishRuns(t *testing.T, w *host.Core, name string, start, n int) {
	t.Helper()
	for range start {
		if _, _, err := w.Intents().StartRun(context.Background(), name, ""); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		page, err := w.Intents().History(store.HistoryQuery{Workflow: name, Limit: store.MaxHistoryLimit})
		if err != nil {
			t.Fatal(err)
		}
		done := 0
		for _, r := range page.Runs {
			if !r.Active() {
				done++
			}
		}
		if done >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d runs of %s finished", done, n, name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listed returns the ids of the rows of the runs list, top to bottom.
func listed(m *Main) []string {
	ids := make([]string, m.Runs.Length())
	for i := range ids {
		ids[i] = m.rowRun(i).ID
	}
	return ids
}

func TestRunsTabPagesThroughArchivedRuns(t *testing.T) {
	isolate(t)
	home := newHome(t)
	w := openCore(t, home)
	m, q := newUI(t, w)
	m.opts.HistoryPage = 20
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "writer", roleIs(m, "Writer"))
	addWorkflow(t, w, "quick", "echo", "hello from the past")
	addWorkflow(t, w, "other", "true")
	// More than 60 finished runs of one workflow make the store archive all but 50.
	const n = 75
	finishRuns(t, w, "quick", n, n)
	finishRuns(t, w, "other", 3, 3)

	all, err := w.Intents().History(store.HistoryQuery{Workflow: "quick", Limit: store.MaxHistoryLimit})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Runs) != n {
		t.Fatalf("History has %d runs of quick, want %d", len(all.Runs), n)
	}
	live := map[string]bool{}
	for _, r := range w.Snapshot().Runs {
		live[r.ID] = true
	}
	var archived []store.Run
	for _, r := range all.Runs {
		if !live[r.ID] {
			archived = append(archived, r)
		}
	}
	if len(archived) == 0 {
		t.Fatal("no run was archived; the test needs some")
	}
	oldest := all.Runs[len(all.Runs)-1]
	if live[oldest.ID] {
		t.Fatalf("the oldest run %s is still in workflows.json", oldest.ID)
	}
	q.waitFor(t, "the live runs listed", func() bool { return m.Runs.Length() == len(w.Snapshot().Runs) })
	m.Win.Resize(fyne.NewSize(1000, 700))
	m.ShowTab("Runs")

	m.RunsWorkflow.SetSelected("quick")
	for _, id := range listed(m) {
		if m.doc.Run(id).Workflow != "quick" {
			t.Fatalf("workflow filter lists run %s of %s", id, m.doc.Run(id).Workflow)
		}
	}
	if !m.RunsRecent.Disabled() || m.RunsOlder.Disabled() {
		t.Fatal("before any page: want Show older runs enabled and Recent only disabled")
	}

	// Each press shows older runs until the oldest is listed.
	presses := 0
	for !m.hist.Done {
		if presses++; presses > 10 {
			t.Fatalf("still not at the oldest run after %d presses; listed %d", presses, m.Runs.Length())
		}
		test.Tap(m.RunsOlder)
		if !m.hist.Loading {
			t.Fatal("Show older runs did not start reading")
		}
		q.waitFor(t, "a page of older runs", func() bool { return !m.hist.Loading })
		if m.hist.Err != nil {
			t.Fatal(m.hist.Err)
		}
		if presses == 1 && m.hist.Shown == 0 {
			t.Error("the first press listed no archived run")
		}
	}
	if presses < 2 {
		t.Errorf("reached the oldest run in %d press; the test wants paging", presses)
	}
	ids := listed(m)
	if len(ids) != n {
		t.Fatalf("listed %d runs of quick, want all %d", len(ids), n)
	}
	for i, r := range all.Runs {
		if ids[i] != r.ID {
			t.Fatalf("row %d is %s, want %s (newest first, live and archived merged)", i, ids[i], r.ID)
		}
	}
	now := map[string]bool{}
	for _, r := range w.Snapshot().Runs {
		now[r.ID] = true
	}
	shown := map[string]bool{}
	for _, id := range ids {
		shown[id] = true
	}
	for _, r := range archived {
		if now[r.ID] || !shown[r.ID] {
			t.Errorf("archived run %s: in Snapshot().Runs %v, listed %v; want listed and not in the snapshot", r.ID, now[r.ID], shown[r.ID])
		}
	}
	if !m.RunsOlder.Disabled() || !strings.Contains(m.RunsArchive.Text, "Every run is listed") {
		t.Errorf("at the oldest page: button disabled %v, label %q", m.RunsOlder.Disabled(), m.RunsArchive.Text)
	}
	if want := len(archived); m.hist.Shown != want {
		t.Errorf("%d archived runs listed, want %d", m.hist.Shown, want)
	}

	// The oldest run, no longer in workflows.json, opens in the run view with its log.
	m.Runs.Select(len(ids) - 1)
	if m.RunView.Title.Text != "Run "+oldest.ID+" of quick" || m.RunView.Status.Text != store.StatusSucceeded {
		t.Errorf("run view shows %q, %q; want the oldest run, succeeded", m.RunView.Title.Text, m.RunView.Status.Text)
	}
	if oldest.Log != filepath.Join(w.Home(), "runs", oldest.ID+".log") {
		t.Errorf("oldest run's log is %q", oldest.Log)
	}
	q.waitFor(t, "the archived run's log", func() bool { return strings.Contains(m.RunView.Log.Text(), "\nhello from the past\n") }) // the output, not the command line
	if !m.RunView.Cancel.Disabled() {
		t.Error("Cancel is enabled for a finished archived run")
	}

	// A status filter is part of the query: the loaded pages are dropped and read again.
	m.RunsStatus.SetSelected(store.StatusFailed)
	q.waitFor(t, "the failed runs read", func() bool { return !m.hist.Loading })
	if m.Runs.Length() != 0 || !m.hist.Done {
		t.Errorf("no run failed, but %d are listed (done %v)", m.Runs.Length(), m.hist.Done)
	}
	m.RunsStatus.SetSelected(allStatuses)
	q.waitFor(t, "the first page again", func() bool { return !m.hist.Loading })

	// New runs still appear at the top while archived runs are listed.
	finishRuns(t, w, "quick", 1, n+1)
	q.waitFor(t, "the new run listed first", func() bool {
		d := w.Snapshot()
		return m.Runs.Length() > 0 && m.rowRun(0).ID == d.Runs[len(d.Runs)-1].ID
	})

	test.Tap(m.RunsRecent)
	if m.hist.Shown != 0 || m.Runs.Length() > len(m.doc.Runs) || !m.RunsRecent.Disabled() {
		t.Errorf("Recent only: %d archived runs still listed, %d rows", m.hist.Shown, m.Runs.Length())
	}
}
