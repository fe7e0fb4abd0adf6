package view

import (
	"strings"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
)

// TestSecondsScheduleKeepsItsSeconds (issue 22, bug 7): a 10 s schedule's preview and
// its row's next time say the seconds; times on whole minutes keep the short form.
func TestSecondsScheduleKeepsItsSeconds(t *testing.T) {
	ts := []time.Time{at(14, 21, 0), at(14, 21, 10), at(14, 21, 20)}
	got := strings.Split(PreviewText(localOcc(ts)), "\n")[1:]
	seen := map[string]bool{}
	for _, line := range got {
		if seen[line] {
			t.Errorf("preview %q says %q twice", got, line)
		}
		seen[line] = true
	}
	if !strings.Contains(got[1], "14:21:10") {
		t.Errorf("preview %q, want 14:21:10 on its second line", got)
	}
	whole := strings.Split(PreviewText(localOcc([]time.Time{at(14, 21, 0), at(14, 22, 0)})), "\n")[1]
	if strings.Contains(whole, "14:21:00") {
		t.Errorf("a whole-minute preview %q says seconds", whole)
	}
	sc := store.Schedule{Workflow: "w", Every: store.Duration(10 * time.Second), NextDue: at(13, 0, 0)}
	if row := ScheduleRowOf(&store.Doc{}, &sc, at(12, 59, 55)); !strings.HasPrefix(row.Detail, "next 13:00:00 ") {
		t.Errorf("a 10 s schedule's row says %q, want next 13:00:00", row.Detail)
	}
}

// localOcc makes ts occurrences in local time, with no clock change.
func localOcc(ts []time.Time) []workflow.Occurrence {
	occ := make([]workflow.Occurrence, len(ts))
	for i, t := range ts {
		abbr, off := t.Local().Zone()
		occ[i] = workflow.Occurrence{At: t.Local(), Zone: "Local", Abbrev: abbr, Offset: time.Duration(off) * time.Second}
	}
	return occ
}
