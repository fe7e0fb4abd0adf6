package etcdhome

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// A window's presence: <prefix>/windows/<instance> (path-escaped), its Identity, on a
// session lease of the window's own. It is the evidence a window on another machine has
// that the window lives (Evidence.OwnerAlive across machines): the key is gone only once
// the window's lease is gone (it closed, or it died and the lease expired or was revoked
// by a survivor on its machine). Never decided from age.

func (h *Home) windowKey(instance string) string {
	return h.prefix + "/windows/" + url.PathEscape(instance)
}

// Presence is a window's presence key and the session that keeps it.
type Presence struct {
	h    *Home
	sess *concurrency.Session
	key  string
}

// Announce puts the window's presence key (id.Owner.Instance names it) on a new session
// lease of Options.Lease, kept alive until Close. The caller must Close it.
func (h *Home) Announce(ctx context.Context, id Identity) (*Presence, error) {
	if id.Owner.Instance == "" {
		return nil, fmt.Errorf("etcd home %s: announce a window without an instance id", h.prefix)
	}
	sess, err := concurrency.NewSession(h.cli, concurrency.WithTTL(h.ttl()), concurrency.WithContext(context.WithoutCancel(ctx)))
	if err != nil {
		return nil, fmt.Errorf("etcd home %s: open the window's session: %w", h.prefix, err)
	}
	id.Lease = sess.Lease()
	val, _ := json.Marshal(id)
	key := h.windowKey(id.Owner.Instance)
	if _, err := h.cli.Put(ctx, key, string(val), clientv3.WithLease(sess.Lease())); err != nil {
		sess.Close()
		return nil, fmt.Errorf("etcd home %s: put %s: %w", h.prefix, key, err)
	}
	return &Presence{h: h, sess: sess, key: key}, nil
}

// Done is closed when the presence's lease is lost.
func (p *Presence) Done() <-chan struct{} { return p.sess.Done() }

// Lease returns the presence's lease.
func (p *Presence) Lease() clientv3.LeaseID { return p.sess.Lease() }

// Close revokes the lease: the presence key goes.
func (p *Presence) Close() error { return p.sess.Close() }

// WindowAlive reports whether the window with that instance id is present, with what
// was seen. A read error is returned, never taken for "dead": the caller treats it as
// alive (nothing is reaped on doubt).
func (h *Home) WindowAlive(ctx context.Context, instance string) (bool, string, error) {
	key := h.windowKey(instance)
	resp, err := h.cli.Get(ctx, key)
	if err != nil {
		return true, "", fmt.Errorf("etcd home %s: read %s: %w", h.prefix, key, err)
	}
	if len(resp.Kvs) == 0 {
		return false, fmt.Sprintf("window %s has no presence key in etcd (its lease is gone)", instance), nil
	}
	var id Identity
	json.Unmarshal(resp.Kvs[0].Value, &id)
	return true, fmt.Sprintf("window %s (machine %s, pid %d) holds lease %x", instance, id.Machine, id.Owner.PID, int64(resp.Kvs[0].Lease)), nil
}
