package etcdhome

import (
	"context"
	"errors"
	"testing"

	"baton/store"
)

// TestImportWholeOrNothing: a document imported into an empty home (baton migrate)
// appears in one step, also when it takes a chunked save; a home that has a document is
// refused and keeps it; Others sees every key but the caller's own election key.
func TestImportWholeOrNothing(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{MaxTxnOps: 8})
	a := writer(t, h, ident("laptop", 10))
	if keys, n, err := h.OtherKeys(ctx, a.Key(), 5); err != nil || n != 0 || len(keys) != 0 {
		t.Fatalf("an empty home has others: %v, %d, %v", keys, n, err)
	}
	doc := &store.Doc{Schema: store.SchemaVersion, Generation: 42, Epoch: 7}
	if err := addRuns(60, "moved")(doc); err != nil { // 61 items: a chunked save of 8 ops a transaction
		t.Fatal(err)
	}
	seen := make(chan Snapshot, 100)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go h.Follow(fctx, func(s Snapshot) { seen <- s })
	if err := a.Import(ctx, doc); err != nil {
		t.Fatal(err)
	}
	for s := range seen {
		if s.Doc == nil {
			continue // the follower's first read, before the import
		}
		if s.Doc.Generation != 42 || len(s.Doc.Runs) != 60 {
			t.Fatalf("a follower saw generation %d with %d runs: a partial import", s.Doc.Generation, len(s.Doc.Runs))
		}
		break
	}
	got, err := h.ReadDoc(ctx)
	if err != nil || got == nil || got.Generation != 42 || got.Epoch != 7 || len(got.Runs) != 60 {
		t.Fatalf("read back: %v, %v", got, err)
	}
	other := &store.Doc{Schema: store.SchemaVersion, Generation: 1}
	if err := a.Import(ctx, other); !errors.Is(err, ErrConflict) {
		t.Fatalf("an import over a document: %v, want ErrConflict", err)
	}
	if got, _ := h.ReadDoc(ctx); got.Generation != 42 || len(got.Runs) != 60 {
		t.Fatalf("the refused import changed the document: generation %d", got.Generation)
	}
	if keys, n, err := h.OtherKeys(ctx, a.Key(), 5); err != nil || n < 62 || len(keys) != 5 {
		t.Fatalf("others after the import: %v, %d, %v", keys, n, err)
	}
}
