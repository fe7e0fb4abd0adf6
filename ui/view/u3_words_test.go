package view

import (
	"testing"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

// TestHandOverIsNotATakeover (issue 22, bug 8): a writer that handed over on request did
// not die: the note says it handed over, not that runs were left running.
func TestHandOverIsNotATakeover(t *testing.T) {
	for _, c := range []struct {
		tk   host.Takeover
		want string
	}{
		{host.Takeover{OldOwner: &store.Owner{PID: 5}, HandedOver: true, TookMS: 2}, "pid 5 handed over, no runs were going, 2.0 ms"},
		{host.Takeover{OldOwner: &store.Owner{PID: 5}, HandedOver: true, TookMS: 2, Adopted: []workflow.Orphan{{Action: workflow.ActionAdopted}}},
			"pid 5 handed over, adopted 1 run still going, 2.0 ms"},
		{host.Takeover{OldOwner: &store.Owner{PID: 5}, TookMS: 2}, "took over from pid 5, no runs were left running, 2.0 ms"},
	} {
		if got := TakeoverText(c.tk); got != c.want {
			t.Errorf("TakeoverText = %q, want %q", got, c.want)
		}
	}
}
