package view

import (
	"strings"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
)

// TestPreviewAcrossAClockChange (issue 24): the preview names the zone, says the shift
// of an occurrence after a clock change, and says how a change moved one; the Schedules
// tab's next time does the same, in the schedule's zone.
func TestPreviewAcrossAClockChange(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone database")
	}
	now := time.Date(2026, 3, 28, 12, 0, 0, 0, berlin)
	for _, c := range []struct {
		cron string
		want []string
	}{
		{"0 3 * * *", []string{"Times in Europe/Berlin:", "Sun 29 Mar 03:00 CEST (+1h: clocks went forward)", "Mon 30 Mar 03:00 CEST"}},
		{"30 2 * * *", []string{"Times in Europe/Berlin:", "Sun 29 Mar 03:00 CEST (+1h: clocks went forward)",
			"    A time it names is skipped on Sun 29 Mar 2026 (clocks go from 02:00 to 03:00 CEST): runs right after the change",
			"Mon 30 Mar 02:30 CEST"}},
		{"*/20 2-3 * * *", []string{"Times in Europe/Berlin:", "Sun 29 Mar 03:00 CEST (+1h: clocks went forward)", "Sun 29 Mar 03:20 CEST"}},
	} {
		sc := store.Schedule{Workflow: "w", Cron: c.cron, TZ: "Europe/Berlin"}
		occ, err := workflow.Upcoming(&sc, now, 3)
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(PreviewText(occ), "\n")
		if len(got) < len(c.want) || strings.Join(got[:len(c.want)], "\n") != strings.Join(c.want, "\n") {
			t.Errorf("preview of %q from %v:\n%s\nwant it to start\n%s", c.cron, now, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
	sc := store.Schedule{Workflow: "w", Cron: "30 2 * * *", TZ: "Europe/Berlin", NextDue: time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)}
	if row, want := ScheduleRowOf(&store.Doc{}, &sc, now), "next 29 Mar 03:00 CEST (+1h: clocks went forward) · "; !strings.HasPrefix(row.Detail, want) {
		t.Errorf("row %q, want it to start %q", row.Detail, want)
	}
	sc.NextDue = time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC) // a day without a change, before it
	sc.Cron = "0 0 * * *"
	if row, want := ScheduleRowOf(&store.Doc{}, &sc, now), "next 29 Mar 00:00 CET · "; !strings.HasPrefix(row.Detail, want) {
		t.Errorf("row %q, want it to start %q", row.Detail, want)
	}
}
