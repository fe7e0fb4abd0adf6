package etcdhome

import (
	"context"
	"testing"

	"baton/store"
)

// TestFollowSeesEverySaveInOrder: a follower sees each generation a writer saves, in
// order, none skipped, from the document it read first.
func TestFollowSeesEverySaveInOrder(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	w := writer(t, h, ident("laptop", 10))
	if _, err := w.Update(ctx, addRuns(1, "first")); err != nil {
		t.Fatal(err)
	}
	seen := make(chan Snapshot, 100)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f := openHome(t, shared.client(t), h.Prefix(), Options{})
	go f.Follow(fctx, func(s Snapshot) { seen <- s })
	if s := <-seen; s.Doc.Generation != 1 {
		t.Fatalf("follower read generation %d first, want 1", s.Doc.Generation)
	}
	for i := 0; i < 20; i++ {
		if _, err := w.Update(ctx, func(d *store.Doc) error { d.Seq++; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	for want := uint64(2); want <= 21; want++ {
		select {
		case s := <-seen:
			if s.Doc.Generation != want {
				t.Fatalf("follower saw generation %d, want %d", s.Doc.Generation, want)
			}
		case <-ctx.Done():
			t.Fatalf("follower did not see generation %d", want)
		}
	}
}

// TestFollowCompactedReadsAgain: when the revision a follower would watch from was
// compacted under it, it reads the document in full again and goes on following.
func TestFollowCompactedReadsAgain(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	w := writer(t, h, ident("laptop", 10))
	if _, err := w.Update(ctx, addRuns(1, "first")); err != nil {
		t.Fatal(err)
	}
	seen := make(chan Snapshot, 100)
	f := &follower{h: openHome(t, shared.client(t), h.Prefix(), Options{}), fn: func(s Snapshot) { seen <- s }}
	rev, err := f.read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s := <-seen; s.Doc.Generation != 1 {
		t.Fatalf("first read: generation %d", s.Doc.Generation)
	}
	var last *store.Doc
	for i := 0; i < 5; i++ { // the follower falls behind ...
		if last, err = w.Update(ctx, addRuns(1, "behind"+string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	now := revision(t, h)
	if _, err := h.cli.Compact(ctx, now); err != nil { // ... and its revision is compacted
		t.Fatal(err)
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go f.run(fctx, rev)
	select {
	case s := <-seen:
		if s.Doc.Generation != last.Generation || len(s.Doc.Runs) != 6 {
			t.Fatalf("after the compaction the follower saw generation %d with %d runs, want %d with 6",
				s.Doc.Generation, len(s.Doc.Runs), last.Generation)
		}
	case <-ctx.Done():
		t.Fatal("the follower did not read again after its revision was compacted")
	}
	if _, err := w.Update(ctx, addRuns(1, "after")); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-seen:
		if s.Doc.Generation != last.Generation+1 {
			t.Fatalf("then saw generation %d, want %d", s.Doc.Generation, last.Generation+1)
		}
	case <-ctx.Done():
		t.Fatal("the follower stopped following after the compaction")
	}
}
