//go:build batontest

package ui

import (
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"baton/host"
	"baton/store"
)

// stagedCore is a window core whose role and snapshot the test sets and whose events the
// test sends, to stage a takeover's events in the order and at the pace the test wants.
// The rest (intents, history) is a real core's.
type stagedCore struct {
	*host.Core
	mu  sync.Mutex
	st  host.Status
	doc *store.Doc
	ch  chan host.Event
}

func (c *stagedCore) Status() host.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.st
}

func (c *stagedCore) Snapshot() *store.Doc {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.doc
}

func (c *stagedCore) Subscribe() *host.Sub  { return &host.Sub{C: c.ch} }
func (c *stagedCore) Unsubscribe(*host.Sub) {}

// move sets the core's role and, when doc is not nil, its snapshot, and sends ev.
func (c *stagedCore) move(role host.Role, doc *store.Doc, ev host.Event) {
	c.mu.Lock()
	c.st.Role = role
	if role == host.RoleWriter {
		c.st.WriterPID = c.st.PID
	}
	if doc != nil {
		c.doc = doc
	}
	c.mu.Unlock()
	c.ch <- ev
}

// stageReader opens a window on a staged core that reads, and returns a channel that
// gets a value after each offer of the window's watcher.
func stageReader(t *testing.T, delay time.Duration) (*stagedCore, *Main, *uiQueue, <-chan struct{}) {
	t.Helper()
	isolate(t)
	real := startWriter(t, newHome(t))
	addWorkflow(t, real, "nightly", "true")
	st := real.Status()
	st.Role, st.WriterPID = host.RoleReader, st.PID+1
	c := &stagedCore{Core: real, st: st, doc: real.Snapshot(), ch: make(chan host.Event)}
	offers := make(chan struct{}, 64)
	promotingHooks.Lock()
	promotingHooks.delay, promotingHooks.offered = delay, func() { offers <- struct{}{} }
	promotingHooks.Unlock()
	t.Cleanup(func() {
		promotingHooks.Lock()
		promotingHooks.delay, promotingHooks.offered = 0, nil
		promotingHooks.Unlock()
	})
	m, q := newUITicking(t, c, time.Hour) // no ticks: only the core's events draw
	<-offers                              // Watch's own offer
	q.waitFor(t, "the reader's role bar", roleIs(m, "Read-only"))
	return c, m, q, offers
}

// runPosted runs what was posted to the UI goroutine until nothing is.
func runPosted(q *uiQueue) {
	for {
		select {
		case fn := <-q.ch:
			fn()
		default:
			return
		}
	}
}

// nextPosted waits for the next function posted to the UI goroutine.
func nextPosted(t *testing.T, q *uiQueue, what string) func() {
	t.Helper()
	select {
	case fn := <-q.ch:
		return fn
	case <-time.After(15 * time.Second):
		t.Fatalf("nothing posted to the UI goroutine: want %s", what)
		return nil
	}
}

// waitBlocked waits until a goroutine is blocked in function fn (its stack says so); it
// fails if done is closed first: the goroutine that was to block there returned.
func waitBlocked(t *testing.T, fn string, done <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	buf := make([]byte, 1<<20)
	for {
		select {
		case <-done:
			t.Fatalf("%s returned: want it blocked", fn)
		default:
		}
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "[select") || strings.Contains(g, "[chan receive") {
				if strings.Contains(g, fn+"(") {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no goroutine blocked in %s after 15 s", fn)
		}
		runtime.Gosched()
	}
}

// A fast takeover is not drawn while it runs: between the role event "promoting" (with the
// snapshot the re-read publishes) and "writer", the window neither says "Taking over…"
// nor applies a snapshot (which would refresh the lists, the run pane and the pictures),
// and its UI goroutine, which Fyne's run loop draws on, is parked: a window the dead
// writer's window covered is drawn again (its Expose) only once the takeover ended, so the
// survivor's process draws nothing while it re-reads and saves (issue 22, bug 9).
func TestFastTakeoverIsNotDrawnWhileItRuns(t *testing.T) {
	c, m, q, offers := stageReader(t, time.Hour) // "Taking over…" would wait an hour
	before, label := m.doc, m.Role.Label.Text
	runPosted(q) // what the reader's start left
	c.move(host.RolePromoting, nil, host.Event{Kind: host.EventRole, Role: host.RolePromoting})
	<-offers
	park := nextPosted(t, q, "the UI goroutine's park as the takeover began")
	parked := make(chan struct{})
	go func() { park(); close(parked) }() // the UI goroutine, now in the park
	reread := *c.Snapshot()
	reread.Generation++
	c.move(host.RolePromoting, &reread, host.Event{Kind: host.EventChanged, Generation: reread.Generation})
	<-offers
	waitBlocked(t, "ui.(*Main).parkUntil", parked)
	runPosted(q) // anything else the takeover's events asked the UI goroutine to do
	if m.doc != before || m.Role.Label.Text != label {
		t.Fatalf("while the takeover ran the window drew: role bar %q (was %q), snapshot applied: %v",
			m.Role.Label.Text, label, m.doc != before)
	}
	c.move(host.RoleWriter, nil, host.Event{Kind: host.EventRole, Role: host.RoleWriter})
	<-offers
	select {
	case <-parked:
	case <-time.After(15 * time.Second):
		t.Fatal("the UI goroutine was still parked 15 s after the takeover ended")
	}
	q.waitFor(t, "the writer's role bar", roleIs(m, "Writer"))
	if m.doc.Generation != reread.Generation {
		t.Errorf("after the takeover the window shows generation %d, want the re-read's %d", m.doc.Generation, reread.Generation)
	}
}

// A slow takeover still says so: after PromotingShowAfter the window shows "Taking over…",
// with what was published meanwhile, and then the writer.
func TestSlowTakeoverSaysTakingOver(t *testing.T) {
	c, m, q, offers := stageReader(t, 0) // PromotingShowAfter
	c.move(host.RolePromoting, nil, host.Event{Kind: host.EventRole, Role: host.RolePromoting})
	<-offers
	q.waitFor(t, "Taking over…", roleIs(m, "Taking over…"))
	c.move(host.RoleWriter, nil, host.Event{Kind: host.EventRole, Role: host.RoleWriter})
	<-offers
	q.waitFor(t, "the writer's role bar", roleIs(m, "Writer"))
}
