package ui

import (
	"testing"
	"time"

	"baton/host"
)

// TestEventBurstQueuesOneApply checks that a burst of core events queues one apply on the
// UI goroutine, not one per event or per batch: a window that opens on a big home is
// told of every run in it, and one render per event would keep the window busy for
// minutes after it looks idle. The UI goroutine runs nothing until the watcher has taken
// in every event of the start; then at most two applies may be waiting (Watch's own and
// the burst's), and the one that runs shows every event and the newest snapshot.
func TestEventBurstQueuesOneApply(t *testing.T) {
	const runs = 2000
	isolate(t)
	home := newHome(t)
	seedHome(t, home, 10, runs)
	w := openCoreWith(t, home, host.Options{KeepFinished: -1, MaxFinished: runs})
	// No tick while the events come: only applies may wait on the UI goroutine (a loaded
	// machine's slow start would otherwise queue ticks beside them).
	m, q := newUITicking(t, w, time.Hour)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for m.offeredEvents() < runs {
		if time.Now().After(deadline) {
			t.Fatalf("the watcher took in %d events of the start, want at least %d", m.offeredEvents(), runs)
		}
		time.Sleep(5 * time.Millisecond) // polling the watcher, not waiting for it to finish
	}
	if n := len(q.ch); n > 2 {
		t.Fatalf("%d applies are queued on the UI goroutine for one burst of %d events, want at most 2", n, runs)
	}
	q.waitFor(t, "the newest snapshot shown", func() bool {
		return m.doc.Generation == w.Snapshot().Generation && len(m.runIdx) == runs
	})
}

// offeredEvents is how many events wait for the next apply.
func (m *Main) offeredEvents() int {
	m.pend.mu.Lock()
	defer m.pend.mu.Unlock()
	return len(m.pend.evs)
}

// TestActionSnapshotIsNotUndone: after an action of this window, the snapshot it took is
// shown, even if the watcher had offered an older one, not applied yet: that apply must
// not put the older snapshot back (an editor whose new workflow is not in it closes).
func TestActionSnapshotIsNotUndone(t *testing.T) {
	isolate(t)
	home := newHome(t)
	w := openCore(t, home)
	m, q := newUITicking(t, w, time.Hour)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the writer role", roleIs(m, "Writer"))
	older := w.Snapshot()
	addWorkflow(t, w, "fresh", "true")
	// This goroutine is the window's UI goroutine (it runs what is posted).
	m.pend.mu.Lock() // the watcher's offer of the snapshot before the save, queued
	m.pend.doc, m.pend.evs, m.pend.queued = older, append(m.pend.evs, host.Event{Kind: host.EventChanged}), true
	m.pend.mu.Unlock()
	m.freshDoc() // the action's own snapshot, as its callback takes it
	m.applyPending()
	if m.doc.Workflow("fresh") == nil {
		t.Fatalf("the older snapshot (generation %d) was applied over the action's", m.doc.Generation)
	}
}
