package ui

import (
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"baton/host"
)

// TestStartupMemoryReleasedOnce checks that a window gives the memory of its start back
// once its role settles (writer or reader), and only once: not before (the start is still
// decoding and saving) and not on every later snapshot (a full collection per render
// would cost more than it saves).
func TestStartupMemoryReleasedOnce(t *testing.T) {
	var calls atomic.Int32
	released := make(chan struct{}, 16)
	was := settleMemory
	settleMemory = func() { calls.Add(1); released <- struct{}{} }
	t.Cleanup(func() { settleMemory = was })

	isolate(t)
	home := newHome(t)
	w := openCore(t, home)
	m, q := newUI(t, w)
	m.apply(w.Snapshot(), w.Status(), w.LastTakeover(), []host.Event{{Kind: host.EventChanged}})
	if m.released {
		t.Fatalf("released while the role is %q", m.st.Role)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	q.waitFor(t, "the writer role", roleIs(m, "Writer"))
	waitRelease(t, m, q, released)
	addWorkflow(t, w, "nightly", "true")
	q.waitFor(t, "the new workflow listed", func() bool { return m.Workflows.Length() == 1 })

	r := openCore(t, home)
	mr, qr := newUI(t, r)
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	qr.waitFor(t, "the reader role", func() bool { return mr.st.Role == host.RoleReader })
	waitRelease(t, mr, qr, released)
	addWorkflow(t, w, "weekly", "true")
	qr.waitFor(t, "the reader lists the new workflow", func() bool { return mr.Workflows.Length() == 2 })
	q.waitFor(t, "the writer lists the new workflow", func() bool { return m.Workflows.Length() == 2 })
	if n := calls.Load(); n != 2 {
		t.Fatalf("the memory of the start was released %d times by two windows, want once each", n)
	}
}

// waitRelease runs m's UI work until m released the memory of its start, and waits for
// the release, which runs on a goroutine of its own.
func waitRelease(t *testing.T, m *Main, q *uiQueue, released <-chan struct{}) {
	t.Helper()
	q.waitFor(t, "the release", func() bool { return m.released })
	select {
	case <-released:
	case <-time.After(15 * time.Second):
		t.Fatal("the memory of the start was never released")
	}
}

// TestWindowCollectorTargets: while a window starts, its collector lets the heap grow to
// StartGCPercent over what is live (few collections in the start's burst); once the start
// is over, by SteadyGCPercent, not double it. A GOGC the person set is left as it is.
func TestWindowCollectorTargets(t *testing.T) {
	was := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(was) })
	for _, c := range []struct {
		when string
		set  func()
		want int
	}{{"at the start", StartMemory, StartGCPercent}, {"after the start", settleMemory, SteadyGCPercent}} {
		t.Setenv("GOGC", "")
		c.set()
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC %s is %d, want %d", c.when, got, c.want)
		}
		t.Setenv("GOGC", "100")
		c.set()
		if got := debug.SetGCPercent(100); got != 100 {
			t.Errorf("GOGC=100 set by the person became %d %s", got, c.when)
		}
	}
}
