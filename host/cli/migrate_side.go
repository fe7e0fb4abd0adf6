package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/host"
	"baton/host/forward"
	"baton/store"
	"baton/store/etcdhome"
	"baton/workflow"
)

// side is one home of a migrate: a folder, or an etcd home with this machine's local
// folder (where its audit, archive/ and runs/ are; host/etcd.go).
type side struct {
	spec   string // as given on the command line
	folder string // a folder home's absolute path; "" for an etcd home
	local  string // where the audit, archive/ and runs/ are: the folder itself, or --local

	cli  *clientv3.Client // an etcd home's
	home *etcdhome.Home
	hold store.LockHold // the election, once won
	term *etcdhome.Term

	flock store.LockHold // a folder's state.lock, once held (host.TryFolderLock)
}

func (s *side) isEtcd() bool { return s.home != nil }

// kind names the side for messages: "the source folder /x", "the target etcd home etcd://…".
func (s *side) kind(src bool) string {
	role := "target"
	if src {
		role = "source"
	}
	if s.isEtcd() {
		return fmt.Sprintf("the %s etcd home %s", role, s.spec)
	}
	return fmt.Sprintf("the %s folder %s", role, s.folder)
}

// openSide resolves spec: a folder's absolute path (nothing is created), or an etcd
// home dialed and found reachable.
func (c *cli) openSide(spec string, src bool) (*side, error) {
	if !etcdhome.IsURL(spec) {
		abs, err := filepath.Abs(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec, err)
		}
		s := &side{spec: spec, folder: abs, local: abs}
		fi, err := os.Lstat(abs)
		switch {
		case errors.Is(err, os.ErrNotExist) && src:
			return nil, fmt.Errorf("no home at %s: nothing to migrate", abs)
		case errors.Is(err, os.ErrNotExist):
			return s, nil // the target folder is made when the migrate writes
		case err != nil:
			return nil, fmt.Errorf("%s: %w", abs, err)
		case !fi.IsDir():
			return nil, fmt.Errorf("%s is not a folder (a symbolic link is never followed): name the home folder itself", abs)
		}
		return s, nil
	}
	return c.dialSide(spec)
}

// dialSide connects to the etcd home url as a window does (host/etcd.go): the same
// flags, BATON_ETCD_USER and BATON_ETCD_PASSWORD, and --local (default one per home).
func (c *cli) dialSide(url string) (*side, error) {
	o := c.opts.Etcd
	if _, err := etcdhome.ParseURL(url); err != nil {
		return nil, err
	}
	local, err := c.localOf(url)
	if err != nil {
		return nil, err
	}
	h, err := host.DialEtcdHome(c.ctx, url, o.TLS, o.Lease, os.Getenv)
	if err != nil {
		return nil, err
	}
	return &side{spec: url, local: local, cli: h.Client(), home: h}, nil
}

// localOf is the local folder of the etcd home url: --local, else the default one per
// home (host.DefaultLocal), as an absolute path.
func (c *cli) localOf(url string) (string, error) {
	local := c.opts.Etcd.Local
	if local == "" {
		var err error
		if local, err = host.DefaultLocal(url); err != nil {
			return "", err
		}
	}
	abs, err := filepath.Abs(local)
	if err != nil {
		return "", fmt.Errorf("--local %s: %w", local, err)
	}
	return abs, nil
}

// close lets the side's lock go and closes its client.
func (s *side) close() {
	if s.hold != nil {
		_ = s.hold.Close()
	}
	if s.flock != nil {
		_ = s.flock.Close()
	}
	if s.cli != nil {
		_ = s.cli.Close()
	}
}

// lock takes the side's writer lock without waiting and keeps it until close; a home a
// window writes is refused, naming it. With dryRun nothing is created: a folder's lock is
// tried only if its state.lock exists, an etcd home's writer is only read.
func (s *side) lock(ctx context.Context, dryRun, src bool) error {
	if s.isEtcd() {
		return s.lockEtcd(ctx, dryRun, src)
	}
	if !dryRun && !src {
		if err := store.MkdirDurable(s.folder); err != nil {
			return err
		}
	}
	// As a window takes it (host.TryFolderLock): the same open flags, never a link followed.
	hold, err := host.TryFolderLock(s.folder, !dryRun)
	var busy *host.FolderBusyError
	switch {
	case dryRun && errors.Is(err, os.ErrNotExist):
		return nil // no window ever wrote here; nothing to lock without making a file
	case errors.As(err, &busy):
		return fmt.Errorf("%s is in use: %w and may write it: close every window on it (and wait for `baton run` commands that stay) and run migrate again",
			s.kind(src), busy)
	case err != nil:
		return fmt.Errorf("%s: take its %s: %w", s.kind(src), host.LockName, err)
	}
	s.flock = hold
	return nil
}

func (s *side) lockEtcd(ctx context.Context, dryRun, src bool) error {
	busy := func() error {
		cctx, cancel := etcdCtx(ctx)
		defer cancel()
		id, _, err := s.home.Writer(cctx)
		switch {
		case errors.Is(err, etcdhome.ErrNoWriter):
			return nil
		case err != nil:
			return err
		}
		return fmt.Errorf("%s is in use: machine %s (%s), window pid %d, is writing it: close every window on it and run migrate again",
			s.kind(src), id.Machine, orNone(id.Host, "no hostname"), id.Owner.PID)
	}
	if dryRun {
		return busy()
	}
	machine, hostname, err := host.MachineID()
	if err != nil {
		return fmt.Errorf("%s: take its writer lock: %w", s.kind(src), err)
	}
	hold, ok, err := s.home.WriterLock(etcdhome.Identity{Machine: machine, Host: hostname,
		Owner: store.Owner{PID: os.Getpid(), Since: time.Now().UTC()}}).TryLock()
	if err != nil {
		return err
	}
	if !ok {
		if err := busy(); err != nil {
			return err
		}
		return fmt.Errorf("%s is in use: a window is taking it over; close every window on it and run migrate again", s.kind(src))
	}
	s.hold, s.term = hold, hold.(*etcdhome.Hold).Term()
	return nil
}

// read reads the side's document as it is on disk or in etcd.
func (s *side) read(ctx context.Context) (*store.Doc, error) {
	if s.isEtcd() {
		cctx, cancel := etcdCtx(ctx)
		defer cancel()
		return s.home.ReadDoc(cctx)
	}
	return store.ReadHome(s.folder)
}

// readDoc reads the source's document; one that cannot be read is refused, never
// repaired, and a home with none is not a home.
func (s *side) readDoc(ctx context.Context) (*store.Doc, error) {
	d, err := s.read(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s cannot be read, so nothing was moved and nothing changed: %w", s.kind(true), err)
	}
	if d == nil || d.Generation == 0 {
		return nil, fmt.Errorf("%s holds no Baton home (no document): nothing to migrate", s.kind(true))
	}
	return d, nil
}

// refuseRunning refuses a source with runs still running: their supervisors may still
// write their logs and journals here, and a run moved while running would be followed by
// no one. It names each, and whether its supervisor is alive.
func (s *side) refuseRunning(ctx context.Context, d *store.Doc) error {
	var going []string
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Status != store.StatusRunning {
			continue
		}
		going = append(going, fmt.Sprintf("run %s of %s (%s)", r.ID, shown(r.Workflow), s.supervision(ctx, r.ID)))
	}
	if len(going) == 0 {
		return nil
	}
	return fmt.Errorf("%s has runs still running: %s; wait for them to end (or cancel them), open the home once so its writer records how they ended, close it, and run migrate again",
		s.kind(true), strings.Join(going, "; "))
}

// supervision says whether run id's supervisor is alive, by the evidence the home has.
func (s *side) supervision(ctx context.Context, id string) string {
	if s.isEtcd() {
		cctx, cancel := etcdCtx(ctx)
		defer cancel()
		st, err := s.home.RunState(cctx, id)
		switch {
		case err != nil:
			return fmt.Sprintf("its supervisor cannot be checked: %v", err)
		case st.Alive != nil:
			return fmt.Sprintf("its supervisor is alive: machine %s, pid %d", st.Alive.Machine, st.Alive.Owner.PID)
		}
		// A run of a window of this machine: its supervisor's lock is in the local folder.
	}
	sup := workflow.SupervisionOf(s.local, id)
	if sup.Alive {
		return "its supervisor is alive: " + sup.Evidence
	}
	return "its supervisor is gone, and no writer has recorded how it ended yet"
}

// batonEntries are the names of Baton's files and folders in a home (or an etcd home's
// local folder), state.lock aside: it holds no data.
var batonEntries = []string{store.FileName, store.PrevName, store.WALName, store.AuditName, store.AuditName + ".1",
	store.ArchiveDir, "runs", host.InstancesDir, forward.RequestsDir, forward.RepliesDir}

// refuseNotEmpty refuses a target that holds anything of Baton's: a key under the etcd
// prefix, a file of Baton's in the folder (or local folder), a folder of Baton's that is
// not empty.
func (s *side) refuseNotEmpty(ctx context.Context) error {
	var found []string
	if s.isEtcd() {
		cctx, cancel := etcdCtx(ctx)
		except := ""
		if s.term != nil {
			except = s.term.Key()
		}
		keys, n, err := s.home.OtherKeys(cctx, except, 5)
		cancel()
		if err != nil {
			return err
		}
		if n > 0 {
			more := ""
			if n > int64(len(keys)) {
				more = fmt.Sprintf(" and %d more", n-int64(len(keys)))
			}
			return fmt.Errorf("%s is not empty: %d %s under %s/ (%s%s); migrate only into an empty prefix (a migrate that did not finish leaves keys too: pick another prefix, or remove them with `etcdctl del --prefix %s/` once sure nothing there is needed)",
				s.kind(false), n, plural(int(n), "key", "keys"), s.home.Prefix(), strings.Join(keys, ", "), more, s.home.Prefix())
		}
	}
	for _, name := range batonEntries {
		p := filepath.Join(s.local, name)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			if ents, err := os.ReadDir(p); err == nil && len(ents) == 0 {
				continue
			}
		}
		found = append(found, p)
	}
	if len(found) == 0 {
		return nil
	}
	where := "folder"
	if s.isEtcd() {
		where = "local folder (--local)"
	}
	return fmt.Errorf("%s is not empty: its %s holds %s; migrate only into an empty home (a migrate that did not finish leaves files too: move them away, or pick another %s)",
		s.kind(false), where, strings.Join(found, ", "), where)
}

// write writes c into the target: the files first, each durably, then the document in
// one step (see the top of migrate.go).
func (s *side) write(ctx context.Context, c *homeContent) error {
	if err := store.MkdirDurable(s.local); err != nil {
		return err
	}
	if err := c.writeFiles(s.local); err != nil {
		return err
	}
	store.Failpoint("migrate.before-document") // a crash here leaves files and no document
	if s.isEtcd() {
		cctx, cancel := etcdCtx(ctx)
		defer cancel()
		if err := s.term.Import(cctx, c.doc); err != nil {
			return fmt.Errorf("save the document into %s: %w", s.spec, err)
		}
		return nil
	}
	data, err := json.MarshalIndent(c.doc, "", "  ")
	if err != nil {
		return fmt.Errorf("encode the document: %w", err)
	}
	if err := store.WriteFileAtomic(filepath.Join(s.folder, store.FileName), append(data, '\n'), nil); err != nil {
		return fmt.Errorf("save the document into %s: %w", s.folder, err)
	}
	return nil
}

// readBack reads the target as a window would.
func (s *side) readBack(ctx context.Context) (*homeContent, error) {
	d, err := s.read(ctx)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, fmt.Errorf("%s has no document", s.spec)
	}
	return s.readContent(d)
}

// audit appends rec to the side's audit log.
func (s *side) audit(rec store.Record) error {
	a := store.NewAudit(s.local)
	err := a.Append(rec)
	if err != nil && !errors.Is(err, store.ErrAuditHeld) {
		return err
	}
	return a.CloseWithin(5 * time.Second) // a held entry: written while this process may
}
