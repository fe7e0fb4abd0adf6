package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
	"baton/store/etcdhome"
	"baton/workflow"
)

// An etcd home (--home etcd://h1:2379,h2:2379/prefix, issue 21): the document and the
// writer lock live under the prefix (store/etcdhome, through Options.Doc and
// Options.Lock); what belongs to this machine (instance locks, runs/, the audit,
// requests/ and replies/) lives in a local folder (--local). The core runs unchanged on
// that folder; this file dials etcd, names the machine, proves a dead writer on this
// machine dead by its instance lock (then revokes its lease at once), watches whether
// etcd can be reached. Runs on an etcd home: see etcd_runs.go.

// EtcdOptions configure a window on an etcd home; ignored (and --local refused) for a
// folder home.
type EtcdOptions struct {
	TLS   etcdhome.TLSFiles
	Lease time.Duration // --lease: the writer session's lease; 0 is etcdhome.DefaultLease
	Local string        // --local: this machine's folder for the home; "" is DefaultLocal
}

// Register adds --etcd-cacert, --etcd-cert, --etcd-key, --lease and --local to fs.
func (e *EtcdOptions) Register(fs *flag.FlagSet) {
	e.TLS.Register(fs)
	fs.DurationVar(&e.Lease, "lease", etcdhome.DefaultLease,
		"etcd home: the writer's lease; another machine takes over this long after the writer is lost (at least 2s)")
	fs.StringVar(&e.Local, "local", "", "etcd home: this machine's folder for the home (runs, logs, audit); "+
		"default under the user cache folder, one per home")
}

// EnvMachine overrides the machine id (containers, tests).
const EnvMachine = "BATON_MACHINE"

// DefaultLocal is the local folder of the etcd home url when --local is not given:
// os.UserCacheDir()/baton/local-<hash of url>.
func DefaultLocal(url string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("etcd home %s: no local folder: give --local DIR: %w", url, err)
	}
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(base, "baton", "local-"+hex.EncodeToString(sum[:8])), nil
}

// MachineID names this machine as a window on an etcd home names it: BATON_MACHINE,
// else /etc/machine-id, else the hostname; and returns the hostname. With none of the
// three it fails, saying to set BATON_MACHINE. Any goroutine may call it.
func MachineID() (id, hostname string, err error) { return machineID(os.Getenv) }

// machineID is MachineID with getenv for os.Getenv.
func machineID(getenv func(string) string) (id, hostname string, err error) {
	hostname, _ = os.Hostname()
	if m := strings.TrimSpace(getenv(EnvMachine)); m != "" {
		return m, hostname, nil
	}
	if b, err := os.ReadFile("/etc/machine-id"); err == nil && strings.TrimSpace(string(b)) != "" {
		return strings.TrimSpace(string(b)), hostname, nil
	}
	if hostname == "" {
		return "", "", fmt.Errorf("no machine id: /etc/machine-id is missing and the hostname is empty; set %s", EnvMachine)
	}
	return hostname, hostname, nil
}

// etcdWire is a window's link to its etcd home.
type etcdWire struct {
	url      string
	local    string
	cli      *clientv3.Client
	home     *etcdhome.Home
	machine  string
	hostname string
	logf     func(string, ...any)
	tls      etcdhome.TLSFiles // for the runs' supervisors (OpenSharedRun)
	lease    time.Duration

	mu        sync.Mutex
	downSince time.Time          // when etcd was first found unreachable; zero while it answers
	writer    *etcdhome.Identity // the election's holder, as last read; nil when none or not known
}

// dialEtcd parses url, checks the options and connects (DialEtcdHome).
func dialEtcd(url string, o EtcdOptions, logf func(string, ...any)) (*etcdWire, error) {
	getenv := os.Getenv // BATON_ETCD_USER, BATON_ETCD_PASSWORD, BATON_MACHINE
	if _, err := etcdhome.ParseURL(url); err != nil {
		return nil, err
	}
	lease, err := etcdLease(o.Lease)
	if err != nil {
		return nil, err
	}
	local := o.Local
	if local == "" {
		if local, err = DefaultLocal(url); err != nil {
			return nil, err
		}
	}
	machine, hostname, err := machineID(getenv)
	if err != nil {
		return nil, err
	}
	// A window does not open on a cluster it cannot reach (it would wait in its first read
	// with nothing to show): it says so at once. Once open, it stays open, read-only while
	// etcd cannot be reached (monitor).
	h, err := DialEtcdHome(context.Background(), url, o.TLS, lease, getenv)
	if err != nil {
		return nil, err
	}
	return &etcdWire{url: url, local: local, cli: h.Client(), home: h, machine: machine, hostname: hostname, logf: logf,
		tls: o.TLS, lease: lease}, nil
}

// DialEtcdHome connects to the etcd home url as every part of Baton does (a window, a
// run's supervisor, `baton migrate`): TLS from files, the user and password from
// getenv(BATON_ETCD_USER) and getenv(BATON_ETCD_PASSWORD) (os.Getenv, or a copy of them
// taken out of the environment), the home opened with lease (0 is etcdhome.DefaultLease;
// shorter than etcdhome.MinLease is refused); then it reads the home once and fails,
// naming what to check, if that read gets no answer within dialCheck (or before ctx
// ends). It blocks for that read. The caller closes the home's client (Home.Client).
func DialEtcdHome(ctx context.Context, url string, files etcdhome.TLSFiles, lease time.Duration, getenv func(string) string) (*etcdhome.Home, error) {
	addr, err := etcdhome.ParseURL(url)
	if err != nil {
		return nil, err
	}
	if lease, err = etcdLease(lease); err != nil {
		return nil, err
	}
	cfg, err := etcdhome.ClientConfig(addr, files, getenv)
	if err != nil {
		return nil, err
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("etcd home %s: %w", url, err)
	}
	h, err := etcdhome.Open(cli, addr.Prefix, etcdhome.Options{Lease: lease})
	if err != nil {
		_ = cli.Close()
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, dialCheck)
	_, err = cli.Get(cctx, h.Prefix()+"/doc/meta")
	cancel()
	if err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("etcd home %s cannot be reached within %s: %w; check the addresses, that a majority of the members run, "+
			"and --etcd-cacert/--etcd-cert/--etcd-key, %s/%s", url, dialCheck, err, etcdhome.EnvUser, etcdhome.EnvPassword)
	}
	return h, nil
}

// etcdLease is the lease of --lease d: 0 is etcdhome.DefaultLease; a shorter one than
// etcdhome.MinLease is refused.
func etcdLease(d time.Duration) (time.Duration, error) {
	if d == 0 {
		return etcdhome.DefaultLease, nil
	}
	if d < etcdhome.MinLease {
		return 0, fmt.Errorf("--lease %s is too short: an etcd home's lease is at least %s "+
			"(etcd cannot keep a shorter one alive through a leader election)", d, etcdhome.MinLease)
	}
	return d, nil
}

// identity is the election value of window self on this machine.
func (e *etcdWire) identity(self store.Owner) etcdhome.Identity {
	return etcdhome.Identity{Machine: e.machine, Host: e.hostname, Owner: self}
}

// writerPrefix is where the election keys are (etcdhome's layout: <prefix>/writer/).
func (e *etcdWire) writerPrefix() string { return e.home.Prefix() + "/writer/" }

// readWriter reads the election's holder (the oldest key) and the revision read at.
func (e *etcdWire) readWriter(ctx context.Context) (*etcdhome.Identity, int64, error) {
	resp, err := e.cli.Get(ctx, e.writerPrefix(), clientv3.WithFirstCreate()...)
	if err != nil {
		return nil, 0, err
	}
	if len(resp.Kvs) == 0 {
		return nil, resp.Header.Revision, nil
	}
	var id etcdhome.Identity
	if err := json.Unmarshal(resp.Kvs[0].Value, &id); err != nil {
		return nil, resp.Header.Revision, fmt.Errorf("etcd home %s: writer key %s: %w", e.url, resp.Kvs[0].Key, err)
	}
	return &id, resp.Header.Revision, nil
}

// probeEvery is how often a window asks etcd who writes (and so whether it answers).
const probeEvery = time.Second

// monitor keeps downSince and writer up to date until ctx ends: one linearizable read a
// second (it needs a quorum, as a save does). Status reads them; the window's role text
// is recomputed on its own ticks.
func (e *etcdWire) monitor(ctx context.Context) {
	for {
		rctx, cancel := context.WithTimeout(ctx, 2*probeEvery)
		id, _, err := e.readWriter(rctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		e.mu.Lock()
		if err != nil {
			if e.downSince.IsZero() {
				e.downSince = time.Now()
				e.logf("etcd home %s unreachable: %v", e.url, err)
			}
		} else {
			e.downSince, e.writer = time.Time{}, id
		}
		e.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(probeEvery):
		}
	}
}

// down returns why etcd cannot be written now ("etcd unreachable since 14:02"), or "";
// the status and the refusals put it after "read-only: ".
func (e *etcdWire) down() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.downSince.IsZero() {
		return ""
	}
	return "etcd unreachable since " + e.downSince.Format("15:04")
}

// writerMachine returns the machine of the election's holder as last read, or "".
func (e *etcdWire) writerMachine() (string, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.writer == nil {
		return "", 0
	}
	return e.writer.Machine, e.writer.Owner.PID
}

// cannotForward says why a write cannot be forwarded to the writer now, or "": requests
// go through the local folder (requests/), so only a writer whose instance lock is in it
// can take them. Else the write is refused at once, naming where it can be made.
func (e *etcdWire) cannotForward(self store.Owner) string {
	if why := e.down(); why != "" {
		return why
	}
	e.mu.Lock()
	id := e.writer
	e.mu.Unlock()
	if id == nil || id.Owner.Instance == self.Instance {
		return ""
	}
	if _, err := os.Lstat(instancePath(e.local, id.Owner.Instance)); err == nil {
		return ""
	}
	return fmt.Sprintf("machine %s, window pid %d, is writing; a write cannot be forwarded to another machine (or another --local) yet: make it there",
		id.Machine, id.Owner.PID)
}

// proveDeadWriters runs while this window waits for the writer lock: whenever the
// election's holder is a window of this machine (its machine id) whose instance lock is in
// this window's local folder, it waits on that lock; once it wins it, that window is dead
// (the kernel let its locks go), and its lease is revoked so the waiting campaign wins at
// once rather than after the lease. Without that evidence (another machine, another
// --local, no instance file) it does nothing: the lease decides.
func (e *etcdWire) proveDeadWriters(ctx context.Context, self func() store.Owner) {
	for ctx.Err() == nil {
		id, rev, err := e.readWriter(ctx)
		if err != nil {
			select { // etcd unreachable: the monitor says so; try again
			case <-ctx.Done():
			case <-time.After(probeEvery):
			}
			continue
		}
		if id != nil && id.Machine == e.machine && id.Owner.Instance != "" && id.Owner.Instance != self().Instance && id.Lease != 0 {
			t0 := time.Now()
			if why, dead := e.awaitDeath(ctx, id.Owner); dead {
				rctx, cancel := context.WithTimeout(ctx, opTimeoutEtcd)
				err := e.home.RevokeDead(rctx, id.Lease)
				cancel()
				e.logf("etcd home %s: writer pid %d on this machine is dead (%s, proven in %s): revoked its lease %x: %v",
					e.url, id.Owner.PID, why, time.Since(t0).Round(time.Microsecond), int64(id.Lease), err)
				if err != nil { // etcd unreachable: not in a tight loop
					select {
					case <-ctx.Done():
					case <-time.After(probeEvery):
					}
				}
				continue
			}
		}
		e.awaitWriterChange(ctx, rev)
	}
}

// dialCheck bounds the first read of a window opening an etcd home.
const dialCheck = 5 * time.Second

// opTimeoutEtcd bounds one etcd call of the wiring.
const opTimeoutEtcd = 10 * time.Second

// awaitDeath blocks until window o's instance lock in the local folder is free (dead:
// true) or ctx ends. With no instance file there is no evidence here: false at once.
func (e *etcdWire) awaitDeath(ctx context.Context, o store.Owner) (string, bool) {
	path := instancePath(e.local, o.Instance)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", false
	}
	got := make(chan error, 1)
	go func() { got <- syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }()
	select {
	case err := <-got:
		_ = f.Close()
		if err != nil {
			return "", false
		}
		return "its instance lock " + path + " is free", true
	case <-ctx.Done():
		go func() { <-got; _ = f.Close() }() // flock cannot be interrupted: let go once it returns
		return "", false
	}
}

// awaitWriterChange returns once a key under the writer prefix changed after rev, or ctx
// ended, or the watch broke (then after a pause).
func (e *etcdWire) awaitWriterChange(ctx context.Context, rev int64) {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	for resp := range e.cli.Watch(wctx, e.writerPrefix(), clientv3.WithPrefix(), clientv3.WithRev(rev+1)) {
		if resp.Err() != nil || resp.Canceled {
			break
		}
		if len(resp.Events) > 0 {
			return
		}
	}
	select {
	case <-ctx.Done():
	case <-time.After(probeEvery):
	}
}

// leaseLost returns a channel closed when hold's etcd lease is known lost (its session
// ended), or nil for a hold that is not an etcd election's.
func leaseLost(hold store.LockHold) <-chan struct{} {
	if h, ok := hold.(*etcdhome.Hold); ok {
		return h.Term().Done()
	}
	return nil
}

// etcdEvidence is workflow.Evidence on an etcd home: a window's liveness is decided from
// this machine's evidence (its instance lock in the local folder) when there is some;
// without it (a window of another machine, or of another --local) from its key in the
// writer election (etcdWire.ownerAlive): gone means its lease is gone. Runs are judged by
// their supervisors' leases in etcd (etcdWire.supervision, used by the takeover's reaper
// with its term).
type etcdEvidence struct {
	folderEvidence
	wire *etcdWire
}

func (e etcdEvidence) OwnerAlive(self, o store.Owner) (bool, string) {
	if o.Instance != "" && o.Instance != self.Instance {
		if _, err := os.Lstat(instancePath(e.home, o.Instance)); errors.Is(err, os.ErrNotExist) {
			return e.wire.ownerAlive(o)
		}
	}
	return e.folderEvidence.OwnerAlive(self, o)
}

var _ workflow.Evidence = etcdEvidence{}

// IsEtcd reports whether the window's home is an etcd home.
func (w *Core) IsEtcd() bool { return w.etcd != nil }
