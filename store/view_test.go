package store

import (
	"context"
	"testing"
	"time"
)

// stuckHome is a DocHome whose Load waits until released: a home across a network that
// was cut while a read was on its way.
type stuckHome struct {
	entered, release chan struct{}
	doc              *Doc
}

func (h *stuckHome) Load(have *Doc, full bool) (*Doc, error) {
	h.entered <- struct{}{}
	<-h.release
	return h.doc, nil
}
func (h *stuckHome) Commit(have, next *Doc) (*Doc, error)          { return next, nil }
func (h *stuckHome) Checkpoint(cur *Doc, check func() error) error { return nil }
func (h *stuckHome) StopWriting()                                  {}
func (h *stuckHome) Follow(ctx context.Context, changed func(bool)) (<-chan struct{}, error) {
	stopped := make(chan struct{})
	go func() { <-ctx.Done(); close(stopped) }()
	return stopped, nil
}

// TestViewNeverWaitsForALoad: while a load is under way (and may wait long, as an etcd
// read across a cut network does), View answers at once with what the last load left,
// and then with what the load brought once it ends. A window's status uses View.
func TestViewNeverWaitsForALoad(t *testing.T) {
	h := &stuckHome{entered: make(chan struct{}), release: make(chan struct{}), doc: emptyDoc()}
	h.doc.Generation = 7
	s := NewOn(t.TempDir(), h, Options{})
	loaded := make(chan error, 1)
	go func() { _, err := s.Reload(); loaded <- err }()
	<-h.entered // the load holds the store now
	viewed := make(chan *Doc, 1)
	go func() { d, _ := s.View(); viewed <- d }()
	select {
	case d := <-viewed:
		if d.Generation != 0 {
			t.Fatalf("View during the first load: generation %d, want 0 (nothing loaded yet)", d.Generation)
		}
	case <-loaded:
		t.Fatal("the load ended before it was released")
	case <-time.After(10 * time.Second): // a hang, not a speed: View returns at once or never
		close(h.release)
		t.Fatal("View waited for the load under way")
	}
	close(h.release)
	if err := <-loaded; err != nil {
		t.Fatal(err)
	}
	if d, err := s.View(); err != nil || d.Generation != 7 {
		t.Fatalf("View after the load: generation %d, %v; want 7", d.Generation, err)
	}
}
