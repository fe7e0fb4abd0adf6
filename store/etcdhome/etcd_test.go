package etcdhome

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"baton/store/storetest/etcdtest"
)

// member is an in-process single-member etcd for unit tests (the multi-process cluster
// with a fault proxy is store/storetest/etcdtest's).
type member struct {
	e        *embed.Etcd
	endpoint string
}

// shared is the member most tests use, each under its own prefix.
var shared *member

func TestMain(m *testing.M) {
	etcdtest.RunMemberIfAsked() // a member process of a test's etcdtest cluster
	if ep := os.Getenv(envChildEndpoint); ep != "" {
		if os.Getenv(envChildMode) == "write-after-stop" {
			runWriterChild(ep, os.Getenv(envChildPrefix))
		}
		runChild(ep, os.Getenv(envChildPrefix), os.Getenv(envChildLease))
	}
	dir, err := os.MkdirTemp("", "etcdhome-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	shared, err = startMember(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "start etcd:", err)
		os.Exit(1)
	}
	code := m.Run()
	shared.e.Close()
	os.RemoveAll(dir)
	os.Exit(code)
}

// startMember starts a member in dir on free loopback ports, retrying when a port picked
// free was taken before etcd bound it.
func startMember(dir string) (*member, error) { return startMemberWith(dir, "http", nil) }

// startMemberWith starts a member whose client URL has scheme, after tune changed its
// configuration (nil: none).
func startMemberWith(dir, scheme string, tune func(*embed.Config)) (*member, error) {
	var last error
	for try := 0; try < 10; try++ {
		m, err := startMemberOnce(dir, scheme, tune)
		if err == nil {
			return m, nil
		}
		last = err
		os.RemoveAll(dir)
		os.MkdirAll(dir, 0o700)
	}
	return nil, last
}

func startMemberOnce(dir, scheme string, tune func(*embed.Config)) (*member, error) {
	cport, err := freePort()
	if err != nil {
		return nil, err
	}
	pport, err := freePort()
	if err != nil {
		return nil, err
	}
	cfg := embed.NewConfig()
	cfg.Dir = dir
	cfg.Name = "m0"
	cu, _ := url.Parse(scheme + "://127.0.0.1:" + cport)
	pu, _ := url.Parse("http://127.0.0.1:" + pport)
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{*cu}, []url.URL{*cu}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{*pu}, []url.URL{*pu}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.ListenMetricsUrls = nil
	if tune != nil {
		tune(cfg)
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, err
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, err
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, fmt.Errorf("etcd in %s not ready after 60 s", dir)
	}
	return &member{e: e, endpoint: cu.String()}, nil
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port, nil
}

// client returns a new client of m, closed at the test's end.
func (m *member) client(t testing.TB) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{m.endpoint},
		DialTimeout: 10 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

var prefixes atomic.Int64

// newHome returns a home under a fresh prefix of the shared member, on a client of its own.
func newHome(t testing.TB, opts Options) *Home {
	t.Helper()
	return openHome(t, shared.client(t), fmt.Sprintf("t%d-%s", prefixes.Add(1), t.Name()), opts)
}

func openHome(t testing.TB, cli *clientv3.Client, prefix string, opts Options) *Home {
	t.Helper()
	h, err := Open(cli, prefix, opts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// testCtx returns a context with a generous deadline for waits on a loaded machine.
func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
