package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"baton/store"
)

// memHome is a second kind of home, kept in this process's memory: a document with its
// generations and a writer lock, behind the seams of store/home.go. It exists to show
// that the core runs on a home that is not the folder through Options.Doc and
// Options.Lock alone (issue 20: a second kind of home is a second implementation, not a
// rewrite); each Core given it plays a window on another machine, with a folder of its
// own for what is local.
type memHome struct {
	mu    sync.Mutex
	gens  []*store.Doc // every committed generation, in order; never changed
	subs  map[int]func(bool)
	next  int
	token chan struct{} // the writer lock: one token
	cur   *memHold      // the hold that has the token, or nil
	loads int           // Load calls, all stores
}

func newMemHome() *memHome {
	h := &memHome{subs: map[int]func(bool){}, token: make(chan struct{}, 1)}
	h.token <- struct{}{}
	return h
}

// doc returns the home's document seam for one Store.
func (h *memHome) doc() store.DocHome { return memDoc{h} }

type memDoc struct{ h *memHome }

func (d memDoc) Load(have *store.Doc, full bool) (*store.Doc, error) {
	d.h.mu.Lock()
	defer d.h.mu.Unlock()
	d.h.loads++
	if len(d.h.gens) == 0 {
		return have, nil
	}
	last := d.h.gens[len(d.h.gens)-1]
	if !full && have != nil && have.Generation == last.Generation {
		return have, nil
	}
	return last, nil
}

// Commit is fenced by the home itself, as etcd's transaction will be: refused when the
// home moved on since have, or holds a higher epoch.
func (d memDoc) Commit(have, next *store.Doc) (*store.Doc, error) {
	h := d.h
	h.mu.Lock()
	var gen, epoch uint64
	if n := len(h.gens); n > 0 {
		gen, epoch = h.gens[n-1].Generation, h.gens[n-1].Epoch
	}
	if have.Generation != gen || next.Epoch < epoch {
		h.mu.Unlock()
		return nil, fmt.Errorf("memory home at generation %d epoch %d, commit from %d epoch %d: %w",
			gen, epoch, have.Generation, next.Epoch, store.ErrFenced)
	}
	h.gens = append(h.gens, next)
	subs := make([]func(bool), 0, len(h.subs))
	for _, f := range h.subs {
		subs = append(subs, f)
	}
	h.mu.Unlock()
	for _, f := range subs {
		f(false)
	}
	return next, nil
}

func (memDoc) Checkpoint(*store.Doc, func() error) error { return nil }
func (memDoc) StopWriting()                              {}

func (d memDoc) Follow(ctx context.Context, changed func(bool)) (<-chan struct{}, error) {
	h := d.h
	h.mu.Lock()
	id := h.next
	h.next++
	h.subs[id] = changed
	h.mu.Unlock()
	stopped := make(chan struct{})
	go func() {
		<-ctx.Done()
		h.mu.Lock()
		delete(h.subs, id)
		h.mu.Unlock()
		close(stopped)
	}()
	return stopped, nil
}

func (h *memHome) TryLock() (store.LockHold, bool, error) {
	select {
	case <-h.token:
		return h.hold(), true, nil
	default:
		return nil, false, nil
	}
}

func (h *memHome) Lock(ctx context.Context) (store.LockHold, error) {
	select {
	case <-h.token:
		return h.hold(), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (h *memHome) hold() *memHold {
	hd := &memHold{h: h}
	h.mu.Lock()
	h.cur = hd
	h.mu.Unlock()
	return hd
}

type memHold struct {
	h    *memHome
	once sync.Once
}

func (m *memHold) Check() error {
	m.h.mu.Lock()
	defer m.h.mu.Unlock()
	if m.h.cur != m {
		return store.ErrLockLost
	}
	return nil
}

func (m *memHold) Release() error {
	m.once.Do(func() {
		m.h.mu.Lock()
		if m.h.cur == m {
			m.h.cur = nil
		}
		m.h.mu.Unlock()
		m.h.token <- struct{}{}
	})
	return nil
}

func (m *memHold) Close() error { return m.Release() }

// steal ends the current hold's claim without telling its holder (a lease revoked).
func (h *memHome) steal() {
	h.mu.Lock()
	h.cur = nil
	h.mu.Unlock()
}

func openOn(t *testing.T, h *memHome) *Core {
	t.Helper()
	w, err := Open(t.TempDir(), Options{Doc: h.doc(), Lock: h})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestCoreOnAnotherKindOfHome runs two cores, each with a folder of its own, on one home
// kept in memory: one writes, the other follows and refuses writes; when the writer
// closes the other takes over with the document; a writer whose lock was taken from it
// cannot write. Nothing of the document goes through the folders.
func TestCoreOnAnotherKindOfHome(t *testing.T) {
	h := newMemHome()
	a := openOn(t, h)
	if a.Role() != RoleWriter {
		t.Fatalf("first core: %v", a.Role())
	}
	b := openOn(t, h)
	if b.Role() != RoleReader {
		t.Fatalf("second core: %v", b.Role())
	}
	wf := func(name string) store.Workflow {
		return store.Workflow{Name: name, Steps: []store.Step{{Argv: []string{"true"}}}}
	}
	ctx := context.Background()
	if _, err := a.Intents().AddWorkflow(ctx, wf("a")); err != nil {
		t.Fatal(err)
	}
	var ro *ReadOnlyError
	if _, err := b.Intents().AddWorkflow(ctx, wf("x")); !errors.As(err, &ro) {
		t.Fatalf("reader write: %v", err)
	}
	waitUntil(t, "the reader to follow the memory home", func() bool { return b.Snapshot().Workflow("a") != nil })

	a.Close()
	waitRole(t, b, RoleWriter)
	if _, err := b.Intents().AddWorkflow(ctx, wf("b")); err != nil {
		t.Fatal(err)
	}
	d := b.Snapshot()
	if d.Workflow("a") == nil || d.Workflow("b") == nil || d.Epoch != 2 {
		t.Fatalf("after the takeover: epoch %d, workflows %+v", d.Epoch, d.Workflows)
	}
	h.mu.Lock()
	last := h.gens[len(h.gens)-1]
	h.mu.Unlock()
	if last.Generation != d.Generation || last.Workflow("b") == nil {
		t.Fatalf("the memory home holds generation %d, the core shows %d", last.Generation, d.Generation)
	}

	// The lock taken from b (a lease revoked): its next write is refused and it stops
	// writing, and nothing it tried reaches the home.
	h.steal()
	if _, err := b.Intents().AddWorkflow(ctx, wf("late")); err == nil {
		t.Fatal("a core whose lock was taken wrote")
	}
	h.mu.Lock()
	last = h.gens[len(h.gens)-1]
	h.mu.Unlock()
	if last.Workflow("late") != nil {
		t.Fatal("the refused write reached the home")
	}
}
