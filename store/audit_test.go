package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAuditRecordsKeepTheLogFormat writes each typed record and reads the log back as the
// readers do (a generic map under "data"): the kind and the field names are those the
// log has always had, so existing readers, and logs written before, still agree.
func TestAuditRecordsKeepTheLogFormat(t *testing.T) {
	dir := t.TempDir()
	a := NewAudit(dir)
	due := time.Date(2026, 5, 4, 3, 0, 0, 0, time.UTC)
	note := ScheduleNote{Schedule: "s1", Reason: "why", Due: due, Run: "r1"}
	reaped := Reaped{Run: "r1", Workflow: "w", OwnerPID: 41, Action: "failed", Evidence: "instance lock free"}
	for _, c := range []struct {
		rec  Record
		kind string
		keys []string
	}{
		{Takeover{Epoch: 2, NewOwner: Owner{PID: 9}, OldOwner: &Owner{PID: 41}, Reaped: []Reaped{reaped},
			Steps: []TakeoverStep{{Name: "lock", MS: 0.1}}, TookMS: 3, CleanedTemps: []string{"x"}},
			"takeover", []string{"cleaned_temps", "epoch", "new_owner", "old_owner", "reaped", "steps", "took_ms"}},
		{Takeover{Epoch: 1}, "takeover", []string{"cleaned_temps", "epoch", "new_owner", "reaped", "steps", "took_ms"}},
		{Reap{Reaped: reaped, Epoch: 2}, "reap", []string{"action", "epoch", "evidence", "owner_pid", "run", "workflow"}},
		{Reclaim{Schedule: "s1", Run: "r1", OwnerPID: 41, OwnerInstance: "i", Evidence: "e", Action: "failed", Epoch: 2},
			"reclaim", []string{"action", "epoch", "evidence", "owner_instance", "owner_pid", "run", "schedule"}},
		{Clean{Removed: []string{"a"}}, "clean", []string{"removed"}},
		{Shutdown{Epoch: 2, Instance: "i"}, "shutdown", []string{"epoch", "instance"}},
		{Skipped{note}, "skipped", []string{"due", "reason", "run", "schedule"}},
		{Queued{note}, "queued", []string{"due", "reason", "run", "schedule"}},
		{Replace{note}, "replace", []string{"due", "reason", "run", "schedule"}},
		{Overrun{note}, "overrun", []string{"due", "reason", "run", "schedule"}},
		{CatchUp{ScheduleNote: ScheduleNote{Schedule: "s1", Reason: "latest"}, Missed: 3, Running: []time.Time{due}},
			"catch_up", []string{"missed", "reason", "running", "schedule"}},
		{WorkflowChange{Action: ChangeRenamed, Workflow: "backup", From: "bkp", Generation: 7},
			"workflow", []string{"action", "from", "generation", "workflow"}},
		{WorkflowChange{Action: ChangeDeleted, Workflow: "backup", Generation: 8}, "workflow", []string{"action", "generation", "workflow"}},
		{ScheduleChange{Action: ChangeCreated, Schedule: "s1", Workflow: "backup", Every: Duration(time.Hour), Generation: 9},
			"schedule", []string{"action", "every", "generation", "schedule", "workflow"}},
		{ScheduleChange{Action: ChangePaused, Schedule: "s1", Workflow: "backup", Generation: 10},
			"schedule", []string{"action", "generation", "schedule", "workflow"}},
	} {
		if err := a.Append(c.rec); err != nil {
			t.Fatal(err)
		}
		es, err := a.Read(1)
		if err != nil || len(es) != 1 {
			t.Fatalf("read: %v %v", es, err)
		}
		e := es[0]
		var keys []string
		for k := range e.Data {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if e.Kind != c.kind || !slices.Equal(keys, c.keys) || e.PID != os.Getpid() || e.Time.IsZero() {
			t.Errorf("%T: kind %q, data keys %q, pid %d; want %q %q", c.rec, e.Kind, keys, e.PID, c.kind, c.keys)
		}
	}
	es, _ := a.Read(0)
	if got := es[2].Data; got["run"] != "r1" || got["owner_pid"] != float64(41) || got["evidence"] != "instance lock free" {
		t.Errorf("reap data %v, want what the host tests read (run, owner_pid, evidence)", got)
	}
	if err := a.Append(nil); err == nil {
		t.Error("a nil record was appended")
	}
}

// TestAuditEntryDecode reads an entry back as its typed record, including an entry
// written by hand in the old map form.
func TestAuditEntryDecode(t *testing.T) {
	var e Entry
	line := `{"time":"2026-05-04T03:00:00Z","kind":"reap","pid":7,"data":{"run":"r3","workflow":"w","owner_pid":41,"action":"requeued","evidence":"gone","epoch":4,"extra":true}}`
	if err := json.Unmarshal([]byte(line), &e); err != nil {
		t.Fatal(err)
	}
	var r Reap
	if err := e.Decode(&r); err != nil {
		t.Fatal(err)
	}
	if want := (Reap{Reaped: Reaped{Run: "r3", Workflow: "w", OwnerPID: 41, Action: "requeued", Evidence: "gone"}, Epoch: 4}); r != want {
		t.Errorf("decoded %+v, want %+v", r, want)
	}
	var tk Takeover
	if err := e.Decode(&tk); err == nil {
		t.Error("a reap entry decoded as a takeover")
	}
	bad := Entry{Kind: "reap", Data: map[string]any{"owner_pid": "forty-one"}}
	if err := bad.Decode(&r); err == nil {
		t.Error("a reap entry with a string pid decoded")
	}
}

// TestAuditRotatedByOneProcessAtATime: two Audits on one log (a writer, and the held
// entries of the writer before it) rotate it under its lock. The second one, coming while
// the first is about to rotate, does not rotate too: its entry is held and written after
// into the new log, so the full file rotated is kept as audit.log.1, never pushed out by
// a nearly empty one, and no entry is lost.
func TestAuditRotatedByOneProcessAtATime(t *testing.T) {
	defer func(n int64) { auditRotateAt = n }(auditRotateAt)
	auditRotateAt = 16 << 10
	dir := t.TempDir()
	a, b := NewAudit(dir), NewAudit(dir)
	defer a.Close()
	defer b.Close()
	entry := func(w string, i int) Clean {
		return Clean{Removed: []string{fmt.Sprintf("%s-%04d", w, i), strings.Repeat("x", 900)}}
	}
	n := 0
	for ; ; n++ { // fill the log until the next entry would take it past auditRotateAt
		if err := a.Append(entry("a", n)); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, AuditName))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size()+fi.Size()/int64(n+1) > auditRotateAt {
			n++
			break
		}
	}
	raced := false
	hooks.auditRotate = func() {
		if !raced {
			raced = true
			_ = b.Append(entry("b", 0)) // held if the log is locked: written by Close below
		}
	}
	defer func() { hooks.auditRotate = nil }()
	if err := a.Append(entry("a", n)); err != nil {
		t.Fatal(err)
	}
	if !raced {
		t.Fatal("the log was not rotated: the race was not set up")
	}
	hooks.auditRotate = nil
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, AuditName+".1"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < auditRotateAt/2 {
		t.Fatalf("%s.1 holds %d bytes: the full file was pushed out by a nearly empty one", AuditName, fi.Size())
	}
	entries, err := a.Read(0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		var c Clean
		if e.Decode(&c) == nil {
			got = append(got, c.Removed[0])
		}
	}
	var want []string
	for i := 0; i <= n; i++ {
		want = append(want, fmt.Sprintf("a-%04d", i))
	}
	want = append(want, "b-0000")
	if !slices.Equal(got, want) {
		t.Fatalf("entries %v,\nwant %v", got, want)
	}
}
