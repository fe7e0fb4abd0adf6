package forward

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"baton/store"
)

// TestAppliedBounded: entries that a request file names stay; the others go when older
// than appliedKeep or beyond the newest appliedMaxIdle.
func TestAppliedBounded(t *testing.T) {
	now := time.Now()
	d := &store.Doc{}
	d.Applied = append(d.Applied, store.Applied{ID: "old-live", At: now.Add(-time.Hour)}, store.Applied{ID: "old", At: now.Add(-appliedKeep - time.Second)})
	for i := range appliedMaxIdle + 5 {
		d.Applied = append(d.Applied, store.Applied{ID: fmt.Sprint("n", i), At: now})
	}
	rec := &Record{ID: "new", At: now, Live: map[string]bool{"old-live": true}}
	rec.Add(d, nil)
	ids := map[string]bool{}
	for _, a := range d.Applied {
		ids[a.ID] = true
	}
	if !ids["old-live"] || ids["old"] || !ids["new"] || ids["n4"] || !ids["n5"] || len(d.Applied) != appliedMaxIdle+2 {
		t.Fatalf("kept %d entries: %v", len(d.Applied), ids)
	}
	if d.Applied[0].ID != "old-live" || d.Applied[len(d.Applied)-1].ID != "new" {
		t.Fatal("Applied is no longer oldest first")
	}
}

// TestRecording: without a Record the change is left as it is; with one it is applied at
// most once, and its outcome, built by the core's reply from what the change added at the
// generation it saves, is recorded with it. (Host's TestRecordForwardedAppliesOnce checks
// the same through the store's commit.)
func TestRecording(t *testing.T) {
	calls := 0
	fn := func(d *store.Doc) error {
		calls++
		d.Runs = append(d.Runs, store.Run{ID: fmt.Sprint("r", calls)})
		return nil
	}
	reply := func(g uint64, run *store.Run, sch *store.Schedule) map[string]any {
		m := map[string]any{"generation": g}
		if run != nil {
			m["run"] = run.ID
		}
		return m
	}
	d := &store.Doc{Generation: 4}
	if err := Recording(context.Background(), fn, reply)(d); err != nil || len(d.Applied) != 0 {
		t.Fatalf("without a record: %v, applied %+v", err, d.Applied)
	}
	rec := &Record{ID: strings.Repeat("ab", 16), At: time.Now()}
	wrapped := Recording(WithRecord(context.Background(), rec), fn, reply)
	if err := wrapped(d); err != nil {
		t.Fatal(err)
	}
	if err := wrapped(d); !errors.Is(err, ErrAlreadyApplied) || calls != 2 {
		t.Fatalf("second apply: %v after %d calls, want ErrAlreadyApplied and no call", err, calls)
	}
	i := AppliedIndex(d, rec.ID)
	var out map[string]any
	if i < 0 || json.Unmarshal(d.Applied[i].Reply, &out) != nil || out["ok"] != true || out["generation"] != 5.0 || out["run"] != "r2" {
		t.Fatalf("recorded %+v", d.Applied)
	}
	failed := Recording(WithRecord(context.Background(), &Record{ID: "other"}), func(*store.Doc) error { return errors.New("no") }, reply)
	if err := failed(d); err == nil || AppliedIndex(d, "other") >= 0 {
		t.Fatalf("a failed change: %v, recorded %+v", err, d.Applied)
	}
	noChange := Recording(WithRecord(context.Background(), &Record{ID: "same"}), func(*store.Doc) error { return store.ErrNoChange }, reply)
	if err := noChange(d); err != nil || AppliedIndex(d, "same") < 0 {
		t.Fatalf("a change that was no change is not recorded: %v", err)
	}
}
