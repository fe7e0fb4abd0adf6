package host

import (
	"context"
	"errors"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
)

// TestRenameWorkflowHistoryFollows: after a rename the workflow's runs, live and
// archived, are found under the new name and none under the old; its schedule follows;
// the audit log records it; a name taken is refused and changes nothing.
func TestRenameWorkflowHistoryFollows(t *testing.T) {
	t.Parallel()
	w := openStarted(t, t.TempDir())
	waitRole(t, w, RoleWriter)
	in, ctx := w.Intents(), context.Background()
	for _, name := range []string{"report", "other"} {
		if _, err := in.AddWorkflow(ctx, store.Workflow{Name: name, Steps: []store.Step{{Argv: []string{"true"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := in.AddSchedule(ctx, store.Schedule{Workflow: "report", Every: store.Duration(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	live, _, err := in.StartRun(ctx, "report", "")
	if err != nil {
		t.Fatal(err)
	}
	// Two runs of report and one of other were archived before.
	ended := time.Now().Add(-time.Hour).UTC()
	if err := w.st.Archive().Append([]store.Run{
		{ID: "old1", Seq: 1001, Workflow: "report", Status: store.StatusSucceeded, Created: ended, Ended: ended},
		{ID: "old2", Seq: 1002, Workflow: "report", Status: store.StatusFailed, Created: ended, Ended: ended},
		{ID: "old3", Seq: 1003, Workflow: "other", Status: store.StatusFailed, Created: ended, Ended: ended},
	}); err != nil {
		t.Fatal(err)
	}

	if _, err := in.RenameWorkflow(ctx, "report", "Other"); !errors.Is(err, workflow.ErrConflict) {
		t.Fatalf("rename to a name taken: %v, want a conflict", err)
	}
	if _, err := in.RenameWorkflow(ctx, "report", "weekly"); err != nil {
		t.Fatal(err)
	}
	ids := func(name string) map[string]bool {
		t.Helper()
		page, err := in.History(store.HistoryQuery{Workflow: name})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, r := range page.Runs {
			if r.Workflow != name {
				t.Errorf("history of %q lists run %s of %q", name, r.ID, r.Workflow)
			}
			out[r.ID] = true
		}
		return out
	}
	if got := ids("weekly"); len(got) != 3 || !got[live.ID] || !got["old1"] || !got["old2"] {
		t.Errorf("history of weekly: %v, want %s, old1 and old2", got, live.ID)
	}
	if got := ids("report"); len(got) != 0 {
		t.Errorf("history of report after the rename: %v, want none", got)
	}
	if got := ids("other"); len(got) != 1 || !got["old3"] {
		t.Errorf("history of other: %v, want old3 only", got)
	}
	d := w.Snapshot()
	if d.Workflow("weekly") == nil || d.Workflow("report") != nil || d.Schedules[0].Workflow != "weekly" {
		t.Errorf("document: workflows %+v, schedule of %q", d.Workflows, d.Schedules[0].Workflow)
	}
	entries, err := in.Audit(0)
	if err != nil {
		t.Fatal(err)
	}
	var rec store.WorkflowChange
	for _, e := range entries {
		if e.Kind == store.KindWorkflowChange {
			if err := e.Decode(&rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	if rec.Action != store.ChangeRenamed || rec.From != "report" || rec.Workflow != "weekly" || rec.Generation == 0 {
		t.Errorf("audit record %+v, want the rename", rec)
	}
}
