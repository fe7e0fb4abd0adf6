package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// The timings. See README.md for why these values.
const (
	// TickMs is the members' heartbeat interval.
	TickMs = 100
	// ElectionMs is the members' election timeout: a follower that hears no leader for this
	// long (randomised up to twice it) starts an election.
	ElectionMs = 1000
	// startTimeout bounds a cluster's start, on a loaded machine.
	startTimeout = 60 * time.Second
	// waitSignal bounds how long a signalled member may take to show the signal's effect.
	waitSignal = 10 * time.Second
	// tryTimeout bounds one health or status request to one member.
	tryTimeout = time.Second
)

// Client timings (ClientConfig). gRPC raises any keepalive interval below 10 s to 10 s, and
// an etcd server (default --grpc-keepalive-min-time 5s, pings without a stream not permitted)
// closes an idle connection that pings without a stream ("too_many_pings"), so the client
// pings only while it has a stream open: a watch or a lease keepalive notices a dead
// connection within DialKeepAliveTime+DialKeepAliveTimeout. A unary request notices only by
// its own deadline; a lease by its TTL.
const (
	DialTimeout          = 2 * time.Second
	DialKeepAliveTime    = 10 * time.Second
	DialKeepAliveTimeout = 2 * time.Second
)

// A Cluster is a real etcd cluster on loopback, each member its own process. It ends with
// the test that started it: every member is killed, its ports let go, its folders removed.
type Cluster struct {
	members []*Member
	clients []*clientv3.Client // clients[i] talks to member i only
}

var clusterSeq atomic.Int64

// StartCluster starts an n-member cluster for t and returns once every member serves a
// linearizable read; it fails t if that takes longer than a minute. The test binary must call
// RunMemberIfAsked first thing in TestMain.
func StartCluster(t testing.TB, n int) *Cluster {
	t.Helper()
	if !supported {
		t.Skip("etcdtest: a cluster of member processes needs Linux (Pdeathsig, /proc)")
	}
	dir := t.TempDir() // before the cleanup below, so it is removed after the kills
	c := &Cluster{}
	t.Cleanup(func() { c.close(t) })
	if err := c.init(dir, n); err != nil {
		t.Fatal(err)
	}
	for _, m := range c.members {
		if err := m.start("new"); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatalf("etcdtest: the cluster did not start: %v", err)
	}
	return c
}

// init holds the ports and writes down every member's configuration.
func (c *Cluster) init(dir string, n int) error {
	token := fmt.Sprintf("etcdtest-%d-%d", os.Getpid(), clusterSeq.Add(1))
	var initial []string
	for i := range n {
		cp, err := reservePort()
		if err != nil {
			return err
		}
		pp, err := reservePort()
		if err != nil {
			cp.release()
			return err
		}
		m := &Member{client: cp, peer: pp, logPath: filepath.Join(dir, fmt.Sprintf("m%d.log", i))}
		m.cfg = memberConfig{
			Name: fmt.Sprintf("m%d", i), Dir: filepath.Join(dir, fmt.Sprintf("m%d", i)),
			ClientURL: cp.url(), PeerURL: pp.url(), Token: token,
			TickMs: TickMs, ElectionMs: ElectionMs,
		}
		c.members = append(c.members, m)
		initial = append(initial, m.cfg.Name+"="+m.cfg.PeerURL)
	}
	for _, m := range c.members {
		m.cfg.InitialCluster = strings.Join(initial, ",")
		cli, err := clientv3.New(ClientConfig(m.Endpoint()))
		if err != nil {
			return fmt.Errorf("etcdtest: a client for member %s: %w", m.Name(), err)
		}
		c.clients = append(c.clients, cli)
	}
	return nil
}

// close kills every member, closes the clients and lets the ports go; with t failed it logs
// the end of each member's log.
func (c *Cluster) close(t testing.TB) {
	for _, m := range c.members {
		if err := m.Kill(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("etcdtest: member %s log ends:\n%s", m.Name(), m.logTail(15))
		}
		m.client.release()
		m.peer.release()
	}
	for _, cli := range c.clients {
		cli.Close()
	}
}

// Size is the number of members.
func (c *Cluster) Size() int { return len(c.members) }

// Member is member i (0 ≤ i < Size).
func (c *Cluster) Member(i int) *Member { return c.members[i] }

// Endpoints are the members' client URLs, in member order.
func (c *Cluster) Endpoints() []string {
	eps := make([]string, len(c.members))
	for i, m := range c.members {
		eps[i] = m.Endpoint()
	}
	return eps
}

// ClientConfig is a client configuration for tests: the given endpoints, keepalive pings on
// connections with a stream open (see DialKeepAliveTime), and no client logs.
func ClientConfig(endpoints ...string) clientv3.Config {
	return clientv3.Config{
		Endpoints:            endpoints,
		DialTimeout:          DialTimeout,
		DialKeepAliveTime:    DialKeepAliveTime,
		DialKeepAliveTimeout: DialKeepAliveTimeout,
		PermitWithoutStream:  false,
		Logger:               zap.NewNop(),
	}
}

// Client is a client over endpoints (ClientConfig), closed when t ends.
func Client(t testing.TB, endpoints ...string) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(ClientConfig(endpoints...))
	if err != nil {
		t.Fatalf("etcdtest: a client for %v: %v", endpoints, err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

// WaitHealthy returns once every running member (not killed, not stopped) serves a
// linearizable read through its own endpoint, so the cluster has a leader and the member has
// caught up with it. It returns an error when ctx ends first, or at once when a member's
// process ended without Kill.
func (c *Cluster) WaitHealthy(ctx context.Context) error {
	for {
		var errs []error
		for i, m := range c.members {
			if err := m.unexpectedExit(); err != nil {
				return err
			}
			if !m.Running() {
				continue
			}
			tctx, cancel := context.WithTimeout(ctx, tryTimeout)
			_, err := c.clients[i].Get(tctx, "etcdtest/health")
			cancel()
			if err != nil {
				errs = append(errs, fmt.Errorf("member %s: %w", m.Name(), err))
			}
		}
		if len(errs) == 0 {
			return nil
		}
		if err := pause(ctx, 20*time.Millisecond); err != nil {
			return fmt.Errorf("etcdtest: cluster not healthy: %w", errors.Join(errs...))
		}
	}
}

// Leader returns the index of the member that says it is the leader, waiting until one does
// or ctx ends. Only running members are asked.
func (c *Cluster) Leader(ctx context.Context) (int, error) {
	for {
		var errs []error
		for i, m := range c.members {
			if !m.Running() {
				continue
			}
			tctx, cancel := context.WithTimeout(ctx, tryTimeout)
			st, err := c.clients[i].Status(tctx, m.Endpoint())
			cancel()
			if err != nil {
				errs = append(errs, fmt.Errorf("member %s: %w", m.Name(), err))
				continue
			}
			if st.Leader != 0 && st.Leader == st.Header.MemberId {
				return i, nil
			}
		}
		if err := pause(ctx, 20*time.Millisecond); err != nil {
			return -1, fmt.Errorf("etcdtest: no leader: %w", errors.Join(append(errs, err)...))
		}
	}
}

// pause waits d, or returns ctx's error when it ends first. It paces polling loops.
func pause(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}
