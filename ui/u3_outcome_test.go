package ui

import (
	"context"
	"strings"
	"testing"

	"baton/ui/view"
)

// TestWhyDidItFail (issue 22, daily use 1): a failed run says how it ended first, under
// its title and above its facts; its log ends with a line that says so; its row says
// "failed" and when it started; the split handles are where the person left them in the
// next window on the home.
func TestWhyDidItFail(t *testing.T) {
	_, w, m, q := writerUI(t)
	addWorkflow(t, w, "broken", "sh", "-c", "echo working; exit 3")
	run, _, err := w.Intents().StartRun(context.Background(), "broken", "")
	if err != nil {
		t.Fatal(err)
	}
	m.ShowRun(run.ID)
	m.Win.Resize(DefaultSize)
	q.waitFor(t, "the run failed", func() bool { r := m.doc.Run(run.ID); return r != nil && r.Status == "failed" })
	v := m.RunView
	if !v.Error.Visible() || !strings.HasPrefix(v.Error.Text, "Failed: ") {
		t.Fatalf("the run view's outcome line says %q (shown: %v)", v.Error.Text, v.Error.Visible())
	}
	if absPos(v.Error).Y > absPos(v.Status).Y {
		t.Errorf("the outcome is drawn below the facts (at %.0f, the status at %.0f)", absPos(v.Error).Y, absPos(v.Status).Y)
	}
	if s := v.Error.Size(); absPos(v.Error).Y+s.Height > absPos(v.LogPane.obj).Y {
		t.Errorf("the outcome (down to %.0f) is not in view above the log (at %.0f)", absPos(v.Error).Y+s.Height, absPos(v.LogPane.obj).Y)
	}
	q.waitFor(t, "the log read", func() bool { return strings.Contains(v.LogPane.text, "working\n") })
	g := v.LogPane.Grid
	if end := g.RowText(len(g.Rows) - 1); !strings.Contains(end, "run failed") || !strings.Contains(end, "code 3") ||
		!strings.Contains(g.Text(), "working\n== run failed") {
		t.Errorf("the log ends with %q", end)
	}
	row := view.RowOf(m.doc.Run(run.ID), m.st.PID, m.opts.Now())
	if !strings.Contains(row.Step, "failed") {
		t.Errorf("the run's row says %q", row.Step)
	}

	m.mainSplit.SetOffset(0.31)
	m.runsSplit.SetOffset(0.44)
	v.split.SetOffset(0.18)
	m.SaveWindowSize()
	m2 := New(m.App, w, Options{Do: q.Do})
	t.Cleanup(m2.Stop)
	for name, want := range map[string]float64{"sidebar": 0.31, "runs": 0.44, "run": 0.18} {
		if got := m2.splits()[name].Offset; got != want {
			t.Errorf("the next window's %s split is at %v, want %v", name, got, want)
		}
	}
}
