package view

import (
	"testing"

	"baton/store"
)

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		e    store.Entry
		want string
	}{
		{store.Entry{Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "w", "owner_pid": float64(41),
			"action": "failed", "evidence": "instance lock free"}},
			"Run r3 of w was failed: its window pid 41 had died (instance lock free)"},
		{store.Entry{Kind: "reap", PID: 9, Data: map[string]any{"run": "r3", "workflow": "w", "owner_pid": float64(41),
			"action": "requeued", "evidence": "x"}},
			"Run r3 of w was queued again: its window pid 41 had died (x)"},
		{store.Entry{Kind: "takeover", PID: 9, Data: map[string]any{"old_owner": map[string]any{"pid": float64(41)},
			"reaped": []any{map[string]any{}, map[string]any{}}, "epoch": float64(3), "took_ms": 1.5}},
			"Window pid 9 became the writer, taking over from pid 41; it reaped 2 runs the old writer left running (epoch 3, 1.5 ms)"},
		{store.Entry{Kind: "takeover", PID: 9, Data: map[string]any{"epoch": float64(1), "took_ms": float64(2)}},
			"Window pid 9 became the writer (epoch 1, 2 ms)"},
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
	want := []Activity{{"11:00:05", "Window pid 2 closed and stopped writing"}, {"3 May 10:00:00", "Window pid 1 closed and stopped writing"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("activity %+v, want %+v", got, want)
	}
}
