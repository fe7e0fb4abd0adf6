package ui

import (
	"context"
	"image/color"
	"os"
	"strings"
	"testing"

	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

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
	// The writer wrote the line into the run's log file (`baton logs` shows it); the
	// window shows that line, once, not a second drawn after it.
	ended := m.doc.Run(run.ID)
	line := view.EndLine(ended)
	if b, err := os.ReadFile(ended.Log); err != nil || !view.EndsWithLine(string(b), line) {
		t.Errorf("the run's log file is %q (%v), want it to end with %q", b, err, line)
	}
	q.waitFor(t, "the end line read from the file", func() bool { return strings.Contains(v.LogPane.text, line) })
	if n := strings.Count(g.Text(), "== run failed"); n != 1 {
		t.Errorf("the log shows its end line %d times:\n%s", n, g.Text())
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

// TestLogEndLineShownOnce: the log pane shows the run's end line once, coloured, whether
// the log file ends with it (the writer wrote it), lacks it (a run recorded before the
// writer wrote it, a log cut by a full disk: the pane draws it), or has it read only
// after the run's end was seen.
func TestLogEndLineShownOnce(t *testing.T) {
	line := "== run failed at step 1 of 1: step 1 exited with code 3"
	for _, c := range []struct{ name, text, more string }{
		{"a log without the line", "working\n", ""},
		{"a log ending with it", "working\n" + line + "\n", ""},
		{"the line read after the end was seen", "working\n", line + "\n"},
		{"after a last line without a newline", "working", "\n" + line + "\n"},
	} {
		p := newLogPane(nil)
		p.attach()
		p.reset(c.text)
		p.setEnd(line, view.ToneError)
		if c.more != "" {
			p.append(c.more)
		}
		g := p.Grid
		if n := strings.Count(g.Text(), line); n != 1 {
			t.Errorf("%s: the end line is shown %d times:\n%s", c.name, n, g.Text())
			continue
		}
		last := len(g.Rows) - 1
		st, ok := g.Rows[last].Style.(*widget.CustomTextGridStyle)
		if g.RowText(last) != line || !ok || st.FGColor != color.Color(theme.Color(theme.ColorNameError)) {
			t.Errorf("%s: the last row is %q, styled %+v: want the end line in the error colour", c.name, g.RowText(last), g.Rows[last].Style)
		}
	}
}
