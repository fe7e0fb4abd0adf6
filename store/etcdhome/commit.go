package etcdhome

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

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
	ch, err := st.enc.changes(doc, st.set, st.kv)
	if err != nil {
		return fmt.Errorf("etcd home %s: %w", t.h.prefix, err)
	}
	ops, size := t.h.changeOps(ch)
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
	for _, p := range ch.puts { // only now: a refused save leaves st as it was
		st.kv[p.key] = p.val
	}
	for _, k := range ch.dels {
		delete(st.kv, k)
	}
	st.metaRev, st.doc, st.garbage = rev, doc, false
	return nil
}

// change is what a save writes: the keys whose values are new or differ from the
// current ones (meta always: the generation changes), and the keys it deletes.
type change struct {
	puts []keyVal
	dels []string
}

type keyVal struct {
	key string
	val []byte
}

// changes returns what turns cur (the keys of meta and set) into doc's keys in set. It
// encodes only the runs that changed since the encoder last saw them, compares each
// item's bytes with cur's, and builds the whole key set only when an item is gone.
func (e *encoder) changes(doc *store.Doc, set string, cur encoded) (change, error) {
	var ch change
	pfx := set + "/"
	m := meta{Doc: *doc, Set: set}
	m.Doc.Workflows, m.Doc.Runs, m.Doc.Schedules = nil, nil, nil
	found := 0 // items of doc already in cur
	item := func(k string, b []byte) {
		old, ok := cur[pfx+k]
		if ok {
			found++
		}
		if !ok || !bytes.Equal(old, b) {
			ch.puts = append(ch.puts, keyVal{pfx + k, b})
		}
	}
	m.Workflows = make([]string, 0, len(doc.Workflows))
	for i := range doc.Workflows {
		k := itemKey(kindWorkflow, doc.Workflows[i].Name)
		b, err := json.Marshal(&doc.Workflows[i])
		if err != nil {
			return ch, fmt.Errorf("encode workflow %q: %w", doc.Workflows[i].Name, err)
		}
		item(k, b)
		m.Workflows = append(m.Workflows, k)
	}
	m.Schedules = make([]string, 0, len(doc.Schedules))
	for i := range doc.Schedules {
		k := itemKey(kindSchedule, doc.Schedules[i].ID)
		b, err := json.Marshal(&doc.Schedules[i])
		if err != nil {
			return ch, fmt.Errorf("encode schedule %q: %w", doc.Schedules[i].ID, err)
		}
		item(k, b)
		m.Schedules = append(m.Schedules, k)
	}
	if e.runs == nil {
		e.runs = make(map[string]encRun, len(doc.Runs))
	}
	m.Runs = make([]string, 0, len(doc.Runs))
	for i := range doc.Runs {
		r := &doc.Runs[i]
		c, changed, err := e.run(r)
		if err != nil {
			return ch, err
		}
		if changed {
			e.runs[r.ID] = c
		}
		item(c.key, c.b)
		m.Runs = append(m.Runs, c.key)
	}
	if len(e.runs) > len(doc.Runs) { // runs went: forget them (finished runs never change)
		e.sweep(doc)
	}
	b, err := json.Marshal(&m)
	if err != nil {
		return ch, fmt.Errorf("encode the document's meta: %w", err)
	}
	ch.puts = append(ch.puts, keyVal{"meta", b})
	if _, ok := cur["meta"]; ok {
		found++
	}
	if found < len(cur) { // some key of cur is no longer doc's: delete it
		keep := make(map[string]bool, len(m.Workflows)+len(m.Schedules)+len(m.Runs)+1)
		keep["meta"] = true
		for _, ks := range [][]string{m.Workflows, m.Schedules, m.Runs} {
			for _, k := range ks {
				keep[pfx+k] = true
			}
		}
		for k := range cur {
			if !keep[k] {
				ch.dels = append(ch.dels, k)
			}
		}
		slices.Sort(ch.dels)
	}
	slices.SortFunc(ch.puts, func(a, b keyVal) int { return strings.Compare(a.key, b.key) })
	return ch, nil
}

// sweep drops the cached encodings of runs doc no longer has.
func (e *encoder) sweep(doc *store.Doc) {
	have := make(map[string]bool, len(doc.Runs))
	for i := range doc.Runs {
		have[doc.Runs[i].ID] = true
	}
	for id := range e.runs {
		if !have[id] {
			delete(e.runs, id)
		}
	}
}

// changeOps returns the operations of ch and their size.
func (h *Home) changeOps(ch change) ([]clientv3.Op, int) {
	ops := make([]clientv3.Op, 0, len(ch.puts)+len(ch.dels))
	size := 0
	for _, p := range ch.puts {
		ops = append(ops, clientv3.OpPut(h.docPfx()+p.key, string(p.val)))
		size += len(h.docPfx()) + len(p.key) + len(p.val) + opCost
	}
	for _, k := range ch.dels {
		ops = append(ops, clientv3.OpDelete(h.docPfx()+k))
		size += len(h.docPfx()) + len(k) + opCost
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
