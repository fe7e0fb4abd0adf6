package host

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"baton/workflow"
)

// rename_workflow and set_retention through the control channel: done by the writer,
// forwarded from a reader with "forward": true, refused with a clear error when bad.
func TestControlRenameAndRetention(t *testing.T) {
	home := t.TempDir()
	a := openStarted(t, home)
	b := openStarted(t, home)
	ctx := context.Background()
	if _, err := Call(ctx, a, &Request{Op: "add_workflow", Workflow: wfJSON("old")}); err != nil {
		t.Fatal(err)
	}
	if _, err := Call(ctx, a, &Request{Op: "rename_workflow", Workflow: json.RawMessage(`"old"`)}); !errors.Is(err, workflow.ErrInvalid) {
		t.Fatalf("rename without a new name: %v", err)
	}
	if _, err := Call(ctx, b, &Request{Op: "rename_workflow", Workflow: json.RawMessage(`"old"`), Name: "new"}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("rename from a reader without forward: %v", err)
	}
	rep, err := Call(ctx, b, &Request{Op: "rename_workflow", Workflow: json.RawMessage(`"old"`), Name: "new", Forward: true})
	if err != nil || rep["forwarded_to"] == nil {
		t.Fatalf("forwarded rename: %v %v", rep, err)
	}
	if d := a.Snapshot(); d.Workflow("new") == nil || d.Workflow("old") != nil {
		t.Fatalf("after rename: %v", d.Workflows)
	}
	if _, err := Call(ctx, a, &Request{Op: "set_retention", Workflow: json.RawMessage(`"new"`),
		Retention: json.RawMessage(`{"keep_runs": 50, "keep_for": "720h"}`)}); err != nil {
		t.Fatal(err)
	}
	if r := a.Snapshot().Workflow("new").Retention; r == nil || r.KeepRuns != 50 || r.KeepFor.D() != 720*time.Hour {
		t.Fatalf("workflow retention: %+v", r)
	}
	if _, err := Call(ctx, b, &Request{Op: "set_retention", Retention: json.RawMessage(`{"max_home_bytes": 1048576}`), Forward: true}); err != nil {
		t.Fatal(err)
	}
	if r := a.Snapshot().Retention; r == nil || r.MaxHomeBytes != 1<<20 {
		t.Fatalf("home retention: %+v", r)
	}
	for _, bad := range []string{`{"keep_runs": -1}`, `{"bogus": 1}`, `[]`} {
		if _, err := Call(ctx, a, &Request{Op: "set_retention", Workflow: json.RawMessage(`"new"`), Retention: json.RawMessage(bad)}); !errors.Is(err, workflow.ErrInvalid) {
			t.Errorf("set_retention %s: %v, want invalid", bad, err)
		}
	}
	if _, err := Call(ctx, a, &Request{Op: "set_retention", Workflow: json.RawMessage(`"nope"`), Retention: json.RawMessage(`null`)}); !errors.Is(err, workflow.ErrNotFound) {
		t.Fatalf("set_retention of an unknown workflow: %v", err)
	}
	// update_workflow from a script that knows nothing of retention keeps it; an explicit
	// null sets the defaults.
	if _, err := Call(ctx, a, &Request{Op: "update_workflow", Workflow: wfJSON("new")}); err != nil {
		t.Fatal(err)
	}
	if r := a.Snapshot().Workflow("new").Retention; r == nil || r.KeepRuns != 50 {
		t.Fatalf("update_workflow without \"retention\" reset it: %+v", r)
	}
	var def map[string]any
	json.Unmarshal(wfJSON("new"), &def)
	def["retention"] = nil
	raw, _ := json.Marshal(def)
	if _, err := Call(ctx, a, &Request{Op: "update_workflow", Workflow: raw}); err != nil {
		t.Fatal(err)
	}
	if r := a.Snapshot().Workflow("new").Retention; r != nil {
		t.Fatalf("update_workflow with \"retention\": null kept %+v", r)
	}
}
