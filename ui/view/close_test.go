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
	}}
	for _, c := range []struct {
		name string
		st   host.Status
		want int
	}{
		{"writer", me, 3},
		{"reader", host.Status{Role: host.RoleReader, PID: 100, Instance: "me"}, 0},
		{"promoting", host.Status{Role: host.RolePromoting, PID: 100, Instance: "me"}, 0},
		{"closed", host.Status{Role: host.RoleClosed, PID: 100, Instance: "me"}, 0},
	} {
		if got := RunsGoingHere(c.st, doc); got != c.want {
			t.Errorf("%s: %d runs going here, want %d", c.name, got, c.want)
		}
	}
	if n := RunsGoingHere(me, &store.Doc{}); n != 0 {
		t.Errorf("an idle writer has %d runs going", n)
	}
}

func TestCloseQuestion(t *testing.T) {
	if ask, _, _ := CloseQuestion(0); ask {
		t.Error("asks before closing a window with nothing going")
	}
	for n, want := range map[int]string{1: "1 run is going in this window", 3: "3 runs are going in this window"} {
		ask, title, msg := CloseQuestion(n)
		if !ask || title != "Close with runs going?" || !strings.HasPrefix(msg, want) || !strings.Contains(msg, "recorded as cancelled") {
			t.Errorf("CloseQuestion(%d) = %v %q %q", n, ask, title, msg)
		}
	}
}
