package view

import (
	"testing"
	"time"

	"baton/store"
)

// TestDescribePersonChanges writes each record of a person's change to an audit log and
// reads it back as the Activity tab does: each reads in plain words.
func TestDescribePersonChanges(t *testing.T) {
	a := store.NewAudit(t.TempDir())
	for _, c := range []struct {
		rec  store.Record
		want string
	}{
		{store.WorkflowChange{Action: store.ChangeCreated, Workflow: "backup", Generation: 2}, `Workflow "backup" was created`},
		{store.WorkflowChange{Action: store.ChangeUpdated, Workflow: "backup", Generation: 3}, `Workflow "backup" was changed`},
		{store.WorkflowChange{Action: store.ChangeRenamed, Workflow: "backup", From: "bkp", Generation: 4}, `Workflow "bkp" was renamed to "backup"`},
		{store.WorkflowChange{Action: store.ChangeDeleted, Workflow: "backup", Generation: 5}, `Workflow "backup" was deleted`},
		{store.ScheduleChange{Action: store.ChangeCreated, Schedule: "s1", Workflow: "backup", Every: store.Duration(90 * time.Minute)},
			`Schedule s1 of "backup" was added: every 1h30m`},
		{store.ScheduleChange{Action: store.ChangeUpdated, Schedule: "s1", Workflow: "backup", Cron: "0 3 * * *"},
			`Schedule s1 of "backup" was changed: cron 0 3 * * *`},
		{store.ScheduleChange{Action: store.ChangePaused, Schedule: "s1", Workflow: "backup"}, `Schedule s1 of "backup" was paused`},
		{store.ScheduleChange{Action: store.ChangeResumed, Schedule: "s1", Workflow: "backup"}, `Schedule s1 of "backup" was resumed`},
		{store.ScheduleChange{Action: store.ChangeDeleted, Schedule: "s1", Workflow: "backup"}, `Schedule s1 of "backup" was deleted`},
		{store.ScheduleChange{Action: "archived", Schedule: "s1"}, `Schedule s1: archived`}, // an action of a newer Baton
	} {
		if err := a.Append(c.rec); err != nil {
			t.Fatal(err)
		}
		es, err := a.Read(1)
		if err != nil || len(es) != 1 {
			t.Fatalf("read: %v %v", es, err)
		}
		if got := Describe(es[0]); got != c.want {
			t.Errorf("%+v reads %q, want %q", c.rec, got, c.want)
		}
	}
}
