package etcdhome

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"baton/store"
)

// Identity says who writes: the machine and the window, with enough evidence for a window
// on the same machine to prove its death locally (Owner: pid, start time, boot id,
// instance). It is the value of the writer's election key, so every window can read it.
type Identity struct {
	Machine string      `json:"machine"`        // machine id (BATON_MACHINE overrides)
	Host    string      `json:"host,omitempty"` // hostname, for display
	Owner   store.Owner `json:"owner"`
	// Lease is the writer session's lease id, filled in by Campaign: the handle a window
	// that proved the writer dead passes to RevokeDead.
	Lease clientv3.LeaseID `json:"lease"`
}

// Term is one writer's hold on the home: from Campaign until its lease is lost or it
// resigns. Its epoch guards every commit (see Commit). A Term is safe for concurrent use;
// commits are serialised.
type Term struct {
	fence
	sess *concurrency.Session
	elec *concurrency.Election
	id   Identity

	mu  sync.Mutex // guards doc and serialises commits
	doc docState   // the document as this term last read or wrote it
}

// Campaign blocks until the caller wins the writer election, ctx ends, or etcd fails. It
// opens a session over a lease of Options.Lease and campaigns on <prefix>/writer with id
// (its Lease filled in) as the value. The winner's epoch is the CreateRevision of its
// election key. On error nothing of the caller's stays behind (the lease is revoked).
func (h *Home) Campaign(ctx context.Context, id Identity) (*Term, error) {
	sess, err := concurrency.NewSession(h.cli, concurrency.WithTTL(h.ttl()), concurrency.WithContext(context.WithoutCancel(ctx)))
	if err != nil {
		return nil, fmt.Errorf("etcd home %s: open the writer's session: %w", h.prefix, err)
	}
	id.Lease = sess.Lease()
	if id.Owner.Since.IsZero() {
		id.Owner.Since = time.Now().UTC()
	}
	val, err := jsonValue(id)
	if err != nil {
		sess.Close()
		return nil, err
	}
	elec, err := h.campaign(ctx, sess, val)
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("etcd home %s: campaign for the writer: %w", h.prefix, err)
	}
	select {
	case <-sess.Done(): // the lease went while we waited: the win is worth nothing
		sess.Close()
		return nil, fmt.Errorf("etcd home %s: campaign for the writer: %w", h.prefix, ErrFenced)
	default:
	}
	t := &Term{fence: fence{h: h, key: elec.Key(), epoch: elec.Rev()}, sess: sess, elec: elec, id: id}
	return t, nil
}

// campaign is concurrency.Election.Campaign with a faster wake-up: it puts the
// session's key under <prefix>/writer/ and waits until every key created before it is
// gone. Election.Campaign watches each older key from the revision it read it at, a past
// revision: etcd syncs such a watch only in its 100 ms loop, so a writer gone in between
// was noticed up to 100 ms late. Here each watch starts at the revision after the read,
// which etcd serves at once when nothing was written since.
func (h *Home) campaign(ctx context.Context, sess *concurrency.Session, val string) (*concurrency.Election, error) {
	pfx := h.writerPfx() + "/" // the prefix as NewElection makes it
	key := fmt.Sprintf("%s%x", pfx, sess.Lease())
	resp, err := h.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(key), "=", 0)).
		Then(clientv3.OpPut(key, val, clientv3.WithLease(sess.Lease()))).Commit()
	if err != nil {
		return nil, err
	}
	if !resp.Succeeded { // a new session's lease names no key yet
		return nil, fmt.Errorf("election key %s is there already", key)
	}
	rev := resp.Header.Revision
	if err := h.waitOlderGone(ctx, pfx, rev-1); err != nil {
		return nil, err
	}
	return concurrency.ResumeElection(sess, pfx, key, rev), nil
}

// waitOlderGone returns once no key under pfx created at or before maxCreateRev is left.
func (h *Home) waitOlderGone(ctx context.Context, pfx string, maxCreateRev int64) error {
	opts := append(clientv3.WithLastCreate(), clientv3.WithMaxCreateRev(maxCreateRev))
	for {
		resp, err := h.cli.Get(ctx, pfx, opts...)
		if err != nil {
			return err
		}
		if len(resp.Kvs) == 0 {
			return nil
		}
		if err := h.waitGone(ctx, string(resp.Kvs[0].Key), resp.Header.Revision); err != nil {
			return err
		}
	}
}

// waitGone returns once key, present at revision rev, is deleted after it, or when the
// watch's start was compacted (the caller reads again).
func (h *Home) waitGone(ctx context.Context, key string, rev int64) error {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for wr := range h.cli.Watch(wctx, key, clientv3.WithRev(rev+1), clientv3.WithFilterPut()) {
		if wr.CompactRevision != 0 {
			return nil
		}
		if err := wr.Err(); err != nil {
			return err
		}
		for _, ev := range wr.Events {
			if ev.Type == clientv3.EventTypeDelete {
				return nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("the watch of %s ended", key)
}

// Epoch returns the term's epoch: the revision its election key was created at. Epochs
// of later terms are higher.
func (t *Term) Epoch() int64 { return t.epoch }

// Key returns the term's election key.
func (t *Term) Key() string { return t.key }

// Lease returns the term's session lease.
func (t *Term) Lease() clientv3.LeaseID { return t.sess.Lease() }

// Identity returns the term's election value.
func (t *Term) Identity() Identity { return t.id }

// Done is closed when the term's session ends: its lease expired, was revoked, or the
// term resigned. Work that depends on being the writer derives from Ctx.
func (t *Term) Done() <-chan struct{} { return t.sess.Done() }

// Ctx returns a context that ends with the term (see Done).
func (t *Term) Ctx() context.Context { return t.sess.Ctx() }

// Resign hands the home over: the election key is deleted and the lease revoked, so the
// next campaigner wins at once. After Resign every commit of the term is refused.
func (t *Term) Resign(ctx context.Context) error {
	err := t.elec.Resign(ctx)
	if cerr := t.sess.Close(); err == nil && cerr != nil && !errors.Is(cerr, context.Canceled) {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("etcd home %s: resign the writer: %w", t.h.prefix, err)
	}
	return nil
}

// Writer returns who holds the writer election and its epoch, or ErrNoWriter. The answer
// may be stale by the time the caller uses it.
func (h *Home) Writer(ctx context.Context) (Identity, int64, error) {
	resp, err := h.cli.Get(ctx, h.writerPfx()+"/", clientv3.WithFirstCreate()...)
	if err != nil {
		return Identity{}, 0, fmt.Errorf("etcd home %s: read the writer: %w", h.prefix, err)
	}
	if len(resp.Kvs) == 0 {
		return Identity{}, 0, ErrNoWriter
	}
	kv := resp.Kvs[0]
	var id Identity
	if err := json.Unmarshal(kv.Value, &id); err != nil {
		return Identity{}, 0, fmt.Errorf("etcd home %s: writer key %s: %w: %w", h.prefix, kv.Key, ErrDamaged, err)
	}
	return id, kv.CreateRevision, nil
}

// RevokeDead revokes a writer's lease, so its election key goes and the next campaigner
// wins at once. Only a window that proved that writer dead by local evidence (its
// liveness lock free on the same machine, Identity.Machine equal to its own) may call
// it: revoking a live writer's lease fences it. A lease already gone is not an error.
func (h *Home) RevokeDead(ctx context.Context, lease clientv3.LeaseID) error {
	_, err := h.cli.Revoke(ctx, lease)
	if err != nil && !isLeaseNotFound(err) {
		return fmt.Errorf("etcd home %s: revoke the dead writer's lease %x: %w", h.prefix, int64(lease), err)
	}
	return nil
}

func jsonValue(id Identity) (string, error) {
	b, err := json.Marshal(id)
	return string(b), err
}
