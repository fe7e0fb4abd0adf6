package etcdhome

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
)

// writer campaigns and loads, or fails the test.
func writer(t *testing.T, h *Home, id Identity) *Term {
	t.Helper()
	term := campaign(t, h, id)
	if _, err := term.Load(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	return term
}

func addRuns(n int, tag string) func(*store.Doc) error {
	return func(d *store.Doc) error {
		if d.Workflow("wf") == nil {
			d.Workflows = append(d.Workflows, store.Workflow{Name: "wf", MaxConcurrent: 1, OnOwnerLost: "fail",
				Steps: []store.Step{{Argv: []string{"true"}}}})
		}
		for i := 0; i < n; i++ {
			d.Seq++
			d.Runs = append(d.Runs, store.Run{ID: fmt.Sprintf("%s-%04d", tag, i), Seq: d.Seq, Workflow: "wf",
				Status: store.StatusQueued, Created: time.Unix(1700000000, 0).UTC()})
		}
		return nil
	}
}

// revision returns the store's current revision.
func revision(t *testing.T, h *Home) int64 {
	t.Helper()
	resp, err := h.cli.Get(testCtx(t), h.metaKey())
	if err != nil {
		t.Fatal(err)
	}
	return resp.Header.Revision
}

// TestSaveRoundTrip: what a writer saves, a later term loads the same, item order kept,
// and a save writes only the keys it changed.
func TestSaveRoundTrip(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	a := writer(t, h, ident("laptop", 10))
	saved, err := a.Update(ctx, func(d *store.Doc) error {
		d.Home = "0123456789abcdef0123456789abcdef"
		d.Schedules = append(d.Schedules, store.Schedule{ID: "z", Workflow: "wf", Every: store.Duration(time.Minute)},
			store.Schedule{ID: "a/b c", Workflow: "wf", Cron: "* * * * *"})
		return addRuns(5, "r")(d)
	})
	if err != nil {
		t.Fatal(err)
	}
	if saved.Generation != 1 || saved.Epoch != uint64(a.Epoch()) {
		t.Fatalf("generation %d epoch %d, want 1 and %d", saved.Generation, saved.Epoch, a.Epoch())
	}
	before := revision(t, h)
	if _, err := a.Update(ctx, func(d *store.Doc) error { d.Runs[2].Status = store.StatusRunning; return nil }); err != nil {
		t.Fatal(err)
	}
	// One revision; its events name exactly the meta and the one run changed.
	resp, err := h.cli.Get(ctx, h.docPfx(), clientv3.WithPrefix(), clientv3.WithMinModRev(before+1))
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, kv := range resp.Kvs {
		changed = append(changed, string(kv.Key[len(h.docPfx()):]))
	}
	want := []string{"meta", setName(0) + "/run/r-0002"}
	if !reflect.DeepEqual(changed, want) {
		t.Fatalf("keys written by a one-run save: %q, want %q", changed, want)
	}
	last, _ := a.Load(ctx)
	if err := a.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	b := writer(t, h, ident("server", 20))
	got, _ := b.Load(ctx)
	if !reflect.DeepEqual(got, last) {
		t.Fatalf("loaded\n%+v\nwant\n%+v", got, last)
	}
	if got.Schedules[0].ID != "z" || got.Runs[4].ID != "r-0004" {
		t.Fatalf("order not kept: %+v", got.Schedules)
	}
}

// TestFencedCommitRefused: a writer whose lease is gone can never write: its commit is
// refused with ErrFenced and nothing under the prefix changes.
func TestFencedCommitRefused(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	a := writer(t, h, ident("laptop", 10))
	if _, err := a.Update(ctx, addRuns(1, "a")); err != nil {
		t.Fatal(err)
	}
	if err := h.RevokeDead(ctx, a.Lease()); err != nil { // the lease is gone, whatever a believes
		t.Fatal(err)
	}
	before := revision(t, h)
	_, err := a.Update(ctx, addRuns(1, "late"))
	if !errors.Is(err, ErrFenced) {
		t.Fatalf("commit after the lease was revoked: %v, want ErrFenced", err)
	}
	if after := revision(t, h); after != before {
		t.Fatalf("the refused commit changed the store: revision %d -> %d", before, after)
	}
}

// TestFencedAgainstNewWriter: when a new writer has won (the old one's lease lost), the
// old term's commit is refused even though it still holds a document it read.
func TestFencedAgainstNewWriter(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	a := writer(t, h, ident("laptop", 10))
	if _, err := a.Update(ctx, addRuns(1, "a")); err != nil {
		t.Fatal(err)
	}
	h.RevokeDead(ctx, a.Lease())
	b := writer(t, h, ident("server", 20))
	if _, err := b.Update(ctx, addRuns(1, "b")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Update(ctx, addRuns(1, "late")); !errors.Is(err, ErrFenced) {
		t.Fatalf("old term's commit: %v, want ErrFenced", err)
	}
	doc, _ := b.Load(ctx)
	if doc.Run("late-0000") != nil || doc.Run("b-0000") == nil {
		t.Fatalf("document after the fenced commit: %+v", doc.Runs)
	}
}

// TestConflictRefreshesBeforeWrite: when the document changed since the term read it,
// a commit is refused (ErrConflict) and Update runs its function again on the newest
// document, so nothing written in between is lost.
func TestConflictRefreshesBeforeWrite(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	a := writer(t, h, ident("laptop", 10))
	if _, err := a.Update(ctx, addRuns(1, "a")); err != nil {
		t.Fatal(err)
	}
	// A second handle of the same term (same key and epoch) writes behind a's back.
	other := &Term{fence: a.fence, sess: a.sess, elec: a.elec}
	if _, err := other.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Update(ctx, addRuns(1, "other")); err != nil {
		t.Fatal(err)
	}
	stale := a.doc.doc.Clone()
	stale.Generation++
	if err := a.Commit(ctx, stale); !errors.Is(err, ErrConflict) {
		t.Fatalf("commit on a stale base: %v, want ErrConflict", err)
	}
	doc, err := a.Update(ctx, addRuns(1, "a2"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Run("other-0000") == nil || doc.Run("a2-0000") == nil || doc.Generation != 3 {
		t.Fatalf("Update did not refresh before writing: generation %d runs %d", doc.Generation, len(doc.Runs))
	}
}

// TestChunkedSaveAtomic: a save larger than one transaction allows is staged and switched
// in one final transaction: a follower never sees part of it, and a later term loads it
// whole.
func TestChunkedSaveAtomic(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{MaxTxnOps: 8})
	a := writer(t, h, ident("laptop", 10))
	seen := make(chan Snapshot, 100)
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go h.Follow(fctx, func(s Snapshot) { seen <- s })
	if _, err := a.Update(ctx, addRuns(3, "small")); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Update(ctx, addRuns(50, "big")); err != nil { // 51 keys: 7 batches
		t.Fatal(err)
	}
	if _, err := a.Update(ctx, func(d *store.Doc) error { d.Runs[0].Status = store.StatusRunning; return nil }); err != nil {
		t.Fatal(err)
	}
	for want := uint64(1); want <= 3; want++ {
		var s Snapshot
		select {
		case s = <-seen:
		case <-ctx.Done():
			t.Fatalf("follower did not see generation %d", want)
		}
		if s.Doc.Generation != want {
			t.Fatalf("follower saw generation %d, want %d", s.Doc.Generation, want)
		}
		if n := len(s.Doc.Runs); (want == 1 && n != 3) || (want > 1 && n != 53) {
			t.Fatalf("generation %d has %d runs: a partial save was published", want, n)
		}
	}
	h.RevokeDead(ctx, a.Lease())
	c := writer(t, h, ident("server", 20))
	doc, _ := c.Load(ctx)
	if len(doc.Runs) != 53 || doc.Runs[0].Status != store.StatusRunning {
		t.Fatalf("loaded %d runs", len(doc.Runs))
	}
}

// TestUnfinishedChunkedSaveIgnoredAndCleaned: keys a dead writer staged for a chunked
// save it never switched to are not the document (a reader ignores them, nothing of
// them is published) and the next writer's first save deletes them.
func TestUnfinishedChunkedSaveIgnoredAndCleaned(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	a := writer(t, h, ident("laptop", 10))
	if _, err := a.Update(ctx, addRuns(2, "a")); err != nil {
		t.Fatal(err)
	}
	// What a writer fenced mid-staging leaves: items of a set meta does not name.
	for _, set := range []string{setName(7), setName(0x77)} {
		if _, err := h.cli.Put(ctx, h.setPfx(set)+"run/ghost", `{"id":"ghost","status":"queued"}`); err != nil {
			t.Fatal(err)
		}
	}
	h.RevokeDead(ctx, a.Lease())
	b := writer(t, h, ident("server", 20))
	doc, _ := b.Load(ctx)
	if doc.Run("ghost") != nil || len(doc.Runs) != 2 {
		t.Fatalf("a staged key was taken for the document: %+v", doc.Runs)
	}
	if _, err := b.Update(ctx, addRuns(1, "b")); err != nil {
		t.Fatal(err)
	}
	resp, err := h.cli.Get(ctx, h.docPfx(), clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		if k := string(kv.Key); k != h.metaKey() && k[:len(h.setPfx(setName(0)))] != h.setPfx(setName(0)) {
			t.Fatalf("staged key %s left after the next save", k)
		}
	}
	if len(resp.Kvs) != 1+1+3 { // meta, a workflow, three runs
		t.Fatalf("%d keys under the document, want 5", len(resp.Kvs))
	}
}

// TestChunkedSaveDefaultLimits: against a member's default limits (128 operations, 1.5
// MiB a request), a save of 300 new runs and one of 2.4 MiB both commit, and load whole.
func TestChunkedSaveDefaultLimits(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	a := writer(t, h, ident("laptop", 10))
	if _, err := a.Update(ctx, addRuns(300, "many")); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 60<<10)
	if _, err := a.Update(ctx, func(d *store.Doc) error {
		if err := addRuns(40, "big")(d); err != nil {
			return err
		}
		for i := range d.Runs[300:] {
			d.Runs[300+i].Status, d.Runs[300+i].Error = store.StatusFailed, fmt.Sprintf("%d%s", i, big)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	h.RevokeDead(ctx, a.Lease())
	b := writer(t, h, ident("server", 20))
	doc, _ := b.Load(ctx)
	if len(doc.Runs) != 340 || len(doc.Runs[339].Error) != len(big)+2 {
		t.Fatalf("loaded %d runs", len(doc.Runs))
	}
}
