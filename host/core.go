package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofrs/flock"

	"baton/host/forward"
	"baton/store"
	"baton/store/etcdhome"
	"baton/workflow/proc"
)

// LockName is the writer's lock file in the home folder. It is never deleted.
const LockName = "state.lock"

// Options configure a Core. The zero value is safe.
type Options struct {
	// Now is the clock; time.Now by default.
	Now func() time.Time
	// Logf logs diagnostics (to stderr in the app); silent by default.
	Logf func(format string, args ...any)
	// MaxSize caps workflows.json (store.DefaultMaxSize by default).
	MaxSize int64
	// KeepFinished and MaxFinished bound the finished runs kept in workflows.json, per
	// workflow and in all; older ones move to the archive (store defaults when 0;
	// KeepFinished < 0 never archives).
	KeepFinished, MaxFinished int
	// NoScheduler keeps the writer from running schedules by itself (tick --once drives
	// them one pass at a time instead).
	NoScheduler bool
	// NoWait makes Start take the lock only if it is free now; a window that does not get
	// it stays a reader and never waits (tick --once).
	NoWait bool
	// MustExist makes Open refuse a folder that is not a home yet (ErrNoHome) instead of
	// making it one: a command that only reads never creates a home.
	MustExist bool
	// Doc and Lock keep the home's document and its writer lock somewhere other than the
	// home folder: the seams of store/home.go, for a second kind of home (issue 21: etcd).
	// Nil: workflows.json with its log, and state.lock, in the folder. The folder keeps
	// what belongs to this machine either way (instances/, runs/, requests/, the audit).
	Doc  store.DocHome
	Lock store.WriterLock
	// Etcd configures a home named etcd://h1:2379,h2:2379/prefix (host/etcd.go): the
	// document and the writer lock under the prefix, this machine's files in Etcd.Local.
	Etcd EtcdOptions
}

// Core is the core of one process on a home folder (a window, a headless process, a
// command or tick): a reader that follows the writer, or the writer. Create it with Open, subscribe, then call Start. Safe for concurrent use.
type Core struct {
	home  string
	self  store.Owner
	opts  Options
	st    *store.Store
	audit *store.Audit
	inst  *flock.Flock // instances/<id>.lock, held for the window's life
	// lockPath is state.lock. Each wait for it makes its own hold (writerLock); the
	// hold that wins belongs to the term that begins (Term.lock) and goes with it.
	lockPath string
	ctx      context.Context
	stop     context.CancelFunc
	hub      hub

	// instDir holds inst: home/instances, or a private folder when the home cannot be
	// written, and then readOnly says why (set by Open, never changed): the window only
	// reads, and says so as its problem.
	instDir, readOnly string

	mu        sync.Mutex // guards the fields below; the role changes only through move
	life      Role       // RoleOpening, RoleReader or RoleClosed: the role without a term
	term      *Term      // the term of the state.lock this window won, until it leaves it; nil when none
	waiting   bool       // a goroutine is blocked waiting for state.lock
	problem   error
	unsafe    error    // the home's problem the last look found (checkHome), or nil
	last      Takeover // the last takeover this window did
	started   bool
	fsWarning string // set by Open when the home is on a network filesystem; never changes

	lastClean atomic.Int64 // when the writer last removed abandoned files (unix ns)
	lastRuns  atomic.Int64 // when it last looked through runs/ for abandoned files (unix ns)

	auditedMu sync.Mutex      // guards audited
	audited   map[string]bool // what auditOnce already recorded
	homePoke  chan struct{}   // wakes guardHome (buffered 1)

	replyOnce sync.Once        // the watch of replies/ for forwarded requests (forward.go)
	replies   *forward.Watcher // nil if it could not start: replyErr says why
	replyErr  error

	retainOnce  sync.Once
	retainState *retentionState // what its retention passes keep between them

	termWG sync.WaitGroup // the goroutines of writer terms: takeover, scheduler, demote
	bgWG   sync.WaitGroup // the window's own goroutines that may end a term (guardHome)

	closeErr error // why the liveness lock could not be let go at Close (set once, by leave)

	pubMu     sync.Mutex // serialises publish; guards published
	published *store.Doc

	etcd *etcdWire // the link to an etcd home; nil for a folder home
}

// keepTeardown starts this process's teardown keeper once, at its first window.
var keepTeardown sync.Once

// Open prepares the home folder, takes this window's liveness lock and reads
// workflows.json (an unreadable file is reported by Status, not returned). It does not
// take a role yet: subscribe, then call Start.
func Open(home string, opts Options) (*Core, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	keepTeardown.Do(func() {
		// Before any lock: a window killed with -9 frees state.lock without first
		// waiting for its memory to be freed (see proc.DetachTeardown).
		if _, err := proc.DetachTeardown(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
			opts.Logf("warning: %v (a kill -9 of this window frees state.lock only after its memory)", err)
		}
	})
	if etcdhome.IsURL(home) {
		ew, err := dialEtcd(home, opts.Etcd, opts.Logf)
		if err != nil {
			return nil, err
		}
		w, err := openFolder(ew.local, false, opts, ew)
		if err != nil {
			_ = ew.cli.Close()
		}
		return w, err
	}
	if opts.Etcd.Local != "" {
		return nil, fmt.Errorf("--local %s is for an etcd home (--home etcd://…); a folder home keeps everything in its folder", opts.Etcd.Local)
	}
	return openFolder(home, opts.MustExist, opts, nil)
}

// openFolder is Open on the home folder home (for an etcd home, its local folder, with ew).
func openFolder(home string, mustExist bool, opts Options, ew *etcdWire) (*Core, error) {
	abs, err := prepareHome(home, mustExist)
	if err != nil {
		return nil, err
	}
	if err := refuseOddFolders(abs); err != nil {
		return nil, err
	}
	self, err := newIdentity()
	if err != nil {
		return nil, err
	}
	store.SetProcessTag(procTag(self))
	inst, instDir, readOnly, err := lockOwnInstance(abs, self)
	if err != nil {
		return nil, err
	}
	w := &Core{home: abs, self: self, opts: opts, inst: inst, instDir: instDir, readOnly: readOnly,
		audit: store.NewAudit(abs), life: RoleOpening, homePoke: make(chan struct{}, 1), etcd: ew}
	if ew != nil {
		ew.local = abs
		opts.Doc = ew.home.DocHome() // the same Home as the writer lock's: its hold fences the commits
		w.opts.Doc = opts.Doc
	}
	sopts := store.Options{MaxSize: opts.MaxSize, BeforeSave: w.checkLock,
		KeepFinished: opts.KeepFinished, MaxFinished: opts.MaxFinished}
	if opts.Doc != nil {
		w.st = store.NewOn(abs, opts.Doc, sopts)
	} else {
		w.st = store.New(abs, sopts)
	}
	w.lockPath = filepath.Join(abs, LockName)
	w.ctx, w.stop = context.WithCancel(context.Background())
	_ = w.checkHome() // an unsafe home opens read-only: Status says why
	if w.fsWarning = filesystemWarning(abs); w.fsWarning != "" {
		opts.Logf("warning: %s", w.fsWarning)
	}
	if _, err := w.st.Reload(); err != nil {
		w.problem = err
	}
	return w, nil
}

// Home returns the absolute home folder.
func (w *Core) Home() string { return w.home }

// Self returns this window's identity.
func (w *Core) Self() store.Owner {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.self
}

// Subscribe returns a subscription to this window's events. Subscribe before Start to see
// the first role event. Close the Sub when done; it is closed by Close of the window.
func (w *Core) Subscribe() *Sub { return w.hub.subscribe() }

// Unsubscribe ends a subscription.
func (w *Core) Unsubscribe(s *Sub) { w.hub.unsubscribe(s) }

// Start follows the home folder and takes the initial role: it tries state.lock without
// blocking; with it, it runs BecomeWriter; without it, it stays a reader and a watcher
// waits for the lock. Start blocks until the initial role is known (for a writer, until
// its takeover finished).
func (w *Core) Start() error {
	w.mu.Lock()
	if w.started || w.life == RoleClosed {
		w.mu.Unlock()
		return errors.New("window already started or closed")
	}
	w.started = true
	w.mu.Unlock()
	if err := w.st.Watch(w.ctx, w.onFileChange); err != nil {
		return err
	}
	if w.readOnly == "" {
		if err := w.watchRequests(); err != nil {
			return err
		}
	}
	w.bgWG.Add(1)
	go func() { defer w.bgWG.Done(); w.guardHome(w.homePoke) }()
	if w.etcd != nil {
		w.bgWG.Add(1)
		go func() { defer w.bgWG.Done(); w.etcd.monitor(w.ctx) }()
	}
	// A save between Open's read and the watch being set up raised no event: look again.
	doc, _, err := w.st.Refresh()
	w.mu.Lock()
	w.problem = err
	w.mu.Unlock()
	w.publish(doc)
	// On a read-only file system it can never hold state.lock: it follows the home and
	// reads. In an unsafe home it is read-only and not in the way: the lock is not tried.
	if w.readOnly != "" || w.unsafeHome() != nil {
		_, emit := w.move(RoleReader, nil, nil)
		emit()
		return nil
	}
	fl, ok, err := w.writerLock().TryLock()
	if err != nil {
		return err
	}
	if ok {
		w.gotLock(fl)
		return nil
	}
	// the watcher waits on a hold of its own
	_, emit := w.move(RoleReader, nil, nil)
	emit()
	if !w.opts.NoWait {
		w.waitForLock()
	}
	return nil
}

// waitForLock starts the lock watcher: a goroutine blocked in flock that wakes the moment
// the holder's descriptor closes (by exit, crash or kill -9).
func (w *Core) waitForLock() {
	w.mu.Lock()
	if w.waiting || w.life == RoleClosed {
		w.mu.Unlock()
		return
	}
	w.waiting = true
	w.mu.Unlock()
	go func() {
		ctx, stopProving := context.Background(), func() {}
		if w.etcd != nil { // an election can be left: Close ends the wait; a dead writer here is proven so
			var pctx context.Context
			pctx, stopProving = context.WithCancel(w.ctx)
			go w.etcd.proveDeadWriters(pctx, w.Self)
			ctx = w.ctx
		}
		fl, err := w.writerLock().Lock(ctx)
		stopProving()
		w.mu.Lock()
		w.waiting = false
		closed := w.life == RoleClosed
		w.mu.Unlock()
		if err != nil {
			w.opts.Logf("waiting for %s: %v", LockName, err)
			return
		}
		if closed {
			_ = fl.Close()
			return
		}
		w.gotLock(fl)
	}()
}

// gotLock begins the term of the state.lock won and runs its takeover. The lock taken must be
// on the file that is state.lock now: if it was removed or replaced while this window
// waited (or between open and lock), holding it proves nothing, since another window may
// hold the file now at the path. Then the stale lock is let go and the wait starts over
// on the new file.
func (w *Core) gotLock(fl store.LockHold) {
	if w.unsafeHome() != nil {
		// No window writes an unsafe home: let the lock go; guardHome waits for it again
		// once the home is safe.
		_ = fl.Release()
		return
	}
	if err := fl.Check(); err != nil {
		if w.etcd != nil { // an election won and lost again, or etcd not answering the check
			w.opts.Logf("the writer lock just won on etcd home %s cannot be confirmed (%v); waiting for it again", w.etcd.url, err)
		} else {
			w.opts.Logf("%v: the file locked is no longer %s; waiting on the new one", ErrLockLost, w.lockPath)
		}
		_ = fl.Release()
		w.waitForLock()
		return
	}
	w.mu.Lock()
	if w.life == RoleClosed { // Close ran while the lock was being won: let it go
		w.mu.Unlock()
		_ = fl.Close()
		return
	}
	w.term = newTerm(w, w.self, fl)
	t := w.term
	lost := leaseLost(fl)
	if lost != nil {
		w.termWG.Add(1) // under w.mu, where Close's leave clears the term
	}
	w.mu.Unlock()
	if lost != nil { // an etcd hold ends behind the holder's back: the term ends with it
		go func() {
			defer w.termWG.Done()
			select {
			case <-lost:
				w.endTerm(t, fmt.Errorf("%w: the writer's lease on the etcd home is gone", store.ErrLockLost))
			case <-t.Done():
			}
		}()
	}
	_, _ = w.BecomeWriter()
}

// checkLock runs before every save: the lock must be held, and state.lock on disk must be
// the very file we hold (not removed or replaced), or a second writer could start beside us.
func (w *Core) checkLock() error {
	w.mu.Lock()
	t, role := w.term, w.roleLocked()
	w.mu.Unlock()
	if t == nil {
		return &ReadOnlyError{Role: role}
	}
	if w.etcd != nil {
		if why := w.etcd.down(); why != "" {
			return &ReadOnlyError{Role: role, Problem: why}
		}
	}
	return t.lock.Check()
}

// onFileChange runs on the store's watch goroutine after a reload.
func (w *Core) onFileChange(doc *store.Doc, err error) {
	w.mu.Lock()
	prevProblem := w.problem
	w.problem = err
	retry := err == nil && w.term != nil && w.roleLocked() == RoleReader
	w.mu.Unlock()
	if err != nil {
		w.opts.Logf("%v", err)
		if errors.Is(err, store.ErrDamaged) {
			// A writer whose home turned out damaged (a file removed or replaced under
			// it) stops writing at once, keeping nothing it cannot prove; the window that
			// holds state.lock then may recover the home.
			w.mu.Lock()
			t := w.writingLocked()
			if t != nil {
				w.termWG.Add(1) // under w.mu, where Close's leave clears the term
			}
			w.mu.Unlock()
			if t != nil {
				go func() { defer w.termWG.Done(); w.endTerm(t, err) }()
			}
		}
		if w.holdsLockNow() {
			if serr := w.st.SaveLastGood(); serr != nil {
				w.opts.Logf("keep the last good generation: %v", serr)
			}
		}
		if prevProblem == nil || prevProblem.Error() != err.Error() {
			w.emitRole()
		}
		return
	}
	w.publish(doc)
	if prevProblem != nil {
		w.emitRole()
	}
	if retry {
		// We hold the lock but could not take over because the file was unreadable; it
		// is readable again.
		_, _ = w.BecomeWriter()
	}
}

// Role returns the current role. The answer may be stale by the time it is used.
func (w *Core) Role() Role {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.roleLocked()
}

// emitRole tells subscribers the current role again (its problem changed, or who writes),
// with the problem or, failing one, the filesystem warning.
func (w *Core) emitRole() { w.emitRoleEvent(w.Role()) }

// emitRoleEvent sends the role event of a move to role: for a writer, its takeover (epoch,
// reaped runs, how long it took); for a closed window, the role alone; otherwise who
// writes, the epoch and the problem or the filesystem warning.
func (w *Core) emitRoleEvent(role Role) {
	switch role {
	case RoleClosed:
		w.hub.emit(Event{Kind: EventRole, Role: RoleClosed})
	case RoleWriter:
		w.mu.Lock()
		tk := w.last
		w.mu.Unlock()
		ids := make([]string, 0, len(tk.Reaped))
		for _, o := range tk.Reaped {
			ids = append(ids, o.Run)
		}
		adopted := make([]string, 0, len(tk.Adopted))
		for _, o := range tk.Adopted {
			adopted = append(adopted, o.Run)
		}
		w.hub.emit(Event{Kind: EventRole, Role: RoleWriter, WriterPID: tk.NewOwner.PID, Epoch: tk.Epoch, Reaped: ids, Adopted: adopted, TookMS: tk.TookMS})
	default:
		s := w.Status()
		if s.Problem == "" {
			s.Problem = w.fsWarning
		}
		w.hub.emit(Event{Kind: EventRole, Role: role, WriterPID: s.WriterPID, Epoch: s.Epoch, Problem: s.Problem})
	}
}

// Warning returns a standing warning about the home folder (it is on a network
// filesystem, where the single-writer guarantee does not hold), or "".
func (w *Core) Warning() string { return w.fsWarning }

// publish tells subscribers what changed between the last published document and doc:
// one run event per run whose status changed, then one changed event.
func (w *Core) publish(doc *store.Doc) {
	w.pubMu.Lock()
	defer w.pubMu.Unlock()
	old := w.published
	if old == doc || (old != nil && !old.Before(doc)) {
		return // never publish an older view after a newer one (callers of one commit race)
	}
	w.published = doc
	var evs []Event
	prev := map[string]string{}
	if old != nil {
		for i := range old.Runs {
			prev[old.Runs[i].ID] = old.Runs[i].Status
		}
	}
	for i := range doc.Runs {
		r := &doc.Runs[i]
		if prev[r.ID] != r.Status {
			evs = append(evs, Event{Kind: EventRun, Run: r.ID, Workflow: r.Workflow, Status: r.Status, Error: r.Error})
		}
	}
	evs = append(evs, Event{Kind: EventChanged, Generation: doc.Generation, Epoch: doc.Epoch})
	oldWriter := 0
	if old != nil && old.Writer != nil {
		oldWriter = old.Writer.PID
	}
	w.mu.Lock()
	readerKnown := w.roleLocked() == RoleReader
	w.mu.Unlock()
	if doc.Writer != nil && doc.Writer.PID != oldWriter && readerKnown {
		evs = append(evs, Event{Kind: EventRole, Role: RoleReader, WriterPID: doc.Writer.PID, Epoch: doc.Epoch})
	}
	w.hub.emit(evs...)
}

// Close ends the window gracefully: a writer cancels its running runs and records them,
// then its term ends and it releases state.lock; the liveness lock goes last. It blocks
// until then. A window waiting for the lock stops waiting. Safe to call more than once.
func (w *Core) Close() error {
	w.mu.Lock()
	if w.life == RoleClosed {
		w.mu.Unlock()
		return nil
	}
	t := w.writingLocked()
	w.mu.Unlock()
	if t != nil {
		t.farewell()
	}
	if !w.leave(nil, exitClose()) {
		return nil // another Close got there first
	}
	if w.etcd != nil {
		_ = w.etcd.cli.Close()
	}
	return w.closeErr
}

// RunsLeftAtClose sorts the running runs of d that the writer window (instance, pid)
// owns by what closing it does to them: cancel (it stops them, recorded cancelled) or
// keep (their workflow says on_owner_lost "adopt": they go on under their supervisors
// and the next writer adopts them). A run recorded before owners had an instance is
// matched by pid.
func RunsLeftAtClose(d *store.Doc, instance string, pid int) (cancel, keep []string) {
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Status != store.StatusRunning {
			continue
		}
		if !((r.Owner != nil && r.Owner.Instance == instance) || (r.Owner == nil && r.OwnerPID == pid)) {
			continue
		}
		if wf := d.Workflow(r.Workflow); wf != nil && wf.OnOwnerLost == "adopt" {
			keep = append(keep, r.ID)
		} else {
			cancel = append(cancel, r.ID)
		}
	}
	return cancel, keep
}

// closingCancels is what closing the writer window self would cancel now.
func closingCancels(d *store.Doc, self store.Owner) []string {
	cancel, _ := RunsLeftAtClose(d, self.Instance, self.PID)
	return cancel
}

// goTerm runs fn in a goroutine of the writer terms, which Close waits for.
func (w *Core) goTerm(fn func()) {
	w.termWG.Add(1)
	go func() { defer w.termWG.Done(); fn() }()
}

func (w *Core) epoch() uint64 {
	d, _ := w.st.View()
	return d.Epoch
}

// endTerm ends writer term t after fencing, a lost or replaced lock or an unreadable
// file: nothing more is written by this window; its running steps are killed (the next
// writer reaps their runs), and the window goes back to waiting for the lock. It does
// nothing if t is not the current term (that term already ended; never end a later one).
func (w *Core) endTerm(t *Term, reason error) { w.leave(t, exitLost(reason)) }

// currentTerm returns the writer term, or nil while this window does not write.
func (w *Core) currentTerm() *Term {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.writingLocked()
}

// writingLocked is the term if it writes (its takeover finished), else nil. Under w.mu.
func (w *Core) writingLocked() *Term {
	if w.term != nil && w.term.phase == phaseWriting && w.life != RoleClosed {
		return w.term
	}
	return nil
}

// retireIdentity gives a window that stopped being the writer a new identity and releases
// the old instance lock. The runs the old identity owned can no longer be recorded by
// this window (its engine stopped and killed their processes), so the old lock being free
// is true evidence for the next writer's reaper: without it those runs would hold their
// lanes until this window exits.
func (w *Core) retireIdentity() {
	self, err := newIdentity()
	if err == nil {
		var inst *flock.Flock
		if inst, err = lockInstance(w.instDir, self); err == nil {
			w.mu.Lock()
			if w.life == RoleClosed {
				// Close came first (a command leaves as soon as its term ends): the old
				// identity goes now all the same. Close lets it go only once the term's
				// goroutines are done, which may be after this hand-over frees state.lock,
				// and the window handed over to would then find the runs' owner alive and
				// leave them unadopted. Closing it twice is harmless.
				old := w.inst
				w.mu.Unlock()
				_ = os.Remove(filepath.Join(w.instDir, self.Instance+".lock"))
				_ = inst.Close()
				_ = old.Close()
				return
			}
			old := w.inst
			w.self, w.inst = self, inst
			w.mu.Unlock()
			_ = old.Close()
			return
		}
	}
	w.opts.Logf("cannot retire this window's identity (its old runs wait for it to exit): %v", err)
}
