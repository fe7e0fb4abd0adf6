package etcdhome

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"baton/store"
)

// The seams of a home (store/home.go) on etcd: DocHome keeps the document under the
// prefix, WriterLock is the writer election. A DocHome commits guarded by the meta's
// revision it last read or wrote (so a writer behind a later generation or epoch is
// refused, store.ErrFenced) and, while a hold of the same Home is held in this process,
// by that hold's election key too (so a writer whose lease is gone never writes). A
// window uses one Home for both.

var (
	_ store.DocHome    = (*DocHome)(nil)
	_ store.WriterLock = (*WriterLock)(nil)
	_ store.LockHold   = (*Hold)(nil)
)

// opTimeout bounds each etcd call of the seams, whose methods take no context.
const opTimeout = 30 * time.Second

// DocHome is the document seam (store.DocHome) of an etcd home. Use it through
// store.NewOn; its calls are serialised by its Store.
type DocHome struct {
	h  *Home
	mu sync.Mutex // guards st and committed (the Store serialises its calls; Follow does not touch them)
	st docState
	// committed is the meta revision of this DocHome's last commit under a hold of its
	// Home, 0 when the last change to st was not such a commit.
	committed int64
}

// DocHome returns the home's document seam.
func (h *Home) DocHome() *DocHome { return &DocHome{h: h} }

// Load implements store.DocHome. Without full it asks etcd for the meta's revision only
// and reads in full when it moved; a writer whose last change was its own commit under
// the hold it still has asks nothing (its next commit's guard refuses it if anything
// changed: only a writer whose term ended could find a change, and it is fenced).
func (d *DocHome) Load(have *store.Doc, full bool) (*store.Doc, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	st := &d.st
	d.mu.Lock()
	defer d.mu.Unlock()
	if !full && st.loaded && d.committed != 0 && d.committed == st.metaRev && d.h.holding() {
		return have, nil
	}
	d.committed = 0
	if !full && st.loaded {
		resp, err := d.h.cli.Get(ctx, d.h.metaKey())
		if err != nil {
			return have, fmt.Errorf("%w: etcd home %s: %w", store.ErrUnreadable, d.h.prefix, err)
		}
		var rev int64
		if len(resp.Kvs) > 0 {
			rev = resp.Kvs[0].ModRevision
		}
		if rev == st.metaRev && st.doc != nil && st.doc.Generation == have.Generation {
			return have, nil
		}
	}
	kept := *st
	if err := d.h.readInto(ctx, st); err != nil {
		st.restore(&kept)
		if !errors.Is(err, store.ErrUnreadable) {
			err = fmt.Errorf("%w: %w", store.ErrUnreadable, err)
		}
		return have, err
	}
	if st.doc == nil { // no document under the prefix
		if have.Generation > 0 {
			st.restore(&kept)
			return have, fmt.Errorf("etcd home %s: the document (generation %d read before) is gone: %w", d.h.prefix, have.Generation, ErrDamaged)
		}
		st.doc = have
		return have, nil
	}
	if st.doc.Generation == have.Generation && st.doc.Epoch == have.Epoch && st.metaRev == kept.metaRev && kept.loaded {
		st.doc = have
		return have, nil
	}
	return st.doc, nil
}

// restore puts back what a failed read replaced (all but the mutex).
func (s *docState) restore(k *docState) {
	s.loaded, s.kv, s.set, s.metaRev, s.doc, s.garbage = k.loaded, k.kv, k.set, k.metaRev, k.doc, k.garbage
}

// Commit implements store.DocHome: one transaction (or a chunked save, README.md)
// guarded by the meta's revision of have and by this Home's hold, if one is held. A
// refusal is store.ErrFenced. An outcome etcd did not tell (a timeout, a lost
// connection) is settled before Commit returns: see settle.
func (d *DocHome) Commit(have, next *store.Doc) (*store.Doc, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	st := &d.st
	d.mu.Lock()
	defer d.mu.Unlock()
	if !st.loaded || st.doc == nil || st.doc.Generation != have.Generation || st.doc.Epoch != have.Epoch {
		return nil, fmt.Errorf("etcd home %s: commit of generation %d on a document this home did not read last: %w", d.h.prefix, next.Generation, ErrFenced)
	}
	f, done, held := d.h.fence()
	if !held { // no hold in this process: the meta's revision alone guards
		f = fence{h: d.h}
	}
	if held && done != nil {
		// A hold whose session ended (its lease could not be kept: a machine cut off)
		// cannot commit: its guard fails. Do not wait opTimeout for a cut network to say
		// so; the outcome of what is in flight is settled below.
		go func() {
			select {
			case <-done:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	err := f.commit(ctx, st, next)
	if errors.Is(err, ErrConflict) {
		return nil, fmt.Errorf("etcd home %s: %w: the home holds a generation after %d", d.h.prefix, ErrFenced, have.Generation)
	}
	if err != nil && !errors.Is(err, ErrFenced) && !errors.Is(err, ErrTooLarge) {
		return d.settle(f, held, next, err)
	}
	if err != nil {
		return nil, err
	}
	if held {
		d.committed = st.metaRev
	}
	return next, nil
}

// settle finds out whether a commit whose answer was lost took effect. A transaction
// still in flight could apply later, so it first ends the hold's lease (fencing any such
// transaction: it is refused once the key is gone), then reads the meta. Without a hold
// in this process it cannot fence and says the save failed while readers may see it
// (store.ErrNotDurable is not that promise, so it reports ErrUnreadable: the Store
// refuses to write until a Load tells what is there).
func (d *DocHome) settle(f fence, held bool, next *store.Doc, cause error) (*store.Doc, error) {
	// The revoke that fences is bounded by the lease: past it the lease has expired on the
	// cluster anyway (a cut machine cannot revoke; its answer must not wait 30 s for that).
	ctx, cancel := context.WithTimeout(context.Background(), min(opTimeout, d.h.opts.Lease))
	defer cancel()
	if !held {
		d.st.loaded = false
		return nil, fmt.Errorf("%w: etcd home %s: %w (generation %d), read again: %w", store.ErrUnreadable, d.h.prefix, ErrOutcomeUnknown, next.Generation, cause)
	}
	d.h.dropHold(ctx)
	d.st.loaded = false
	return nil, fmt.Errorf("etcd home %s: %w (generation %d); the writer's lease was revoked so it cannot apply later, read again: %w: %w", d.h.prefix, ErrOutcomeUnknown, next.Generation, errFencedUnsure, cause)
}

// Checkpoint implements store.DocHome: etcd keeps no compact form of its own (its
// compaction is the cluster's), so there is nothing to write.
func (d *DocHome) Checkpoint(*store.Doc, func() error) error { return nil }

// StopWriting implements store.DocHome: no background work writes.
func (d *DocHome) StopWriting() {}

// Follow implements store.DocHome: a watch of <prefix>/doc/ from the revision it reads at
// setup; changed(false) after each revision that wrote the meta, changed(true) when the
// watch broke or its revision was compacted (then it watches again from the last
// revision seen, or from the compaction: never from "now", which would skip a save made
// while the caller reads).
func (d *DocHome) Follow(ctx context.Context, changed func(full bool)) (<-chan struct{}, error) {
	resp, err := d.h.cli.Get(ctx, d.h.metaKey())
	if err != nil {
		return nil, fmt.Errorf("etcd home %s: follow the document: %w", d.h.prefix, err)
	}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		rev := resp.Header.Revision
		for ctx.Err() == nil {
			var ok bool
			rev, ok = d.watchMeta(ctx, rev, changed)
			if ctx.Err() != nil {
				return
			}
			if !ok {
				changed(true)
				select { // etcd unreachable: try again, not in a tight loop
				case <-ctx.Done():
				case <-time.After(100 * time.Millisecond):
				}
			}
		}
	}()
	return stopped, nil
}

// watchMeta watches the meta from rev+1, calling changed(false) for each put of it, and
// returns the revision the next watch starts after, and false when the watch broke or
// was compacted (then from the compaction on).
func (d *DocHome) watchMeta(ctx context.Context, rev int64, changed func(bool)) (int64, bool) {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	opts := []clientv3.OpOption{}
	if rev > 0 {
		opts = append(opts, clientv3.WithRev(rev+1))
	}
	for resp := range d.h.cli.Watch(wctx, d.h.metaKey(), opts...) {
		if resp.CompactRevision != 0 {
			// The caller reads in full, which may take a while: the next watch starts at
			// the compaction, not at "now" once that read is done, or a save made in
			// between would never be seen (until the next one).
			return resp.CompactRevision - 1, false
		}
		if resp.Err() != nil {
			return rev, false
		}
		if len(resp.Events) > 0 {
			rev = resp.Events[len(resp.Events)-1].Kv.ModRevision
			changed(false)
		}
	}
	return rev, false
}

// WriterLock is the writer lock seam (store.WriterLock) of an etcd home: the election on
// <prefix>/writer. Holds it wins become the fence of the same Home's DocHome commits.
type WriterLock struct {
	h  *Home
	id Identity
}

// WriterLock returns the home's writer lock; id is the election value of its holds.
func (h *Home) WriterLock(id Identity) *WriterLock { return &WriterLock{h: h, id: id} }

// Hold is one hold of the writer election (store.LockHold).
type Hold struct {
	t    *Term
	once sync.Once
	err  error
}

// Term returns the hold's term (its epoch, lease, Done).
func (o *Hold) Term() *Term { return o.t }

// TryLock implements store.WriterLock: it puts its election key and wins if no other key
// was created before it; else it deletes its key (revoking its lease) and reports busy.
func (l *WriterLock) TryLock() (store.LockHold, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	h := l.h
	sess, err := concurrency.NewSession(h.cli, concurrency.WithTTL(h.ttl()))
	if err != nil {
		return nil, false, fmt.Errorf("etcd home %s: open the writer's session: %w", h.prefix, err)
	}
	id := l.id
	id.Lease = sess.Lease()
	val, _ := jsonValue(id)
	key := fmt.Sprintf("%s/%x", h.writerPfx(), int64(sess.Lease()))
	resp, err := h.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, val, clientv3.WithLease(sess.Lease())),
			clientv3.OpGet(h.writerPfx()+"/", clientv3.WithFirstCreate()...)).Commit()
	if err != nil {
		sess.Close()
		return nil, false, fmt.Errorf("etcd home %s: try the writer lock: %w", h.prefix, err)
	}
	first := resp.Responses[1].GetResponseRange().Kvs
	if len(first) == 0 || string(first[0].Key) != key {
		sess.Close()
		return nil, false, nil
	}
	elec := concurrency.ResumeElection(sess, h.writerPfx()+"/", key, resp.Header.Revision) // Resume takes the prefix as NewElection makes it
	t := &Term{fence: fence{h: h, key: key, epoch: resp.Header.Revision}, sess: sess, elec: elec, id: id}
	return h.setHold(t), true, nil
}

// Lock implements store.WriterLock: Campaign.
func (l *WriterLock) Lock(ctx context.Context) (store.LockHold, error) {
	t, err := l.h.Campaign(ctx, l.id)
	if err != nil {
		return nil, err
	}
	return l.h.setHold(t), nil
}

// Check implements store.LockHold: nil while the session is open and the election key
// is still there with the hold's epoch, read serializably from the member the client
// talks to (one local read, no consensus round: the commit's own guard is the wall; a
// stale member can only make Check say "held" when the commit will then be refused).
// A serializable read that does not find the key is confirmed by a linearizable one: a
// member that lags may not have applied the key just won yet, and taking that for a lost
// election made a window (and `baton tick`) give up an election it held.
// An error that is not ErrLockLost means it could not be confirmed.
func (o *Hold) Check() error {
	lost := fmt.Errorf("etcd home %s: writer key %s of epoch %d: %w", o.t.h.prefix, o.t.key, o.t.epoch, store.ErrLockLost)
	select {
	case <-o.t.Done():
		return lost
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.t.h.opts.Lease)
	defer cancel()
	resp, err := o.t.h.cli.Get(ctx, o.t.key, clientv3.WithSerializable())
	if err == nil && (len(resp.Kvs) != 1 || resp.Kvs[0].CreateRevision != o.t.epoch) {
		resp, err = o.t.h.cli.Get(ctx, o.t.key) // linearizable: through the leader
	}
	if err != nil {
		return fmt.Errorf("etcd home %s: confirm the writer lock: %w", o.t.h.prefix, err)
	}
	if len(resp.Kvs) != 1 || resp.Kvs[0].CreateRevision != o.t.epoch {
		return lost
	}
	return nil
}

// Release implements store.LockHold: Resign. Idempotent.
func (o *Hold) Release() error {
	o.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		o.t.h.clearHold(o.t)
		o.err = o.t.Resign(ctx)
	})
	return o.err
}

// Close implements store.LockHold: Release.
func (o *Hold) Close() error { return o.Release() }

// setHold makes t this Home's hold, the fence of its DocHome's commits.
func (h *Home) setHold(t *Term) *Hold {
	h.mu.Lock()
	h.hold = t
	h.mu.Unlock()
	return &Hold{t: t}
}

func (h *Home) clearHold(t *Term) {
	h.mu.Lock()
	if h.hold == t {
		h.hold = nil
	}
	h.mu.Unlock()
}

// fence returns the fence of the hold this Home holds and the Done channel of that
// hold's session, both read under one lock (so they are of the same hold), and whether
// there is one.
func (h *Home) fence() (f fence, done <-chan struct{}, held bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.hold == nil {
		return fence{}, nil, false
	}
	return h.hold.fence, h.hold.Done(), true
}

// holding reports whether the Home's hold is held and its session not known ended.
func (h *Home) holding() bool {
	h.mu.Lock()
	t := h.hold
	h.mu.Unlock()
	if t == nil {
		return false
	}
	select {
	case <-t.Done():
		return false
	default:
		return true
	}
}

// dropHold ends the Home's hold by revoking its lease.
func (h *Home) dropHold(ctx context.Context) {
	h.mu.Lock()
	t := h.hold
	h.hold = nil
	h.mu.Unlock()
	if t != nil {
		h.RevokeDead(ctx, t.Lease())
	}
}
