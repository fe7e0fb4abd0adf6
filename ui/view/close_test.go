package view

import (
	"strings"
	"testing"

	"baton/host"
	"baton/store"
)

func TestRunsGoingHere(t *testing.T) {
	me := host.Status{Role: host.RoleWriter, PID: 100, Instance: "me"}
	mine := &store.Owner{PID: 100, Instance: "me"}
	earlier := &store.Owner{PID: 100, Instance: "an earlier window with my pid"}
	running := store.StatusRunning
	doc := &store.Doc{Runs: []store.Run{
		{ID: "a", Status: running, OwnerPID: 100, Owner: mine},
		{ID: "b", Status: running, OwnerPID: 100, Owner: mine},
		{ID: "c", Status: running, OwnerPID: 100, Owner: earlier}, // pid reused: not this window's
		{ID: "d", Status: running, OwnerPID: 200, Owner: &store.Owner{PID: 200, Instance: "other"}},
		{ID: "e", Status: running, OwnerPID: 100},                         // recorded without an owner: by pid
		{ID: "f", Status: running, OwnerPID: 300},                         // another pid
		{ID: "g", Status: store.StatusQueued, OwnerPID: 100, Owner: mine}, // not going yet: closing does not cancel it
		{ID: "h", Status: store.StatusSucceeded, OwnerPID: 100, Owner: mine},
		{ID: "i", Workflow: "keep", Status: running, OwnerPID: 100, Owner: mine}, // adopt: closing leaves it going
		{ID: "j", Workflow: "keep", Status: running, OwnerPID: 100},              // adopt, recorded by pid
		{ID: "k", Workflow: "keep", Status: running, OwnerPID: 200, Owner: &store.Owner{PID: 200, Instance: "other"}},
		{ID: "l", Workflow: "stop", Status: running, OwnerPID: 100, Owner: mine},  // fail: cancelled
		{ID: "m", Workflow: "again", Status: running, OwnerPID: 100, Owner: mine}, // requeue: cancelled too
	}, Workflows: []store.Workflow{{Name: "keep", OnOwnerLost: "adopt"}, {Name: "stop", OnOwnerLost: "fail"}, {Name: "again", OnOwnerLost: "requeue"}}}
	for _, c := range []struct {
		name       string
		st         host.Status
		want, keep int
	}{
		{"writer", me, 5, 2}, // a, b, e (no workflow), l, m; kept: i, j
		{"reader", host.Status{Role: host.RoleReader, PID: 100, Instance: "me"}, 0, 0},
		{"promoting", host.Status{Role: host.RolePromoting, PID: 100, Instance: "me"}, 0, 0},
		{"closed", host.Status{Role: host.RoleClosed, PID: 100, Instance: "me"}, 0, 0},
	} {
		if got := RunsGoingHere(c.st, doc); got != c.want {
			t.Errorf("%s: %d runs going here, want %d", c.name, got, c.want)
		}
		if got := RunsKeptGoing(c.st, doc); got != c.keep {
			t.Errorf("%s: %d runs kept going, want %d", c.name, got, c.keep)
		}
	}
	if n := RunsGoingHere(me, &store.Doc{}); n != 0 {
		t.Errorf("an idle writer has %d runs going", n)
	}
	// Only runs that keep running: closing cancels nothing, so it does not ask.
	adoptOnly := &store.Doc{Runs: doc.Runs[8:10], Workflows: doc.Workflows}
	if n, k := RunsGoingHere(me, adoptOnly), RunsKeptGoing(me, adoptOnly); n != 0 || k != 2 {
		t.Errorf("adopt runs only: %d would be cancelled, %d kept, want 0 and 2", n, k)
	}
	if ask, _, _ := CloseQuestion(RunsGoingHere(me, adoptOnly), RunsKeptGoing(me, adoptOnly)); ask {
		t.Error("asks before closing a window whose runs all keep running")
	}
}

func TestCloseQuestion(t *testing.T) {
	for _, keep := range []int{0, 2} {
		if ask, _, _ := CloseQuestion(0, keep); ask {
			t.Errorf("asks before closing a window with nothing to cancel (%d runs keep going)", keep)
		}
	}
	for n, want := range map[int]string{1: "1 run is going in this window", 3: "3 runs are going in this window"} {
		ask, title, msg := CloseQuestion(n, 0)
		if !ask || title != "Close with runs going?" || !strings.HasPrefix(msg, want) || !strings.Contains(msg, "recorded as cancelled") ||
			strings.Contains(msg, "keep running") {
			t.Errorf("CloseQuestion(%d, 0) = %v %q %q", n, ask, title, msg)
		}
	}
	for keep, want := range map[int]string{1: "1 other run goes on: its workflow is set to keep running, and the next window that writes follows it.",
		2: "2 other runs go on: their workflows are set to keep running, and the next window that writes follows them."} {
		ask, _, msg := CloseQuestion(1, keep)
		if !ask || !strings.HasPrefix(msg, "1 run is going in this window. Closing cancels it (it is recorded as cancelled)") ||
			!strings.Contains(msg, want) || !strings.HasSuffix(msg, " Close anyway?") {
			t.Errorf("CloseQuestion(1, %d) = %q, want it to say %q", keep, msg, want)
		}
	}
}
