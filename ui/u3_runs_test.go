package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2"
)

// TestRunsListStaysPutWhenARunArrives (issue 22, bug 4): with the person scrolled down
// the runs list and a run selected above the view, a new run at the top moves neither the
// row at the top of the view nor the selection; Run now still shows its new run.
func TestRunsListStaysPutWhenARunArrives(t *testing.T) {
	isolate(t)
	home := newHome(t)
	seedHome(t, home, 2, 60)
	core := openCore(t, home)
	m, q := newUI(t, core)
	if err := core.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "writer", roleIs(m, "Writer"))
	m.ShowTab("Runs")
	m.Win.Resize(fyne.NewSize(1000, 700))
	n := m.Runs.Length()
	if n < 30 {
		t.Fatalf("%d runs listed, want the seeded ones", n)
	}
	m.Runs.Select(10)
	picked := m.selRun
	top := func() string { return m.rowRun(int(m.Runs.GetScrollOffset() / m.runStride())).ID }
	m.Runs.ScrollToOffset(20 * m.runStride())
	off, before := m.Runs.GetScrollOffset(), top()
	if off == 0 {
		t.Fatal("the runs list does not scroll: make the window smaller")
	}
	if _, _, err := core.Intents().RunNow(context.Background(), "workflow 0000", ""); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the new run listed", func() bool { return m.Runs.Length() == n+1 })
	if got := top(); got != before {
		t.Errorf("a new run moved the list: %s is at the top of the view, was %s", got, before)
	}
	if m.selRun != picked {
		t.Errorf("selected run %s, want %s", m.selRun, picked)
	}
	m.ShowRun(m.rowRun(0).ID)
	if m.Runs.GetScrollOffset() != 0 {
		t.Errorf("ShowRun of the newest run left the list at %v, not at its top", m.Runs.GetScrollOffset())
	}
}
