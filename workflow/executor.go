package workflow

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"baton/store"
	"baton/workflow/proc"
)

// Updater applies fn to the newest document and saves it (store.Update behind the
// writer's checks).
type Updater func(fn func(*store.Doc) error) (*store.Doc, error)

// Engine starts queued runs as their lanes allow and executes their steps as child
// processes, each in its own process group. It belongs to one writer term: its context is
// the writer role, and when that ends no new run starts.
type Engine struct {
	ctx    context.Context
	update Updater
	owner  store.Owner
	home   string
	runs   RunFiles // the runs' journals and supervisor files (FolderRuns(home))
	now    func() time.Time

	// OnFinish, if set, runs inside the save that records a run's end (schedules use it to
	// release their lock and advance a watermark). Set it before the first Kick.
	OnFinish func(d *store.Doc, r *store.Run, out RunOutput)
	// EnvFor, if set, chooses extra environment for a run as it is claimed (schedules pass
	// the watermark). Set it before the first Kick.
	EnvFor func(d *store.Doc, r *store.Run) map[string]string
	// Shared, if set (a shared home: etcd), says how a claimed run's supervisor reaches
	// the shared home (its Spec.Shared; see shared.go), and Machine names this machine in
	// the runs it claims. Set them before the first Kick.
	Shared  func(r *store.Run) *SharedSpec
	Machine string
	// SharedWatch, if set, follows a run of another machine through the shared home: it
	// calls fn with the run's journal (nil: none yet) and whether its supervisor's lease
	// lives, now and after every change, until fn returns false or ctx ends. It blocks.
	SharedWatch func(ctx context.Context, key string, fn func(j *Journal, alive bool) bool)
	// SharedCancel, if set, asks the supervisor of a run of another machine to cancel it
	// through the shared home.
	SharedCancel func(key, reason string) error

	kickMu   sync.Mutex // serialises claiming runs against Stop
	stopping bool       // guarded by kickMu

	mu    sync.Mutex           // guards procs
	procs map[string]*follower // live runs of this engine by id
	wg    sync.WaitGroup       // one per live run

	spares *sparePool // the supervisor the next run is handed (spare.go)
}

// RunOutput is what a finished run leaves for OnFinish.
type RunOutput struct {
	Status string
	Env    map[string]string // extra environment the run was started with
	Dir    string            // the run's private folder (runs/<id>)
}

type runProc struct {
	mu       sync.Mutex
	pgid     int
	reason   string // why it was cancelled; "" while not cancelled
	timedOut bool
}

// cancel asks the run to stop: its current group is killed and no further step starts.
func (p *runProc) cancel(reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reason == "" {
		p.reason = reason
	}
	if p.pgid > 0 {
		_ = syscall.Kill(-p.pgid, syscall.SIGKILL)
	}
}

func (p *runProc) started(pgid int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pgid = pgid
	if p.reason != "" {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

func (p *runProc) cancelled() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reason
}

// NewEngine returns an engine for one writer term. ctx is the writer role; owner is this
// window; home is the home folder (logs go to home/runs). From its first Kick until Stop,
// Detach or the end of ctx, the engine keeps a spare supervisor started (see spare.go).
func NewEngine(ctx context.Context, update Updater, owner store.Owner, home string, now func() time.Time) *Engine {
	if now == nil {
		now = time.Now
	}
	e := &Engine{ctx: ctx, update: update, owner: owner, home: home, runs: FolderRuns(home), now: now, procs: map[string]*follower{},
		spares: &sparePool{notBefore: time.Now().Add(spareDelay)}}
	context.AfterFunc(ctx, e.spares.close) // a term that ends without Stop leaves no spare
	return e
}

// Kick starts every queued run that its lane allows. It blocks for one save, returns the
// ids it started, and does nothing after Stop or once the writer role ended.
func (e *Engine) Kick() ([]string, error) {
	_, ids, err := e.kick(e.update, nil)
	return ids, err
}

// KickWith applies change and, in the same save, claims what Kick would claim, then
// starts those runs: a change that queues a run (start_run) and the run's start cost one
// save, not two. update is the caller's road to a write (it may refuse: a read-only
// window); if it or change fails, nothing is saved or started. After Stop or once the
// writer role ended, change alone is applied. It returns the document saved and the ids
// started.
func (e *Engine) KickWith(update Updater, change func(*store.Doc) error) (*store.Doc, []string, error) {
	return e.kick(update, change)
}

// claimed is a run claimed for this engine, with what its start needs.
type claimed struct {
	run store.Run
	wf  store.Workflow
	env map[string]string
}

func (e *Engine) kick(update Updater, change func(*store.Doc) error) (*store.Doc, []string, error) {
	e.kickMu.Lock()
	defer e.kickMu.Unlock()
	claiming := !e.stopping && e.ctx.Err() == nil
	if !claiming && change == nil {
		return nil, nil, nil
	}
	if claiming {
		e.spares.refill()
	}
	var starts []claimed
	d, err := update(func(d *store.Doc) error {
		starts = starts[:0]
		if change != nil {
			if err := change(d); err != nil {
				return err
			}
		}
		if claiming {
			starts = e.claim(d, starts)
		}
		if change == nil && len(starts) == 0 {
			return store.ErrNoChange
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	ids := make([]string, 0, len(starts))
	for _, s := range starts {
		f := e.register(s.run.ID, s.run.Attempt, s.wf.OnOwnerLost == "adopt", nil)
		go e.execute(f, s.run, s.wf, s.env)
		ids = append(ids, s.run.ID)
	}
	return d, ids, nil
}

// claim claims in d the queued runs the lanes allow and appends them to starts.
func (e *Engine) claim(d *store.Doc, starts []claimed) []claimed {
	for _, r := range Claim(d, e.owner, e.now()) {
		rr := d.Run(r.ID)
		rr.Log = logPath(e.home, r.ID)
		rr.Machine = e.Machine
		var env map[string]string
		if e.EnvFor != nil {
			env = e.EnvFor(d, rr)
		}
		starts = append(starts, claimed{run: rr.Clone(), wf: d.Workflow(r.Workflow).Clone(), env: env})
	}
	return starts
}

// Cancel asks the supervisor of a run this engine follows to stop it; the run is
// recorded cancelled with reason once its journal says so. It reports whether the run was
// found. It does not block.
func (e *Engine) Cancel(id, reason string) bool {
	e.mu.Lock()
	f := e.procs[id]
	e.mu.Unlock()
	if f == nil {
		return false
	}
	f.requestCancel(e.home, id, reason)
	return true
}

// Owns reports whether this engine is executing run id.
func (e *Engine) Owns(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.procs[id] != nil
}

// Live returns the ids of the runs this engine is executing.
func (e *Engine) Live() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	ids := make([]string, 0, len(e.procs))
	for id := range e.procs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Detach stops following every live run without cancelling any (a hand-over: the window
// that asked adopts them all) and starts nothing more. It blocks until the followers
// returned. The spare supervisor is stopped.
func (e *Engine) Detach() {
	e.kickMu.Lock()
	e.stopping = true
	e.kickMu.Unlock()
	e.spares.closeSoon() // killed in the background: the hand-over does not wait for it
	e.mu.Lock()
	for _, f := range e.procs {
		f.stopFollowing()
	}
	e.mu.Unlock()
	e.wg.Wait()
}

// Stop cancels every live run with reason, except the runs whose workflow says
// on_owner_lost "adopt": those go on under their supervisors, and the next writer adopts
// them. It waits until each cancelled run is recorded (or this writer term ended) and
// starts nothing more; the spare supervisor is stopped. It blocks until then. Call it
// while still the writer.
func (e *Engine) Stop(reason string) {
	e.kickMu.Lock()
	e.stopping = true
	e.kickMu.Unlock()
	e.spares.close()
	e.mu.Lock()
	remote := map[string]*follower{}
	for id, f := range e.procs {
		switch {
		case f.adopt:
			f.stopFollowing()
		case f.remoteCancel != nil:
			remote[id] = f
		default:
			f.requestCancel(e.home, id, reason)
		}
	}
	e.mu.Unlock()
	// A run of another machine is asked to cancel through the shared home and not waited
	// for (that machine may be out of reach): its end is recorded by the next writer.
	for id, f := range remote {
		f.requestCancel(e.home, id, reason)
		f.stopFollowing()
	}
	e.wg.Wait()
}

// stepEnv is a step's environment: the supervisor's, less the variables named in hidden
// (the shared home's credentials), then the step's and the run's variables.
func stepEnv(step store.Step, extra map[string]string, home, id string, hidden map[string]string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !hasKey(hidden, k) {
			env = append(env, kv)
		}
	}
	for k, v := range step.Env {
		env = append(env, k+"="+v)
	}
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return append(env, EnvRunID+"="+id, EnvHome+"="+home)
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}

func unwrapExec(err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", strings.TrimSpace(pe.Op), pe.Err)
	}
	return err
}

// waitGroupGone waits until no live process is left in group pgid (bounded), so that a
// run is recorded as ended only once its processes are gone.
func waitGroupGone(pgid int, max time.Duration) {
	deadline := time.Now().Add(max)
	for syscall.Kill(-pgid, 0) == nil && proc.GroupAlive(pgid) && time.Now().Before(deadline) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		time.Sleep(time.Millisecond)
	}
}

// SecretMask stands for the value of a secret-named variable wherever Baton shows it.
const SecretMask = "••••"

// IsSecretName reports whether an environment variable's name looks like a secret: it
// contains TOKEN, SECRET, PASSWORD or KEY, in any case. Such values never appear in run
// logs or in what the control channel and the UI show.
func IsSecretName(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "SECRET", "PASSWORD", "KEY"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

// minSecret is the shortest secret value redacted from step output; shorter ones would
// mangle ordinary output and hide little.
const minSecret = 3

// secretValues returns the values of the secret-named variables of a step, longest first.
func secretValues(maps ...map[string]string) [][]byte {
	var out [][]byte
	for _, m := range maps {
		for k, v := range m {
			if IsSecretName(k) && len(v) >= minSecret {
				out = append(out, []byte(v))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// redactor writes a step's output to the run log with every secret value replaced by
// SecretMask, including a secret split across two writes: it holds back the last
// len(longest)-1 bytes until more output or Flush. Used from one goroutine (stdout and
// stderr share one pipe).
type redactor struct {
	w       io.Writer
	secrets [][]byte // longest first
	pending []byte
}

func (r *redactor) Write(p []byte) (int, error) {
	r.pending = append(r.pending, p...)
	for _, s := range r.secrets {
		r.pending = bytes.ReplaceAll(r.pending, s, []byte(SecretMask))
	}
	keep := len(r.secrets[0]) - 1
	if len(r.pending) > keep {
		n := len(r.pending) - keep
		if _, err := r.w.Write(r.pending[:n]); err != nil {
			return 0, err
		}
		r.pending = append(r.pending[:0], r.pending[n:]...)
	}
	return len(p), nil
}

// Flush writes what is held back.
func (r *redactor) Flush() {
	if len(r.pending) > 0 {
		_, _ = r.w.Write(r.pending)
		r.pending = r.pending[:0]
	}
}
