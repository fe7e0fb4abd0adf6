package etcdhome

import (
	"context"
	"fmt"
	"slices"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
)

// commitChunked saves doc when its changes do not fit one transaction: it writes the
// whole document's items into a new set named by doc's generation, in as many
// transactions as needed, each guarded by the epoch alone (a fenced writer stages
// nothing), and then switches meta to the new set and deletes every other set in one
// final transaction with the commit's guards. Until that final transaction the staged
// keys are not the document: a reader ignores keys of sets meta does not name, and the
// next save of any writer deletes them.
func (t fence) commitChunked(ctx context.Context, st *docState, doc *store.Doc) error {
	h := t.h
	set := setName(doc.Generation)
	if set == st.set { // cannot happen with rising generations; never stage over the live set
		return fmt.Errorf("etcd home %s: chunked save: generation %d is the current set's", h.prefix, doc.Generation)
	}
	next, err := st.enc.encode(doc, set)
	if err != nil {
		return fmt.Errorf("etcd home %s: %w", h.prefix, err)
	}
	st.garbage = true // from here until the switch, the store may hold staged keys
	if err := t.stage(ctx, set, next); err != nil {
		return err
	}
	final := append([]clientv3.Op{clientv3.OpPut(h.metaKey(), string(next["meta"]))}, h.otherSets(set)...)
	rev, err := t.fencedTxn(ctx, st, final)
	if err != nil {
		return err
	}
	st.kv, st.set, st.metaRev, st.doc, st.garbage = next, set, rev, doc, false
	return nil
}

// stage writes the items of next under set in batches that fit a transaction, after
// deleting whatever an earlier attempt left under the same set.
func (t fence) stage(ctx context.Context, set string, next encoded) error {
	h := t.h
	keys := make([]string, 0, len(next))
	for k := range next {
		if k != "meta" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	// etcd refuses a put inside a range the same transaction deletes: clear first.
	if err := t.stageTxn(ctx, []clientv3.Op{clientv3.OpDelete(h.setPfx(set), clientv3.WithPrefix())}); err != nil {
		return err
	}
	var batch []clientv3.Op
	size := 0
	for _, k := range keys {
		cost := len(h.docPfx()) + len(k) + len(next[k]) + opCost
		if cost > h.opts.MaxRequestBytes-reqMargin {
			return fmt.Errorf("etcd home %s: %s is %d bytes: %w", h.prefix, k, len(next[k]), ErrTooLarge)
		}
		if len(batch) >= h.opts.MaxTxnOps || size+cost > h.opts.MaxRequestBytes-reqMargin {
			if err := t.stageTxn(ctx, batch); err != nil {
				return err
			}
			batch, size = nil, 0
		}
		batch = append(batch, clientv3.OpPut(h.docPfx()+k, string(next[k])))
		size += cost
	}
	return t.stageTxn(ctx, batch)
}

// stageTxn writes one batch of staged keys if the term still holds its epoch.
func (t fence) stageTxn(ctx context.Context, ops []clientv3.Op) error {
	if len(ops) == 0 {
		return nil
	}
	resp, err := t.h.cli.Txn(ctx).If(t.held()...).Then(ops...).Commit()
	if err != nil {
		return fmt.Errorf("etcd home %s: stage a chunked save: %w", t.h.prefix, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("etcd home %s: stage a chunked save, writer key %s of epoch %d: %w", t.h.prefix, t.key, t.epoch, ErrFenced)
	}
	return nil
}

// otherSets returns the two range deletes that remove every set but set (sets are named
// s<16 hex digits>, so they all sort between <prefix>/doc/s and <prefix>/doc/t, and meta
// sorts before them).
func (h *Home) otherSets(set string) []clientv3.Op {
	return []clientv3.Op{
		clientv3.OpDelete(h.docPfx()+"s", clientv3.WithRange(h.setPfx(set))),
		clientv3.OpDelete(h.docPfx()+set+"0", clientv3.WithRange(h.docPfx()+"t")), // "0" follows "/"
	}
}
