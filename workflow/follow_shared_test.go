package workflow

import (
	"context"
	"sync/atomic"
	"testing"

	"baton/store"
)

// TestAdoptRemoteCancelNoRace: a cancel that comes while a remote run is being adopted
// reaches it through the shared home; the follower's way to cancel it is set before the
// follower is published (under -race, setting it after was a data race with Cancel).
func TestAdoptRemoteCancelNoRace(t *testing.T) {
	r := newRig(t)
	var asked atomic.Int32
	r.eng.Machine = "here"
	r.eng.SharedWatch = func(ctx context.Context, _ string, _ func(*Journal, bool) bool) { <-ctx.Done() }
	r.eng.SharedCancel = func(string, string) error { asked.Add(1); return nil }
	run := store.Run{ID: "r1", Attempt: 1, Machine: "there", Status: store.StatusRunning}
	adopted := make(chan struct{})
	go func() { r.eng.Adopt(run, true); close(adopted) }()
	for !r.eng.Cancel(run.ID, "stop it") { // until the follower is there
		select {
		case <-adopted:
			if !r.eng.Cancel(run.ID, "stop it") {
				t.Fatal("the adopted run is not followed")
			}
		default:
			continue
		}
		break
	}
	<-adopted
	if asked.Load() != 1 {
		t.Fatalf("the cancel asked the shared home %d times, want once", asked.Load())
	}
}
