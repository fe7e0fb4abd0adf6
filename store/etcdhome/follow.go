package etcdhome

import (
	"context"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
)

// Snapshot is one document a follower saw, with the revision of the save that made it.
type Snapshot struct {
	Doc *store.Doc
	Rev int64
}

// Follow reads the whole document at a revision R (one linearizable Get of the prefix),
// calls fn with it, then watches the prefix from R+1 and calls fn with each document a
// save made, in the order of the saves: a reader's live view. Keys a chunked save stages
// are applied as they come but published only with the save's final transaction, so fn
// sees whole saves only. When R is compacted under the follower it reads in full again.
// fn runs on Follow's goroutine and must not block for long. Follow blocks until ctx ends
// (returning ctx.Err()), the watch fails (etcd unreachable, no leader: the caller is
// read-only and may call Follow again), or the document is damaged (ErrDamaged).
func (h *Home) Follow(ctx context.Context, fn func(Snapshot)) error {
	f := &follower{h: h, fn: fn}
	rev, err := f.read(ctx)
	if err != nil {
		return err
	}
	return f.run(ctx, rev)
}

// follower holds every key under <prefix>/doc/ as of the revision it applied, staged
// keys of unfinished chunked saves included. It is owned by one goroutine.
type follower struct {
	h         *Home
	fn        func(Snapshot)
	kv        encoded
	dec       decoder
	published int64 // meta revision of the last document passed to fn
}

// run watches from rev+1, reading in full again whenever the watch's start was compacted.
func (f *follower) run(ctx context.Context, rev int64) error {
	for {
		compacted, err := f.watch(ctx, rev)
		if !compacted {
			return err
		}
		if rev, err = f.read(ctx); err != nil {
			return err
		}
	}
}

// read reads the document in full, publishes it, and returns the revision it read at.
func (f *follower) read(ctx context.Context) (int64, error) {
	resp, err := f.h.cli.Get(ctx, f.h.docPfx(), clientv3.WithPrefix())
	if err != nil {
		return 0, fmt.Errorf("etcd home %s: read the document: %w", f.h.prefix, err)
	}
	f.kv = make(encoded, len(resp.Kvs))
	var metaRev int64
	for _, e := range resp.Kvs {
		if k, ok := f.h.relKey(e.Key); ok {
			f.kv[k] = e.Value
			if k == "meta" {
				metaRev = e.ModRevision
			}
		}
	}
	return resp.Header.Revision, f.publish(metaRev)
}

// watch applies events from rev+1 on. It returns compacted true when rev+1 is no longer
// in etcd's history.
func (f *follower) watch(ctx context.Context, rev int64) (compacted bool, err error) {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	wch := f.h.cli.Watch(wctx, f.h.docPfx(), clientv3.WithPrefix(), clientv3.WithRev(rev+1))
	for resp := range wch {
		if resp.CompactRevision != 0 {
			return true, nil
		}
		if err := resp.Err(); err != nil {
			return false, fmt.Errorf("etcd home %s: follow the document: %w", f.h.prefix, err)
		}
		if err := f.apply(resp.Events); err != nil {
			return false, err
		}
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return false, fmt.Errorf("etcd home %s: follow the document: the watch ended", f.h.prefix)
}

// apply applies events in order, publishing the document at the end of each revision
// that wrote the meta (every save's last transaction does).
func (f *follower) apply(events []*clientv3.Event) error {
	var metaRev int64
	for i, ev := range events {
		k, ok := f.h.relKey(ev.Kv.Key)
		if !ok {
			continue
		}
		switch ev.Type {
		case mvccpb.PUT:
			f.kv[k] = ev.Kv.Value
			if k == "meta" {
				metaRev = ev.Kv.ModRevision
			}
		case mvccpb.DELETE:
			delete(f.kv, k)
		}
		last := i == len(events)-1 || events[i+1].Kv.ModRevision != ev.Kv.ModRevision
		if last && metaRev != 0 {
			if err := f.publish(metaRev); err != nil {
				return err
			}
			metaRev = 0
		}
	}
	return nil
}

// publish decodes the document and passes it to fn if it is newer than the last one.
func (f *follower) publish(metaRev int64) error {
	if metaRev == 0 || metaRev == f.published {
		return nil
	}
	doc, err := f.dec.decode(f.kv)
	if err != nil {
		return fmt.Errorf("etcd home %s: %w", f.h.prefix, err)
	}
	f.published = metaRev
	f.fn(Snapshot{Doc: doc, Rev: metaRev})
	return nil
}
