package etcdhome

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
)

// What `baton migrate` (host/cli/migrate.go) needs of an etcd home beyond a writer's
// term: whether the prefix holds anything (a target must be empty), the document read
// once, and a whole document brought in as the home's first (Import).

// OtherKeys returns up to max keys under the home's prefix other than except (the caller's
// own election key, or ""), and how many there are in all. A home with none is empty: no
// document, no staged save, no window present, no run's keys.
func (h *Home) OtherKeys(ctx context.Context, except string, max int) ([]string, int64, error) {
	resp, err := h.cli.Get(ctx, h.prefix+"/", clientv3.WithPrefix(), clientv3.WithKeysOnly(), clientv3.WithLimit(int64(max)+1))
	if err != nil {
		return nil, 0, fmt.Errorf("etcd home %s: list its keys: %w", h.prefix, err)
	}
	var keys []string
	n := resp.Count
	for _, kv := range resp.Kvs {
		if string(kv.Key) == except {
			n--
			continue
		}
		if len(keys) < max {
			keys = append(keys, string(kv.Key))
		}
	}
	return keys, n, nil
}

// ReadDoc reads the whole document at one revision (a linearizable read), or returns nil,
// nil when the home has none. A document that cannot be read is ErrDamaged: nothing is
// written, nothing repaired.
func (h *Home) ReadDoc(ctx context.Context) (*store.Doc, error) {
	var st docState
	if err := h.readInto(ctx, &st); err != nil {
		return nil, err
	}
	return st.doc, nil
}

// Import makes doc the document of an empty home, in one step: one transaction, or a
// chunked save whose final transaction names it (README.md, "Chunked saves"), guarded
// by the term's epoch and by the home having no document (the meta's revision 0). A
// reader sees no document, then all of doc, never a part. It refuses (ErrConflict) when
// the home has a document.
func (t *Term) Import(ctx context.Context, doc *store.Doc) error {
	if err := doc.Validate(); err != nil {
		return fmt.Errorf("etcd home %s: import: %w", t.h.prefix, err)
	}
	have, err := t.Load(ctx)
	if err != nil {
		return err
	}
	if have != nil {
		return fmt.Errorf("etcd home %s: import: the home has a document already (generation %d): %w", t.h.prefix, have.Generation, ErrConflict)
	}
	return t.Commit(ctx, doc.Clone())
}
