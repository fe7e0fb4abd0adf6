package etcdhome

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
)

// opCost is what a put or delete adds to a request beyond its key and value (protobuf
// framing), counted generously.
const opCost = 32

// reqMargin is the part of a request kept for the compares and framing.
const reqMargin = 8 << 10

// Load reads the whole document at one revision (a linearizable read) and makes it the
// base of the term's commits: the takeover's "read the document before the first write".
// It returns nil, nil when the home has no document yet. The returned document is a
// snapshot: the caller must not modify it.
func (t *Term) Load(ctx context.Context) (*store.Doc, error) {
	st := &t.doc
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.h.readInto(ctx, st); err != nil {
		return nil, err
	}
	return st.doc, nil
}

// readInto reads the document in full into st.
func (h *Home) readInto(ctx context.Context, st *docState) error {
	resp, err := h.cli.Get(ctx, h.docPfx(), clientv3.WithPrefix())
	if err != nil {
		return fmt.Errorf("etcd home %s: read the document: %w", h.prefix, err)
	}
	return h.loadKVs(st, resp.Kvs, resp.Header.Revision)
}

// loadKVs replaces st's document with the one kvs hold.
func (h *Home) loadKVs(st *docState, kvs []*mvccpb.KeyValue, _ int64) error {
	kv := make(encoded, len(kvs))
	var metaRev int64
	for _, e := range kvs {
		k, ok := h.relKey(e.Key)
		if !ok {
			continue
		}
		kv[k] = e.Value
		if k == "meta" {
			metaRev = e.ModRevision
		}
	}
	doc, err := st.dec.decode(kv)
	if err != nil {
		return fmt.Errorf("etcd home %s: %w", h.prefix, err)
	}
	st.loaded, st.metaRev, st.doc = true, metaRev, doc
	st.set, st.kv, st.garbage = currentSet(kv)
	return nil
}

// currentSet returns the set meta names, the keys of meta and that set, and whether
// keys of other sets (an unfinished chunked save) are present.
func currentSet(kv encoded) (string, encoded, bool) {
	set := setName(0)
	if mb, ok := kv["meta"]; ok {
		var m meta
		if strictUnmarshal(mb, &m) == nil {
			set = m.Set
		}
	}
	pfx := set + "/"
	cur := make(encoded, len(kv))
	garbage := false
	for k, v := range kv {
		if k == "meta" || len(k) > len(pfx) && k[:len(pfx)] == pfx {
			cur[k] = v
		} else {
			garbage = true
		}
	}
	return set, cur, garbage
}

// Update is the only way a writer changes the document: it runs fn on a private copy of
// the newest document (an empty one of the current schema when the home has none), with
// the generation one up and the epoch set to the term's, validates the result and commits
// it (see Commit). If the document changed under the term (ErrConflict), it re-reads and
// runs fn once more: refresh before write. It blocks for the commit's round trips and
// returns the saved document, a snapshot.
func (t *Term) Update(ctx context.Context, fn func(*store.Doc) error) (*store.Doc, error) {
	st := &t.doc
	t.mu.Lock()
	defer t.mu.Unlock()
	if !st.loaded {
		return nil, ErrNotLoaded
	}
	for attempt := 0; ; attempt++ {
		c := &store.Doc{Schema: store.SchemaVersion}
		if st.doc != nil {
			c = st.doc.Clone()
		}
		c.Generation++
		c.Epoch = uint64(t.epoch)
		if err := fn(c); err != nil {
			return nil, err
		}
		if err := c.Validate(); err != nil {
			return nil, fmt.Errorf("etcd home %s: %w", t.h.prefix, err)
		}
		err := t.commit(ctx, st, c)
		if errors.Is(err, ErrConflict) && attempt == 0 {
			if rerr := t.h.readInto(ctx, st); rerr != nil {
				return nil, rerr
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		return c, nil
	}
}

// Commit saves doc as the term's next document in one transaction guarded by the term's
// epoch (its election key still has the CreateRevision it won with) and by the revision
// of the meta the term last read or wrote. Only the keys that changed are written. A save
// larger than one transaction allows is staged first (see README.md, "Chunked saves");
// its final transaction carries the same guards. On ErrFenced or ErrConflict nothing of
// the document changed. The caller must not modify doc afterwards.
func (t *Term) Commit(ctx context.Context, doc *store.Doc) error {
	st := &t.doc
	t.mu.Lock()
	defer t.mu.Unlock()
	if !st.loaded {
		return ErrNotLoaded
	}
	return t.commit(ctx, st, doc)
}

// fence is what guards a writer's commits: its election key and the CreateRevision it
// won with (its epoch).
type fence struct {
	h     *Home
	key   string
	epoch int64
}

// commit saves doc as the document after st's, guarded by t; st is updated on success.
func (t fence) commit(ctx context.Context, st *docState, doc *store.Doc) error {
	next, err := st.enc.encode(doc, st.set)
	if err != nil {
		return fmt.Errorf("etcd home %s: %w", t.h.prefix, err)
	}
	ops, size := t.h.diff(st.kv, next)
	if st.garbage { // an unfinished chunked save left keys: this save deletes them
		ops = append(ops, t.h.otherSets(st.set)...)
	}
	if len(ops) > t.h.opts.MaxTxnOps || size > t.h.opts.MaxRequestBytes-reqMargin {
		return t.commitChunked(ctx, st, doc)
	}
	rev, err := t.fencedTxn(ctx, st, ops)
	if err != nil {
		return err
	}
	st.kv, st.metaRev, st.doc, st.garbage = next, rev, doc, false
	return nil
}

// diff returns the operations that turn the keys of cur into those of next, and their size.
func (h *Home) diff(cur, next encoded) ([]clientv3.Op, int) {
	var ops []clientv3.Op
	size := 0
	keys := make([]string, 0, len(next))
	for k, v := range next {
		if old, ok := cur[k]; !ok || string(old) != string(v) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys) // meta last is not needed: one transaction is atomic
	for _, k := range keys {
		ops = append(ops, clientv3.OpPut(h.docPfx()+k, string(next[k])))
		size += len(h.docPfx()) + len(k) + len(next[k]) + opCost
	}
	for k := range cur {
		if _, ok := next[k]; !ok {
			ops = append(ops, clientv3.OpDelete(h.docPfx()+k))
			size += len(h.docPfx()) + len(k) + opCost
		}
	}
	return ops, size
}

// fencedTxn runs ops in one transaction guarded by the term's epoch and the meta's
// revision, and returns the revision it committed at.
func (t fence) fencedTxn(ctx context.Context, st *docState, ops []clientv3.Op) (int64, error) {
	cmps := append(t.held(), clientv3.Compare(clientv3.ModRevision(t.h.metaKey()), "=", st.metaRev))
	resp, err := t.h.cli.Txn(ctx).If(cmps...).Then(ops...).Commit()
	if err != nil {
		if errors.Is(err, rpctypes.ErrRequestTooLarge) || errors.Is(err, rpctypes.ErrTooManyOps) {
			return 0, fmt.Errorf("etcd home %s: save: %w: %w", t.h.prefix, ErrTooLarge, err)
		}
		return 0, fmt.Errorf("etcd home %s: save: %w", t.h.prefix, err)
	}
	if !resp.Succeeded {
		return 0, t.refused(ctx)
	}
	return resp.Header.Revision, nil
}

// refused names why a fenced transaction was refused: the term's election key is gone
// (ErrFenced) or the document changed (ErrConflict).
func (t fence) refused(ctx context.Context) error {
	if t.key == "" {
		return fmt.Errorf("etcd home %s: save refused: %w", t.h.prefix, ErrConflict)
	}
	resp, err := t.h.cli.Get(ctx, t.key)
	if err == nil && len(resp.Kvs) == 1 && resp.Kvs[0].CreateRevision == t.epoch {
		return fmt.Errorf("etcd home %s: save refused: %w", t.h.prefix, ErrConflict)
	}
	// The key is gone or was made again (or cannot be read): the term ended.
	return fmt.Errorf("etcd home %s: save refused, writer key %s of epoch %d: %w", t.h.prefix, t.key, t.epoch, ErrFenced)
}

// held returns the compare that the fence's election key still has its epoch, or none
// for a fence without a key (a DocHome whose process holds no writer lock).
func (t fence) held() []clientv3.Cmp {
	if t.key == "" {
		return nil
	}
	return []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(t.key), "=", t.epoch)}
}

// isLeaseNotFound reports whether err says a lease does not exist (expired or revoked).
func isLeaseNotFound(err error) bool { return errors.Is(err, rpctypes.ErrLeaseNotFound) }
