package etcdtest

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
)

// memberEnv names the environment variable that turns a re-executed test binary into an
// etcd member; its value is the member's configuration as JSON.
const memberEnv = "BATON_ETCDTEST_MEMBER"

// memberConfig is what the launcher tells a member process.
type memberConfig struct {
	Name           string
	Dir            string // data folder
	ClientURL      string
	PeerURL        string
	InitialCluster string // name=peerURL,…
	State          string // "new" or "existing"
	Token          string
	TickMs         uint
	ElectionMs     uint
	SnapshotCount  uint64
	CatchUpEntries uint64
}

// RunMemberIfAsked runs an etcd member and never returns when this process was started by the
// launcher to be one; otherwise it returns at once. Every package that starts a cluster calls
// it first thing in its TestMain, before m.Run:
//
//	func TestMain(m *testing.M) {
//		etcdtest.RunMemberIfAsked()
//		os.Exit(m.Run())
//	}
//
// The member serves until it is killed; it exits with status 1 if etcd fails or stops.
func RunMemberIfAsked() {
	v := os.Getenv(memberEnv)
	if v == "" {
		return
	}
	var mc memberConfig
	if err := json.Unmarshal([]byte(v), &mc); err != nil {
		fmt.Fprintf(os.Stderr, "etcdtest member: %s: %v\n", memberEnv, err)
		os.Exit(2)
	}
	os.Exit(runMember(mc))
}

// runMember starts etcd as mc says and serves until etcd stops.
func runMember(mc memberConfig) int {
	cfg, err := embedConfig(mc)
	if err != nil {
		fmt.Fprintf(os.Stderr, "etcdtest member %s: %v\n", mc.Name, err)
		return 2
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "etcdtest member %s: start: %v\n", mc.Name, err)
		return 1
	}
	select {
	case <-e.Server.ReadyNotify():
		fmt.Fprintf(os.Stderr, "etcdtest member %s: ready (pid %d)\n", mc.Name, os.Getpid())
	case err := <-e.Err():
		fmt.Fprintf(os.Stderr, "etcdtest member %s: %v\n", mc.Name, err)
		return 1
	case <-e.Server.StopNotify():
		fmt.Fprintf(os.Stderr, "etcdtest member %s: stopped before it was ready\n", mc.Name)
		return 1
	}
	select {
	case err := <-e.Err():
		fmt.Fprintf(os.Stderr, "etcdtest member %s: %v\n", mc.Name, err)
	case <-e.Server.StopNotify():
		fmt.Fprintf(os.Stderr, "etcdtest member %s: server stopped\n", mc.Name)
	}
	return 1
}

// embedConfig turns mc into embed's configuration: loopback URLs on held ports (so
// SO_REUSEPORT), the test timings, and warnings only in the log.
func embedConfig(mc memberConfig) (*embed.Config, error) {
	client, err := url.Parse(mc.ClientURL)
	if err != nil {
		return nil, fmt.Errorf("client URL: %w", err)
	}
	peer, err := url.Parse(mc.PeerURL)
	if err != nil {
		return nil, fmt.Errorf("peer URL: %w", err)
	}
	cfg := embed.NewConfig()
	cfg.Name = mc.Name
	cfg.Dir = mc.Dir
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*client}, []url.URL{*client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*peer}, []url.URL{*peer}
	cfg.InitialCluster = mc.InitialCluster
	cfg.ClusterState = mc.State
	cfg.InitialClusterToken = mc.Token
	cfg.TickMs, cfg.ElectionMs = mc.TickMs, mc.ElectionMs
	if mc.SnapshotCount > 0 {
		cfg.SnapshotCount = mc.SnapshotCount
	}
	if mc.CatchUpEntries > 0 {
		cfg.SnapshotCatchUpEntries = mc.CatchUpEntries
	}
	cfg.SocketOpts = transport.SocketOpts{ReusePort: true, ReuseAddress: true}
	cfg.LogLevel = "warn"
	cfg.LogOutputs = []string{"stderr"}
	return cfg, nil
}
