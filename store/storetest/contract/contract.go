// Package contract checks an implementation of the seams of a home (store.DocHome through
// a store.Store, store.WriterLock and store.LockHold) against their contracts, so that
// the folder and a second kind of home (etcd) are held to the same promises. An
// implementation's test calls Run with a constructor of fresh homes:
//
//	func TestContract(t *testing.T) { contract.Run(t, newTestHome) }
//
// Every check uses the real thing: real saves, real locks, a real second process that
// is killed with SIGKILL. Nothing waits on a sleep for its verdict except mustBlock, which
// shows that a wait has not ended (it cannot prove a wait never ends).
package contract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"baton/store"
)

// Home is one fresh home under test, from the constructor given to Run. Each function may
// be called many times; each call acts as another process on the same home would.
type Home struct {
	// Open returns a new Store on the home, not read yet, whose Options.BeforeSave is
	// beforeSave (nil: none).
	Open func(t *testing.T, beforeSave func() error) *store.Store

	// Lock returns a handle on the home's writer lock, as another process makes one.
	Lock func(t *testing.T) store.WriterLock

	// Gap makes the home unable to tell a follower, incrementally, what changed since
	// what it read: the folder checkpoints (workflows.json whole and a new log cycle
	// over the frames a follower did not read); etcd compacts its revisions. writer is
	// the store that writes.
	Gap func(t *testing.T, writer *store.Store)

	// Steal ends hold's claim on the writer lock without its holder being told, so that
	// another can win it: the folder removes state.lock (as by hand), etcd revokes the
	// holder's lease.
	Steal func(t *testing.T, hold store.LockHold)

	// HoldInChild starts another process that wins the writer lock, returns once it
	// holds it, and returns a function that kills it with SIGKILL and waits for it.
	HoldInChild func(t *testing.T) (kill func())
}

// Run runs every check of the contract, each on a fresh home from newHome.
func Run(t *testing.T, newHome func(t *testing.T) Home) {
	checks := []struct {
		name string
		fn   func(*testing.T, Home)
	}{
		{"EmptyHome", emptyHome},
		{"FollowerSeesEveryGeneration", followerSeesEveryGeneration},
		{"WatchSeesGenerationsInOrder", watchSeesGenerationsInOrder},
		{"FollowerAfterGapReadsInFull", followerAfterGapReadsInFull},
		{"LowerEpochIsRefused", lowerEpochIsRefused},
		{"CommitAfterLockStolenIsRefused", commitAfterLockStolenIsRefused},
		{"TryLockIsExclusive", tryLockIsExclusive},
		{"LockWakesOnRelease", lockWakesOnRelease},
		{"LockWakesWhenHolderDies", lockWakesWhenHolderDies},
		{"StolenLockFailsCheck", stolenLockFailsCheck},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newHome(t)) })
	}
}

// deadline bounds every wait for something that must happen: generous, for a loaded
// machine; reaching it fails the check.
const deadline = 60 * time.Second

func emptyHome(t *testing.T, h Home) {
	doc, err := h.Open(t, nil).Reload()
	if err != nil {
		t.Fatalf("a new home: %v", err)
	}
	if doc.Generation != 0 || len(doc.Workflows) != 0 {
		t.Fatalf("a new home holds generation %d with %d workflows, want an empty document", doc.Generation, len(doc.Workflows))
	}
}

// writer opens a store on h that writes: read in full, then the next epoch.
func writer(t *testing.T, h Home, beforeSave func() error) *store.Store {
	t.Helper()
	st := h.Open(t, beforeSave)
	if _, err := st.Reload(); err != nil {
		t.Fatalf("writer's read: %v", err)
	}
	st.BeginEpoch()
	t.Cleanup(st.EndEpoch) // no timed checkpoint after the test
	return st
}

// addWorkflow commits one more workflow, named name, through st.
func addWorkflow(t *testing.T, st *store.Store, name string) *store.Doc {
	t.Helper()
	doc, err := st.Update(func(d *store.Doc) error {
		d.Workflows = append(d.Workflows, store.Workflow{Name: name, MaxConcurrent: 1, OnOwnerLost: "fail",
			Steps: []store.Step{{Argv: []string{"true"}}}})
		return nil
	})
	if err != nil {
		t.Fatalf("commit %s: %v", name, err)
	}
	return doc
}

// same fails unless got is want: the same generation, epoch and content.
func same(t *testing.T, what string, got, want *store.Doc) {
	t.Helper()
	if got.Generation != want.Generation || got.Epoch != want.Epoch {
		t.Fatalf("%s: generation %d epoch %d, want generation %d epoch %d", what, got.Generation, got.Epoch, want.Generation, want.Epoch)
	}
	g, w := content(t, got), content(t, want)
	if g != w {
		t.Fatalf("%s: generation %d differs from what was committed:\n got %s\nwant %s", what, got.Generation, g, w)
	}
}

// content is what a document holds, for comparison: its workflows, schedules and runs.
func content(t *testing.T, d *store.Doc) string {
	t.Helper()
	b, err := json.Marshal(struct {
		W []store.Workflow
		S []store.Schedule
		R []store.Run
	}{d.Workflows, d.Schedules, d.Runs})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// followerSeesEveryGeneration: a follower that reads after each commit sees exactly that
// generation, and a store opened afresh loads the last one.
func followerSeesEveryGeneration(t *testing.T, h Home) {
	w := writer(t, h, nil)
	f := h.Open(t, nil)
	if _, err := f.Reload(); err != nil {
		t.Fatal(err)
	}
	var last *store.Doc
	for i := range 20 {
		last = addWorkflow(t, w, fmt.Sprintf("wf-%d", i))
		got, changed, err := f.Refresh()
		if err != nil || !changed {
			t.Fatalf("follower after commit %d: changed %v, %v", i, changed, err)
		}
		same(t, fmt.Sprintf("follower after commit %d", i), got, last)
	}
	got, changed, err := f.Refresh()
	if err != nil || changed {
		t.Fatalf("follower with nothing new: changed %v, %v", changed, err)
	}
	same(t, "follower with nothing new", got, last)
	fresh, err := h.Open(t, nil).Reload()
	if err != nil {
		t.Fatal(err)
	}
	same(t, "a store opened afresh", fresh, last)
}

// watchSeesGenerationsInOrder: a Watch reports generations in commit order, never one
// twice or older, and ends at the last one committed.
func watchSeesGenerationsInOrder(t *testing.T, h Home) {
	w := writer(t, h, nil)
	f := h.Open(t, nil)
	if _, err := f.Reload(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	seen := make(chan *store.Doc, 1000)
	if err := f.Watch(ctx, func(d *store.Doc, err error) {
		if err == nil {
			seen <- d
		}
	}); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); f.WaitWatches() }()
	var last *store.Doc
	for i := range 30 {
		last = addWorkflow(t, w, fmt.Sprintf("wf-%d", i))
	}
	var prev uint64
	timeout := time.After(deadline)
	for {
		select {
		case d := <-seen:
			if d.Generation <= prev {
				t.Fatalf("the watch went from generation %d to %d", prev, d.Generation)
			}
			prev = d.Generation
			if d.Generation == last.Generation {
				same(t, "the watch's last generation", d, last)
				return
			}
		case <-timeout:
			t.Fatalf("the watch never reported generation %d (last seen %d)", last.Generation, prev)
		}
	}
}

// followerAfterGapReadsInFull: a follower that cannot follow incrementally any more
// reads in full and has exactly the writer's document.
func followerAfterGapReadsInFull(t *testing.T, h Home) {
	w := writer(t, h, nil)
	addWorkflow(t, w, "before")
	f := h.Open(t, nil)
	if _, err := f.Reload(); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		addWorkflow(t, w, fmt.Sprintf("missed-%d", i))
	}
	h.Gap(t, w)
	last := addWorkflow(t, w, "after")
	got, changed, err := f.Refresh()
	if err != nil || !changed {
		t.Fatalf("follower after the gap: changed %v, %v", changed, err)
	}
	same(t, "follower after the gap", got, last)
}

// lowerEpochIsRefused: once a writer with a higher epoch committed, a commit with the
// lower epoch is refused (ErrFenced) and changes nothing, then and after.
func lowerEpochIsRefused(t *testing.T, h Home) {
	a := writer(t, h, nil)
	addWorkflow(t, a, "a-1")
	b := writer(t, h, nil)
	want := addWorkflow(t, b, "b-1")
	if want.Epoch <= 1 {
		t.Fatalf("the second writer's epoch is %d: it must be above the first's", want.Epoch)
	}
	for i := range 2 {
		_, err := a.Update(func(d *store.Doc) error { d.Workflows = d.Workflows[:0]; return nil })
		if i == 0 && !errors.Is(err, store.ErrFenced) {
			t.Fatalf("a commit with the lower epoch: %v, want ErrFenced", err)
		}
		if err == nil {
			t.Fatal("a fenced writer committed again")
		}
	}
	got, err := h.Open(t, nil).Reload()
	if err != nil {
		t.Fatal(err)
	}
	same(t, "the home after the refused commits", got, want)
}

// commitAfterLockStolenIsRefused: a writer whose lock was taken from it while it was
// committing (after its refresh-before-write) is refused by the home and changes
// nothing; the new holder's commit stands.
func commitAfterLockStolenIsRefused(t *testing.T, h Home) {
	holdA, ok, err := h.Lock(t).TryLock()
	if err != nil || !ok {
		t.Fatalf("the first writer's lock: %v %v", ok, err)
	}
	defer holdA.Close()
	a := writer(t, h, holdA.Check)
	addWorkflow(t, a, "a-1")
	var want *store.Doc
	_, err = a.Update(func(d *store.Doc) error {
		h.Steal(t, holdA)
		holdB, ok, err := h.Lock(t).TryLock()
		if err != nil || !ok {
			t.Fatalf("the lock after it was stolen: %v %v", ok, err)
		}
		defer holdB.Close()
		b := writer(t, h, holdB.Check)
		want = addWorkflow(t, b, "b-1")
		d.Workflows = d.Workflows[:0]
		return nil
	})
	if !errors.Is(err, store.ErrFenced) && !errors.Is(err, store.ErrLockLost) {
		t.Fatalf("the commit of the writer whose lock was stolen: %v, want ErrFenced or ErrLockLost", err)
	}
	got, err := h.Open(t, nil).Reload()
	if err != nil {
		t.Fatal(err)
	}
	same(t, "the home after the refused commit", got, want)
}

func tryLockIsExclusive(t *testing.T, h Home) {
	hold, ok, err := h.Lock(t).TryLock()
	if err != nil || !ok {
		t.Fatalf("a free lock: %v %v", ok, err)
	}
	if err := hold.Check(); err != nil {
		t.Fatalf("a hold just won: %v", err)
	}
	other, ok, err := h.Lock(t).TryLock()
	if err != nil || ok {
		if other != nil {
			other.Close()
		}
		t.Fatalf("a second TryLock while held: ok %v, %v; want busy (false, nil)", ok, err)
	}
	if err := hold.Close(); err != nil {
		t.Fatal(err)
	}
	again, ok, err := h.Lock(t).TryLock()
	if err != nil || !ok {
		t.Fatalf("TryLock after Close: %v %v", ok, err)
	}
	again.Close()
}

// waitLock starts Lock on a new handle and returns where its result arrives.
func waitLock(t *testing.T, h Home) <-chan store.LockHold {
	won := make(chan store.LockHold, 1)
	l := h.Lock(t)
	go func() {
		hold, err := l.Lock(context.Background())
		if err != nil {
			t.Errorf("Lock: %v", err)
			hold = nil
		}
		won <- hold
	}()
	return won
}

// mustBlock fails if a hold arrives on won within a moment: the wait must not end while
// the lock is held.
func mustBlock(t *testing.T, won <-chan store.LockHold) {
	t.Helper()
	select {
	case h := <-won:
		if h != nil {
			h.Close()
		}
		t.Fatal("Lock returned while another held the lock")
	case <-time.After(300 * time.Millisecond):
	}
}

// mustWin waits for the hold on won and checks it.
func mustWin(t *testing.T, won <-chan store.LockHold, what string) {
	t.Helper()
	select {
	case hold := <-won:
		if hold == nil {
			t.Fatalf("%s: Lock failed", what)
		}
		defer hold.Close()
		if err := hold.Check(); err != nil {
			t.Fatalf("%s: the hold won: %v", what, err)
		}
	case <-time.After(deadline):
		t.Fatalf("%s: Lock never returned", what)
	}
}

func lockWakesOnRelease(t *testing.T, h Home) {
	hold, ok, err := h.Lock(t).TryLock()
	if err != nil || !ok {
		t.Fatalf("a free lock: %v %v", ok, err)
	}
	won := waitLock(t, h)
	mustBlock(t, won)
	if err := hold.Release(); err != nil {
		t.Fatal(err)
	}
	mustWin(t, won, "after Release")
	if err := hold.Release(); err != nil {
		t.Fatalf("a second Release: %v", err)
	}
}

func lockWakesWhenHolderDies(t *testing.T, h Home) {
	kill := h.HoldInChild(t)
	if hold, ok, err := h.Lock(t).TryLock(); err != nil || ok {
		if hold != nil {
			hold.Close()
		}
		t.Fatalf("TryLock while another process holds the lock: ok %v, %v", ok, err)
	}
	won := waitLock(t, h)
	mustBlock(t, won)
	kill()
	mustWin(t, won, "after the holder was killed")
}

func stolenLockFailsCheck(t *testing.T, h Home) {
	hold, ok, err := h.Lock(t).TryLock()
	if err != nil || !ok {
		t.Fatalf("a free lock: %v %v", ok, err)
	}
	defer hold.Close()
	h.Steal(t, hold)
	if err := hold.Check(); !errors.Is(err, store.ErrLockLost) {
		t.Fatalf("Check of a stolen hold: %v, want ErrLockLost", err)
	}
	next, ok, err := h.Lock(t).TryLock()
	if err != nil || !ok {
		t.Fatalf("TryLock after the steal: %v %v", ok, err)
	}
	next.Close()
}
