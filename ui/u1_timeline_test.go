package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"baton/store"
)

// TestTimelineDrawsEachLabelAtItsGridline: over a window that starts off a round time,
// each axis label is drawn centred on its gridline, and the gridlines sit where their
// times fall, between the start (left of the plot) and now (right).
func TestTimelineDrawsEachLabelAtItsGridline(t *testing.T) {
	isolate(t)
	test.NewTempApp(t)
	now := time.Date(2026, 5, 4, 11, 33, 20, 0, time.Local) // the window starts at 11:23:20
	tl := NewTimeline()
	w := test.NewWindow(tl)
	defer w.Close()
	w.Resize(fyne.NewSize(860, 200))
	tl.set(&store.Doc{Runs: []store.Run{{Workflow: "w", Status: store.StatusSucceeded, Started: now.Add(-9 * time.Minute),
		Ended: now.Add(-8 * time.Minute)}}}, now)
	r := test.WidgetRenderer(tl).(*timelineRenderer)
	from := now.Add(-tl.model.Period)
	plotW := tl.Size().Width - tlLabelW - 2*theme.Padding()
	want := []string{"11:24", "11:26", "11:28", "11:30", "11:32"}
	if len(tl.model.Ticks) != len(want) {
		t.Fatalf("ticks %v, want %v", tl.model.Ticks, want)
	}
	for i, label := range want {
		at, _ := time.ParseInLocation("15:04", label, time.Local)
		at = time.Date(now.Year(), now.Month(), now.Day(), at.Hour(), at.Minute(), 0, 0, time.Local)
		x := tlLabelW + plotW*float32(at.Sub(from))/float32(tl.model.Period)
		g, tx := r.grid[i], r.ticks[i]
		if tx.Text != label || abs32(g.Position1.X-x) > 0.5 || abs32(tx.Position().X+tx.MinSize().Width/2-x) > 0.5 {
			t.Errorf("tick %d: %q with gridline at %.1f, label centred at %.1f; want %q at %.1f",
				i, tx.Text, g.Position1.X, tx.Position().X+tx.MinSize().Width/2, label, x)
		}
	}
}

func abs32(f float32) float32 { return max(f, -f) }
