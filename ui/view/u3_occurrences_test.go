package view

import (
	"strings"
	"testing"
	"time"

	"baton/store"
)

// TestSkippedOccurrencesReadable (issue 22, daily use 5): a schedule's skips in a row are
// one Activity line with a count, naming the workflow (not the schedule's id) and the due
// times as people read them, saying why; other lines stay; the skips are counted for the
// Schedules tab; the filter keeps the lines of a workflow or a kind.
func TestSkippedOccurrencesReadable(t *testing.T) {
	now := at(14, 30, 0)
	doc := &store.Doc{Schedules: []store.Schedule{{ID: "s-7f3a", Workflow: "backup", Every: store.Duration(10 * time.Second)}}}
	skip := func(due time.Time) store.Entry {
		return store.Entry{Time: due, Kind: store.KindSkipped, Data: map[string]any{"schedule": "s-7f3a", "run": "r12",
			"due": due.UTC().Format(time.RFC3339Nano)}}
	}
	es := []store.Entry{skip(at(14, 21, 10)), skip(at(14, 21, 20)), skip(at(14, 21, 30)),
		{Time: at(14, 22, 0), Kind: store.KindShutdown, PID: 7}, skip(at(14, 22, 10))}
	got := ActivityOf(nil, es, now, doc)
	if len(got) != 3 {
		t.Fatalf("%d lines, want 3 (the three skips in a row folded): %+v", len(got), got)
	}
	folded := got[2].What
	for _, want := range []string{"The schedule of backup (every 10s) skipped 3 occurrences", "14:21:10 to 14:21:30", "run r12 was still going"} {
		if !strings.Contains(folded, want) {
			t.Errorf("the folded line %q does not say %q", folded, want)
		}
	}
	if strings.Contains(folded, "s-7f3a") {
		t.Errorf("the line names the schedule's id: %q", folded)
	}
	if c := SkipCounts(es)["s-7f3a"]; c != 4 {
		t.Errorf("%d skips counted, want 4", c)
	}
	if s := SkipText(4); !strings.Contains(s, "4 occurrences skipped") {
		t.Errorf("the row says %q", s)
	}
	if n := len(FilterActivity(ActivityOf(nil, es, now, doc), "backup")); n != 2 {
		t.Errorf("filtering by workflow keeps %d lines, want 2", n)
	}
}
