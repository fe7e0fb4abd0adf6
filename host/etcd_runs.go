package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
	"baton/store/etcdhome"
	"baton/workflow"
	"baton/workflow/proc"
)

// Runs on an etcd home. A run executes on the writer's machine under its supervisor, with
// its local lock, journal and log in the local folder as on a folder home; besides, the
// supervisor holds its own lease in etcd (OpenSharedRun) and mirrors its journal there
// (workflow/shared.go). Every machine judges a run by that: its supervisor lives while
// its alive key is there (a read error is "alive": never dead on doubt), its journal is
// the one in etcd, and a run is reaped only once its supervisor's lease is gone, after
// the reaper's tombstone (Term.MarkReaped) made sure no late supervisor can start it.
// A run of another machine is never killed from here (it cannot be): it is adopted and
// followed through etcd (sharedWatch) until its end, or until its lease is gone (its
// supervisor killed its steps before that) and its policy fails or re-queues it.

// OpenSharedRun is workflow.OpenShared on an etcd home: the run supervisor dials the
// home as a window does (DialEtcdHome; the user and password only from its inherited
// environment, taken out of it before anything else so no step inherits them), grants
// its own lease and puts its alive key (etcdhome.Home.Supervise). main passes it to
// workflow.SuperviseMainWith. It blocks for a few round trips.
func OpenSharedRun(spec workflow.SharedSpec) (workflow.SharedRun, error) {
	creds := map[string]string{}
	for _, k := range []string{etcdhome.EnvUser, etcdhome.EnvPassword} {
		if v, ok := os.LookupEnv(k); ok {
			creds[k] = v
			_ = os.Unsetenv(k) // read from creds from here on; no step of the run inherits it
		}
	}
	h, err := DialEtcdHome(context.Background(), spec.URL, etcdhome.TLSFiles{CACert: spec.CACert, Cert: spec.Cert, Key: spec.Key},
		spec.Lease, func(k string) string { return creds[k] })
	if err != nil {
		return nil, err
	}
	cli := h.Client()
	ctx, cancel := context.WithTimeout(context.Background(), opTimeoutEtcd)
	defer cancel()
	start, _ := proc.Start(os.Getpid())
	sup, err := h.Supervise(ctx, spec.RunKey, etcdhome.Identity{Machine: spec.Machine, Host: spec.Host,
		Owner: store.Owner{PID: os.Getpid(), Start: start, Boot: proc.BootID()}})
	if err != nil {
		_ = cli.Close()
		return nil, err
	}
	return &sharedRun{cli: cli, sup: sup, creds: creds}, nil
}

// sharedRun is workflow.SharedRun over an etcdhome.Supervisor and its own client.
type sharedRun struct {
	cli   *clientv3.Client
	sup   *etcdhome.Supervisor
	creds map[string]string // BATON_ETCD_USER and _PASSWORD, taken out of the environment
}

func (s *sharedRun) Credentials() map[string]string { return s.creds }

func (s *sharedRun) Append(ctx context.Context, rec []byte) error { return s.sup.Append(ctx, rec) }
func (s *sharedRun) LogTail() io.WriteCloser                      { return s.sup.LogTail() }
func (s *sharedRun) Lost() <-chan struct{}                        { return s.sup.Lost() }
func (s *sharedRun) Why() error                                   { return s.sup.Why() }
func (s *sharedRun) Cancels() <-chan string                       { return s.sup.Cancels() }
func (s *sharedRun) Close() error {
	err := s.sup.Close(context.Background())
	_ = s.cli.Close()
	return err
}

// sharedSpec is how run r's supervisor reaches this home (workflow.Engine.Shared).
func (e *etcdWire) sharedSpec(r *store.Run) *workflow.SharedSpec {
	return &workflow.SharedSpec{URL: e.url, CACert: e.tls.CACert, Cert: e.tls.Cert, Key: e.tls.Key, Lease: e.lease,
		Machine: e.machine, Host: e.hostname, RunKey: workflow.SharedRunKey(r.ID, r.Attempt)}
}

// wireEngine makes term's engine run and follow runs through the etcd home.
// tctx ends with the term.
func (e *etcdWire) wireEngine(eng *workflow.Engine, tctx context.Context, term *etcdhome.Term) {
	eng.Shared, eng.Machine, eng.SharedWatch, eng.SharedCancel = e.sharedSpec, e.machine, e.sharedWatch(term), e.sharedCancel(tctx, term)
}

// sharedCancel is workflow.Engine.SharedCancel for term (its context tctx): the run's
// cancel key in etcd, put only while term is the writer's (its epoch). Once the term is
// over it asks nothing and waits on nothing: the runs are the next writer's.
func (e *etcdWire) sharedCancel(tctx context.Context, term *etcdhome.Term) func(key, reason string) error {
	return func(key, reason string) error {
		if term == nil || tctx.Err() != nil {
			return fmt.Errorf("run %s: not cancelled: this window's writer term is over", key)
		}
		ctx, cancel := context.WithTimeout(tctx, opTimeoutEtcd)
		defer cancel()
		ok, err := term.RequestCancel(ctx, key, reason)
		if err == nil && !ok {
			err = fmt.Errorf("run %s: %w", key, workflow.ErrSupervisorGone)
		}
		return err
	}
}

// sharedWatch is workflow.Engine.SharedWatch for term: run key's state in etcd, folded.
// A run with neither an alive key nor an end is shown dead only once term's tombstone is
// in (as supervision does): a supervisor that comes late is refused, and one that came
// first is followed. Without a term (nil) or the tombstone it is shown alive.
func (e *etcdWire) sharedWatch(term *etcdhome.Term) func(context.Context, string, func(*workflow.Journal, bool) bool) {
	return func(ctx context.Context, key string, fn func(j *workflow.Journal, alive bool) bool) {
		_ = e.home.WatchRun(ctx, key, func(st etcdhome.RunState) bool {
			var j *workflow.Journal
			var bad error
			if len(st.Journal) > 0 {
				if got, err := workflow.FoldJournal(e.url+" run "+key, st.Journal); err == nil {
					j = &got
				} else {
					e.logf("%v", err)
					bad = err
				}
			}
			if st.Alive == nil && !st.Reaped && (j == nil || !j.Ended) {
				return e.markReaped(ctx, term, key) // its tombstone, or a supervisor, is a change: read again
			}
			if bad != nil && st.Alive == nil { // it may have ended: failed, never re-queued
				j = &workflow.Journal{Ended: true, EndedAt: time.Now().UTC(), Status: store.StatusFailed,
					Error: fmt.Sprintf("its supervisor is gone and its journal in etcd cannot be read (%v): it may have ended, so it is not re-queued", bad)}
			}
			return fn(j, st.Alive != nil)
		})
	}
}

// markReaped puts run key's tombstone with term, trying again while etcd does not answer.
// false once it cannot be put (the term is over, or ctx ended): stop following.
func (e *etcdWire) markReaped(ctx context.Context, term *etcdhome.Term, key string) bool {
	if term == nil {
		return true // never taken for dead: follow on
	}
	for ctx.Err() == nil {
		mctx, cancel := context.WithTimeout(ctx, opTimeoutEtcd)
		err := term.MarkReaped(mctx, key)
		cancel()
		switch {
		case err == nil || errors.Is(err, etcdhome.ErrSupervised):
			return true
		case errors.Is(err, etcdhome.ErrFenced):
			return false
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second): // etcd unreachable: again
		}
	}
	return false
}

// supervision is what etcd knows of run r's supervisor (this attempt's), for term's
// reaper. Alive while its alive key is there (Remote if on another machine); a read
// error is alive. With no alive key the run is dead only once the term's tombstone is
// in (MarkReaped), judged by what etcd holds after it: a supervisor that puts its alive
// key first wins, and one that comes later is refused, so a reaped run never also runs.
// term is the takeover's etcd term (nil: nothing is ever taken for dead).
func (e *etcdWire) supervision(term *etcdhome.Term, r *store.Run) workflow.Supervision {
	key := workflow.SharedRunKey(r.ID, r.Attempt)
	ctx, cancel := context.WithTimeout(context.Background(), opTimeoutEtcd)
	defer cancel()
	waited := false
	for try := 0; ; try++ {
		st, err := e.home.RunState(ctx, key)
		if err != nil {
			return workflow.Supervision{Alive: true, Remote: r.Machine != e.machine,
				Evidence: fmt.Sprintf("etcd cannot be read (%v): never taken for dead", err)}
		}
		s := workflow.Supervision{}
		if len(st.Journal) > 0 {
			if j, err := workflow.FoldJournal(e.url+" run "+key, st.Journal); err == nil {
				s.Journal = &j
			} else {
				s.JournalErr = err.Error() // it may have ended: failed, never re-queued
			}
		}
		if st.Alive != nil {
			s.Alive, s.Remote = true, st.Alive.Machine != e.machine
			s.Evidence = fmt.Sprintf("its supervisor pid %d on machine %s holds its lease in etcd", st.Alive.Owner.PID, st.Alive.Machine)
			return s
		}
		if !st.Reaped && term == nil {
			s.Alive, s.Remote = true, r.Machine != e.machine
			s.Evidence = "no writer term to put the run's tombstone with: never taken for dead"
			return s
		}
		if !st.Reaped && !waited && r.Machine == e.machine {
			// This machine's supervisor may still be starting (its process is there, its
			// alive key not yet): wait for it before the tombstone, then read again.
			waited, try = true, try-1
			workflow.AwaitStartingSupervisor(e.local, r.ID, func() bool {
				now, err := e.home.RunState(ctx, key)
				return err != nil || now.Alive != nil || now.Reaped
			})
			continue
		}
		if !st.Reaped {
			err := term.MarkReaped(ctx, key)
			if err == nil || errors.Is(err, etcdhome.ErrSupervised) {
				// Read again: a supervisor that came first (alive now, or gone already
				// with its journal) is judged by what it left; after the tombstone none
				// can start, so that read is final.
				if try < 5 {
					continue
				}
				err = errors.New("the run's keys keep changing")
			}
			return workflow.Supervision{Alive: true, Remote: r.Machine != e.machine,
				Evidence: fmt.Sprintf("the run's tombstone could not be put (%v): never taken for dead", err)}
		}
		s.Evidence = "its supervisor holds no lease in etcd (gone, or never started: no supervisor may start it now)"
		return s
	}
}

// ownerAlive says whether window o of another machine (no evidence here) lives: while it
// has a key in the writer election (every window campaigns, on its session's lease).
// Once its key is gone its lease is gone: its writer term (if it had one) is over and it
// can write nothing more; a read error is alive.
func (e *etcdWire) ownerAlive(o store.Owner) (bool, string) {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeoutEtcd)
	defer cancel()
	resp, err := e.cli.Get(ctx, e.writerPrefix(), clientv3.WithPrefix())
	if err != nil {
		return true, fmt.Sprintf("etcd cannot be read (%v): window pid %d never taken for dead", err, o.PID)
	}
	for _, kv := range resp.Kvs {
		var id etcdhome.Identity
		if json.Unmarshal(kv.Value, &id) == nil && id.Owner.Instance == o.Instance {
			return true, fmt.Sprintf("window pid %d on machine %s holds its lease in etcd", o.PID, id.Machine)
		}
	}
	return false, fmt.Sprintf("window pid %d (another machine's) has no lease in etcd: it is gone or cut off, and can write nothing more", o.PID)
}

// etcdTerm returns the etcd term of hold, or nil for a hold that is not an etcd
// election's.
func etcdTerm(hold store.LockHold) *etcdhome.Term {
	if h, ok := hold.(*etcdhome.Hold); ok {
		return h.Term()
	}
	return nil
}

// RemoteLogTail is for a run whose log is on another machine (an etcd home; logs stay on
// the machine that ran the run): the last 64 KiB of the log, kept in etcd, and where the
// whole log is. remote is false when the log is here (or the home is a folder): read
// RunLogPath then. It blocks for one etcd read.
func (w *Core) RemoteLogTail(r *store.Run) (tail []byte, where string, remote bool, err error) {
	if w.etcd == nil || r.Machine == "" {
		return nil, "", false, nil
	}
	if _, err := os.Lstat(RunLogPath(r, w.home)); err == nil && r.Machine == w.etcd.machine {
		return nil, "", false, nil
	}
	where = fmt.Sprintf("machine %s, %s", r.Machine, RunLogPath(r, w.home))
	ctx, cancel := context.WithTimeout(context.Background(), opTimeoutEtcd)
	defer cancel()
	st, err := w.etcd.home.RunState(ctx, workflow.SharedRunKey(r.ID, r.Attempt))
	if err != nil {
		return nil, where, true, fmt.Errorf("run %s: its log is on %s and its tail cannot be read from etcd: %w", r.ID, where, err)
	}
	return st.LogTail, where, true, nil
}

// forgetEtcdRun removes what run id's supervisors left in etcd (journals, log tails; not
// the tombstones), once retention dropped the run: term t's epoch guards it. A no-op on a
// folder home. On an error the caller keeps the run's log, and a later pass tries again.
func (w *Core) forgetEtcdRun(t *Term, id string) error {
	term := etcdTerm(t.lock)
	if w.etcd == nil || term == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(t.ctx, opTimeoutEtcd)
	defer cancel()
	return term.ForgetRunAttempts(ctx, id)
}
