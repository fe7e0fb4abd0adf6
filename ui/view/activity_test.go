package view

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
)

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		e    store.Entry
		want string
	}{
		{store.Entry{Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "w", "owner_pid": float64(41),
			"action": "failed", "evidence": "instance lock free"}},
			"Run r3 of w failed: its window pid 41 had died (instance lock free)"},
		{store.Entry{Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "w", "owner_pid": float64(41),
			"action": "requeued", "evidence": "x"}},
			"Run r3 of w was queued again: its window pid 41 had died (x)"},
		{store.Entry{Kind: "takeover", PID: 9, Data: map[string]any{"old_owner": map[string]any{"pid": float64(41)},
			"reaped": []any{map[string]any{}, map[string]any{}}, "epoch": float64(3), "took_ms": 1.5}},
			"Window pid 9 became the writer, taking over from pid 41; it reaped 2 runs the old writer left running (in 1.5 ms)"},
		{store.Entry{Kind: "takeover", PID: 9, Data: map[string]any{"epoch": float64(1), "took_ms": float64(2)}},
			"Window pid 9 became the writer (in 2 ms)"},
		{store.Entry{Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "backup", "owner_pid": float64(41),
			"action": "adopted", "evidence": "instance lock free"}},
			"Run r3 of backup was adopted from window pid 41, which closed or died; it keeps running"},
		{store.Entry{Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "backup", "owner_pid": float64(41),
			"action": "recorded", "evidence": "instance lock free", "status": "succeeded"}},
			"Run r3 of backup finished while no window followed it; recorded from its journal (succeeded)"},
		{store.Entry{Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "backup", "owner_pid": float64(41),
			"action": "recorded", "status": "failed", "error": "exit code 2"}},
			"Run r3 of backup finished while no window followed it; recorded from its journal (failed: exit code 2)"},
		{store.Entry{Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "backup", "owner_pid": float64(41),
			"action": "recorded"}}, // a record without the outcome
			"Run r3 of backup finished while no window followed it; recorded from its journal"},
		{store.Entry{Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "w", "owner_pid": float64(41),
			"action": "parked", "evidence": "x"}}, // an action of a newer Baton is named, not called a failure
			"Run r3 of w: parked, as its window pid 41 had died (x)"},
		{store.Entry{Kind: "takeover", PID: 9, Data: map[string]any{"old_owner": map[string]any{"pid": float64(41)},
			"reaped":  []any{map[string]any{"run": "r1", "action": "failed"}, map[string]any{"run": "r2", "action": "recorded"}},
			"adopted": []any{"r3", "r4"}, "epoch": float64(4), "took_ms": float64(3)}},
			"Window pid 9 became the writer, taking over from pid 41; it reaped 1 run the old writer left running; " +
				"it recorded 1 run that finished while no window followed it; it adopted 2 runs still going (r3, r4) (in 3 ms)"},
		{store.Entry{Kind: "handover", PID: 41, Data: map[string]any{"epoch": float64(4), "from": map[string]any{"pid": float64(41)},
			"to": map[string]any{"pid": float64(9)}, "runs": []any{"r3", "r5"}}},
			"Window pid 41 handed writing over to window pid 9, which asked for it; 2 runs were left going for it to adopt (r3, r5)"},
		{store.Entry{Kind: "handover", PID: 41, Data: map[string]any{"to": map[string]any{"pid": float64(9)}}},
			"Window pid 41 handed writing over to window pid 9, which asked for it"},
		{store.Entry{Kind: "reclaim", PID: 9, Data: map[string]any{"schedule": "s1", "owner_pid": float64(41), "run": "r7", "since_ms": 1.5}},
			"Schedule s1: its run lock was reclaimed from dead window pid 41; run r7; since ms 1.5"},
		{store.Entry{Kind: "overrun", Data: map[string]any{"run": "r1", "workflow": "w", "max_runtime": "1h"}},
			"Run r1 of w ran past its time budget; max runtime 1h"},
		{store.Entry{Kind: "skipped", Data: map[string]any{"schedule": "s1"}}, "Schedule s1 skipped an occurrence because a run was still going"},
		{store.Entry{Kind: "queued", Data: map[string]any{"schedule": "s1"}}, "Schedule s1 queued an occurrence behind a running run"},
		{store.Entry{Kind: "catch_up", Data: map[string]any{"schedule": "s1", "count": float64(2)}}, "Schedule s1 caught up on missed occurrences; count 2"},
		{store.Entry{Kind: "cancel", Data: map[string]any{"run": "r1"}}, "Run r1 was cancelled"},
		{store.Entry{Kind: "shutdown", PID: 5}, "Window pid 5 closed and stopped writing"},
		{store.Entry{Kind: "new_kind", PID: 5, Data: map[string]any{"b": "two", "a": float64(1)}}, "new_kind: Window pid 5; a 1; b two"},
	} {
		if got := Describe(c.e); got != c.want {
			t.Errorf("Describe(%s):\n got %q\nwant %q", c.e.Kind, got, c.want)
		}
	}
}

func TestAppendActivityNewestFirst(t *testing.T) {
	now := at(12, 0, 0)
	es := []store.Entry{
		{Time: at(10, 0, 0).AddDate(0, 0, -1), Kind: "shutdown", PID: 1},
		{Time: at(11, 0, 5), Kind: "shutdown", PID: 2},
	}
	old := []Activity{{When: "stale", What: "stale"}}
	got := AppendActivity(old[:0], es, now)
	want := []Activity{{When: "11:00:05", What: "Window pid 2 closed and stopped writing"}, {When: "3 May 10:00:00", What: "Window pid 1 closed and stopped writing"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("activity %+v, want %+v", got, want)
	}
}

// TestDescribeRecordsAsWritten describes the records the core writes, through the log
// file: each reads as a sentence with its details, none with a missing value.
func TestDescribeRecordsAsWritten(t *testing.T) {
	a := store.NewAudit(t.TempDir())
	due := time.Date(2026, 5, 4, 3, 0, 0, 0, time.UTC)
	note := store.ScheduleNote{Schedule: "s1", Reason: "why", Due: due, Run: "r1"}
	recs := []store.Record{
		store.Takeover{Epoch: 3, OldOwner: &store.Owner{PID: 41}, NewOwner: store.Owner{PID: 9}, TookMS: 1.5,
			Reaped: []store.Reaped{{Run: "r1", Workflow: "w", OwnerPID: 41, Action: workflow.ActionFailed, Evidence: "gone"}}},
		store.Reap{Epoch: 3, Reaped: store.Reaped{Run: "r1", Workflow: "w", OwnerPID: 41, Action: workflow.ActionRequeued, Evidence: "gone"}},
		store.Reap{Epoch: 3, Reaped: store.Reaped{Run: "r2", Workflow: "w", OwnerPID: 41, Action: workflow.ActionAdopted, Evidence: "gone"}},
		store.Reap{Epoch: 3, Reaped: store.Reaped{Run: "r4", Workflow: "w", OwnerPID: 41, Action: workflow.ActionRecorded, Evidence: "gone"}},
		store.Reclaim{Schedule: "s1", Run: "r1", OwnerPID: 41, OwnerInstance: "i", Evidence: "gone", Action: "failed", Epoch: 3},
		store.Clean{Removed: []string{".tmp-1"}},
		store.Shutdown{Epoch: 3, Instance: "i"},
		store.Skipped{ScheduleNote: note}, store.Queued{ScheduleNote: note}, store.Replace{ScheduleNote: note},
		store.Overrun{ScheduleNote: note}, store.CatchUp{ScheduleNote: note, Missed: 2},
		store.RetentionPass{LogsRemoved: 12, LogBytes: 3 << 20, ArchivedRemoved: 10, ByRule: 11, ByCap: 1, Pending: 2, KeptBytes: 900 << 20},
		store.RetentionPass{LogsRemoved: 1, LogBytes: 4096, ByRule: 1, KeptBytes: 512},
	}
	for _, r := range recs {
		if err := a.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	es, err := a.Read(0)
	if err != nil || len(es) != len(recs) {
		t.Fatalf("read %d entries (%v), want %d", len(es), err, len(recs))
	}
	want := []string{
		"Window pid %d became the writer, taking over from pid 41; it reaped 1 run the old writer left running (in 1.5 ms)",
		"Run r1 of w was queued again: its window pid 41 had died (gone)",
		"Run r2 of w was adopted from window pid 41, which closed or died; it keeps running",
		"Run r4 of w finished while no window followed it; recorded from its journal",
		"Schedule s1: its run lock was reclaimed from dead window pid 41; action failed; epoch 3; evidence gone; owner instance i; run r1",
		"clean: Window pid %d; removed [.tmp-1]",
		"Window pid %d closed and stopped writing",
		"Schedule s1 skipped an occurrence because a run was still going; due 2026-05-04T03:00:00Z; reason why; run r1",
		"Schedule s1 queued an occurrence behind a running run; due 2026-05-04T03:00:00Z; reason why; run r1",
		"Schedule s1 replaced its live run with a new occurrence; due 2026-05-04T03:00:00Z; reason why; run r1",
		"Run r1 ran past its time budget; due 2026-05-04T03:00:00Z; reason why; schedule s1",
		"Schedule s1 caught up on missed occurrences; due 2026-05-04T03:00:00Z; missed 2; reason why; run r1",
		"Retention removed 12 run logs (3.0 MB) and 10 archived runs: 11 by the workflows' keep rules, 1 by the home's size cap; 2 runs are left for the next pass (history kept: 900 MB)",
		"Retention removed 1 run log (4.0 KB): 1 by the workflows' keep rules (history kept: 512 B)",
	}
	for i, e := range es {
		w := want[i]
		if strings.Contains(w, "%d") {
			w = fmt.Sprintf(w, os.Getpid())
		}
		if got := Describe(e); got != w {
			t.Errorf("Describe(%s):\n got %q\nwant %q", e.Kind, got, w)
		}
	}
}
