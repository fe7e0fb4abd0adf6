package etcdhome

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// Default limits of an etcd member (embed.DefaultMaxTxnOps, DefaultMaxRequestBytes).
const (
	DefaultLease           = 5 * time.Second
	MinLease               = 2 * time.Second
	DefaultMaxTxnOps       = 128
	DefaultMaxRequestBytes = 3 << 19 // 1.5 MiB
)

// Options configure a Home. Zero fields take the defaults.
type Options struct {
	// Lease is the writer session's and a supervisor's lease (--lease): default 5 s,
	// at least 2 s.
	Lease time.Duration
	// MaxTxnOps and MaxRequestBytes are the cluster's limits (--max-txn-ops,
	// --max-request-bytes): a save that would exceed them is chunked (see README.md).
	MaxTxnOps       int
	MaxRequestBytes int
}

// Home is a Baton home under a prefix of an etcd cluster. It is safe for concurrent use.
// The client is the caller's to close.
type Home struct {
	cli    *clientv3.Client
	prefix string // without a trailing slash
	opts   Options

	mu   sync.Mutex // guards hold
	hold *Term      // the writer hold won through WriterLock, fencing DocHome commits
}

// Open returns the home under prefix on cli. The prefix is a path of non-empty segments
// ("team-a", "baton/team-a"); it must not be empty, so a home never spans a whole cluster.
func Open(cli *clientv3.Client, prefix string, opts Options) (*Home, error) {
	p := strings.Trim(prefix, "/")
	if p == "" || strings.Contains(p, "//") {
		return nil, fmt.Errorf("etcd home prefix %q: give a path such as team-a", prefix)
	}
	switch {
	case opts.Lease == 0:
		opts.Lease = DefaultLease
	case opts.Lease < MinLease:
		return nil, fmt.Errorf("etcd home %s: lease %s is shorter than the minimum %s", p, opts.Lease, MinLease)
	}
	if opts.MaxTxnOps <= 0 {
		opts.MaxTxnOps = DefaultMaxTxnOps
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	return &Home{cli: cli, prefix: "/" + p, opts: opts}, nil
}

// Prefix returns the home's key prefix ("/team-a").
func (h *Home) Prefix() string { return h.prefix }

// Client returns the etcd client the home uses.
func (h *Home) Client() *clientv3.Client { return h.cli }

// Key layout (see README.md). Every key of the home starts with the prefix.
func (h *Home) writerPfx() string        { return h.prefix + "/writer" }
func (h *Home) docPfx() string           { return h.prefix + "/doc/" }
func (h *Home) metaKey() string          { return h.prefix + "/doc/meta" }
func (h *Home) setPfx(set string) string { return h.prefix + "/doc/" + set + "/" }
func (h *Home) runPfx(id string) string  { return h.prefix + "/runs/" + url.PathEscape(id) + "/" }
func (h *Home) aliveKey(id string) string {
	return h.runPfx(id) + "alive"
}
func (h *Home) journalPfx(id string) string { return h.runPfx(id) + "journal/" }
func (h *Home) logTailKey(id string) string { return h.runPfx(id) + "logtail" }
func (h *Home) reapedKey(id string) string  { return h.runPfx(id) + "reaped" }
func (h *Home) cancelKey(id string) string  { return h.runPfx(id) + "cancel" }

// ttl returns the lease in whole seconds, rounded up, as etcd grants it.
func (h *Home) ttl() int {
	return int((h.opts.Lease + time.Second - 1) / time.Second)
}
