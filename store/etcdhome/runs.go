package etcdhome

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// A run's keys, under <prefix>/runs/<id>/ (id path-escaped):
//
//	alive            the supervisor's Identity, attached to the supervisor's own lease:
//	                 the run's liveness evidence. Gone = the supervisor is dead.
//	journal/<seq>    one journal record each (seq: 20 digits, from 1), NOT attached to
//	                 the lease: the journal outlives the supervisor, so the reaper reads
//	                 how the run ended.
//	logtail          the last LogTailSize bytes of the run's log, not attached either.
//	cancel           a cancel request (its reason), put by a writer of any machine;
//	                 the supervisor watches it (Cancels).
//	reaped           the tombstone a writer puts before it treats a run with no alive
//	                 key as dead (MarkReaped); a supervisor that comes later is refused.
//
// The start race: a run is saved running before its supervisor has put its alive key.
// A writer that finds no alive key puts the tombstone (guarded by its epoch and by the
// alive key's absence) before it reaps; Supervise puts the alive key only if neither the
// alive key nor the tombstone is there. Either the supervisor wins (alive: not reapable)
// or the reaper does (the supervisor is refused, ErrReaped): never both.
//
// Every write of a supervisor is one transaction guarded by its alive key's
// CreateRevision: once its lease is gone (and the reaper may have read the journal) it
// can add nothing.

// Supervisor is a run supervisor's hold on its run: its own lease, renewed by its own
// loop, and the alive key on it. Safe for concurrent use.
type Supervisor struct {
	h        *Home
	run      string
	lease    clientv3.LeaseID
	aliveRev int64
	ttl      time.Duration
	margin   time.Duration

	lost    chan struct{} // closed when the lease may be gone (see Lost)
	cancels chan string   // a cancel request's reason (see Cancels)
	cancel  context.CancelFunc
	done    chan struct{} // closed when the renewal loop returned

	mu  sync.Mutex // guards seq; held across an Append's round trip
	seq uint64

	wmu  sync.Mutex // guards why; never held across a call to etcd (lose must not wait on one)
	why  error
	once sync.Once
}

// Supervise makes the caller run id's supervisor: it grants a lease of Options.Lease,
// puts the alive key (with id as its value) on it if the run has none, and starts
// renewing the lease. ErrSupervised if another supervisor's alive key is there, ErrReaped
// if a writer reaped the run already (its tombstone). The caller must Close it.
func (h *Home) Supervise(ctx context.Context, run string, id Identity) (*Supervisor, error) {
	sent, sentBoot := time.Now(), sinceBoot() // the lease cannot expire before sent+TTL by etcd's clock
	grant, err := h.cli.Grant(ctx, int64(h.ttl()))
	if err != nil {
		return nil, fmt.Errorf("etcd home %s: run %s: grant the supervisor's lease: %w", h.prefix, run, err)
	}
	id.Lease = grant.ID
	val, _ := json.Marshal(id)
	resp, err := h.cli.Txn(ctx).If(
		clientv3.Compare(clientv3.CreateRevision(h.aliveKey(run)), "=", 0),
		clientv3.Compare(clientv3.CreateRevision(h.reapedKey(run)), "=", 0),
	).Then(clientv3.OpPut(h.aliveKey(run), string(val), clientv3.WithLease(grant.ID))).
		Else(clientv3.OpGet(h.reapedKey(run), clientv3.WithCountOnly())).Commit()
	if err == nil && !resp.Succeeded {
		err = ErrSupervised
		if rr := resp.Responses[0].GetResponseRange(); rr != nil && rr.Count > 0 {
			err = ErrReaped
		}
	}
	if err != nil {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Duration(grant.TTL)*time.Second)
		h.cli.Revoke(rctx, grant.ID) // bounded: by then the lease has expired anyway
		cancel()
		return nil, fmt.Errorf("etcd home %s: run %s: %w", h.prefix, run, err)
	}
	lctx, cancel := context.WithCancel(context.Background())
	ttl := time.Duration(grant.TTL) * time.Second
	s := &Supervisor{h: h, run: run, lease: grant.ID, aliveRev: resp.Header.Revision, ttl: ttl,
		margin: RenewMargin(ttl), lost: make(chan struct{}), cancels: make(chan string, 1), cancel: cancel, done: make(chan struct{})}
	go s.renew(lctx, sent, sentBoot)
	go s.watchCancel(lctx)
	return s, nil
}

// Cancels delivers the reason of a cancel request put for the run (RequestCancel), once.
func (s *Supervisor) Cancels() <-chan string { return s.cancels }

// watchCancel waits for the run's cancel key until ctx ends; a broken watch (etcd
// unreachable) is watched again from where it was. When that revision was compacted the
// key is read instead (delivered if there) and watched from after that read.
func (s *Supervisor) watchCancel(ctx context.Context) {
	rev := s.aliveRev
	for ctx.Err() == nil {
		wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
		for resp := range s.h.cli.Watch(wctx, s.h.cancelKey(s.run), clientv3.WithRev(rev)) {
			if resp.CompactRevision > 0 {
				got, err := s.h.cli.Get(wctx, s.h.cancelKey(s.run))
				if err != nil {
					break // read again after the pause
				}
				if len(got.Kvs) > 0 {
					s.cancels <- string(got.Kvs[0].Value)
					cancel()
					return
				}
				rev = got.Header.Revision + 1
				break
			}
			if resp.Err() != nil {
				break
			}
			for _, ev := range resp.Events {
				if ev.Type == clientv3.EventTypePut {
					s.cancels <- string(ev.Kv.Value)
					cancel()
					return
				}
			}
			rev = resp.Header.Revision + 1
		}
		cancel()
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// RequestCancel asks the supervisor of run id to cancel it with reason: it puts the
// run's cancel key if the run's alive key is there and the term still holds the writer
// role (its epoch): false if no supervisor lives to ask, ErrFenced if the term ended (a
// writer whose term ended cancels nothing). It blocks for one round trip; the supervisor
// ends the run by itself.
func (t *Term) RequestCancel(ctx context.Context, run, reason string) (bool, error) {
	h := t.h
	resp, err := h.cli.Txn(ctx).If(
		clientv3.Compare(clientv3.CreateRevision(t.key), "=", t.epoch),
		clientv3.Compare(clientv3.CreateRevision(h.aliveKey(run)), ">", 0),
	).Then(clientv3.OpPut(h.cancelKey(run), reason)).Else(clientv3.OpGet(t.key)).Commit()
	if err != nil {
		return false, fmt.Errorf("etcd home %s: cancel run %s: %w", h.prefix, run, err)
	}
	if err := t.guardResult(resp, "cancel run "+run); errors.Is(err, ErrFenced) {
		return false, err
	}
	return resp.Succeeded, nil
}

// RenewMargin is how long before its lease can expire a supervisor that could not renew
// it gives up (Lost): a quarter of the lease, which covers clock rate drift between the
// machine and the etcd leader (well under 1 %) and the time to kill the run's steps.
func RenewMargin(ttl time.Duration) time.Duration { return ttl / 4 }

// renew keeps the lease alive. granted is when the grant was sent: the lease cannot
// expire before granted+ttl by etcd's clock, so the supervisor's deadline is that minus
// the margin by its own. Each renewal that succeeds moves the deadline to the time its
// request was sent plus the TTL etcd answered, minus the margin. A renewal never waits
// past the deadline: Lost closes at the deadline even while etcd does not answer.
func (s *Supervisor) renew(ctx context.Context, granted time.Time, grantedBoot time.Duration) {
	defer close(s.done)
	deadline := granted.Add(s.ttl - s.margin)
	// The same deadline on the clock that goes on while the machine sleeps: Go's timers
	// and monotonic time stop during a suspend, etcd's clock does not, so a laptop that
	// slept past its lease must not count the sleep as time it still has.
	bootDeadline := grantedBoot + s.ttl - s.margin
	tick := time.NewTicker(s.ttl / 6)
	defer tick.Stop()
	for {
		wait := time.NewTimer(time.Until(deadline))
		select {
		case <-ctx.Done():
			wait.Stop()
			return
		case <-wait.C:
			s.loseLate()
			return
		case <-tick.C:
			wait.Stop()
		}
		if sinceBoot() >= bootDeadline {
			s.lose(fmt.Errorf("run %s: the machine slept past the supervisor's lease (%s)", s.run, s.ttl))
			return
		}
		sent, sentBoot := time.Now(), sinceBoot()
		rctx, cancel := context.WithDeadline(ctx, earliest(sent.Add(s.ttl/3), deadline))
		resp, err := s.h.cli.KeepAliveOnce(rctx, s.lease)
		cancel()
		switch {
		case err == nil && resp.TTL > 0:
			deadline = sent.Add(time.Duration(resp.TTL)*time.Second - s.margin)
			bootDeadline = sentBoot + time.Duration(resp.TTL)*time.Second - s.margin
		case err == nil || isLeaseNotFound(err):
			s.lose(fmt.Errorf("run %s: the supervisor's lease is gone", s.run))
			return
		}
		// Other errors (etcd unreachable): try again until the deadline.
		if ctx.Err() == nil && (!time.Now().Before(deadline) || sinceBoot() >= bootDeadline) {
			s.loseLate()
			return
		}
	}
}

func (s *Supervisor) loseLate() {
	s.lose(fmt.Errorf("run %s: the supervisor's lease could not be renewed before %s of its %s were left", s.run, s.margin, s.ttl))
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func (s *Supervisor) lose(why error) {
	s.once.Do(func() {
		s.wmu.Lock()
		s.why = why
		s.wmu.Unlock()
		close(s.lost)
	})
}

// Lost is closed when the supervisor must stop: its lease is gone, or it could not renew
// it and the lease may expire within RenewMargin. The supervisor then kills its steps at
// once, records why locally (Why) and ends: before the lease can expire by etcd's clock,
// so its run is never running when the reaper re-queues it.
func (s *Supervisor) Lost() <-chan struct{} { return s.lost }

// Why says why Lost closed, or nil.
func (s *Supervisor) Why() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.why
}

// Lease returns the supervisor's lease.
func (s *Supervisor) Lease() clientv3.LeaseID { return s.lease }

// Append adds one journal record (the workflow journal's JSON object) under the next
// sequence number, if the supervisor's alive key is still the one it put: a supervisor
// whose lease is gone gets ErrFenced and the journal is unchanged. It blocks for one
// round trip; a nil error means the record is durable in etcd.
func (s *Supervisor) Append(ctx context.Context, rec []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := s.h.journalPfx(s.run) + fmt.Sprintf("%020d", s.seq+1)
	if err := s.guardedPut(ctx, key, rec); err != nil {
		return fmt.Errorf("journal of run %s: %w", s.run, err)
	}
	s.seq++
	return nil
}

// guardedPut puts key (not on the lease) if the alive key is still the supervisor's.
func (s *Supervisor) guardedPut(ctx context.Context, key string, val []byte) error {
	resp, err := s.h.cli.Txn(ctx).If(clientv3.Compare(clientv3.CreateRevision(s.h.aliveKey(s.run)), "=", s.aliveRev)).
		Then(clientv3.OpPut(key, string(val))).Commit()
	if err != nil {
		return fmt.Errorf("etcd home %s: put %s: %w", s.h.prefix, key, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("etcd home %s: put %s: the supervisor's alive key is gone: %w", s.h.prefix, key, ErrFenced)
	}
	return nil
}

// Close stops renewing and revokes the lease, so the alive key goes: the supervisor's
// end. The journal and log tail stay. It waits for the revoke at most one lease (after
// that the lease has expired anyway). Idempotent.
func (s *Supervisor) Close(ctx context.Context) error {
	s.cancel()
	<-s.done // Lost stays open: a supervisor that ends its run lost nothing
	ctx, cancel := context.WithTimeout(ctx, s.ttl)
	defer cancel()
	if err := s.h.RevokeDead(ctx, s.lease); err != nil {
		return fmt.Errorf("run %s: end the supervisor: %w", s.run, err)
	}
	return nil
}

// RunState is what the store holds of a run's supervisor, read at one revision.
type RunState struct {
	Alive   *Identity // the supervisor's alive key's value; nil when it is gone (dead)
	Journal [][]byte  // the journal records in order
	LogTail []byte
	Reaped  bool // a writer put the run's tombstone (MarkReaped): no supervisor can start
	Rev     int64
}

// Reapable reports whether the run's supervisor is proven dead: its alive key, on its
// lease, is gone. Never from age.
func (r RunState) Reapable() bool { return r.Alive == nil }

// RunState reads run id's supervisor keys at one revision. A read error is returned, never
// taken for "dead".
func (h *Home) RunState(ctx context.Context, run string) (RunState, error) {
	resp, err := h.cli.Get(ctx, h.runPfx(run), clientv3.WithPrefix())
	if err != nil {
		return RunState{}, fmt.Errorf("etcd home %s: read run %s: %w", h.prefix, run, err)
	}
	st := RunState{Rev: resp.Header.Revision}
	jp := h.journalPfx(run)
	for _, kv := range resp.Kvs { // sorted by key: journal records in sequence order
		switch k := string(kv.Key); {
		case k == h.aliveKey(run):
			var id Identity
			if err := json.Unmarshal(kv.Value, &id); err != nil {
				id = Identity{Machine: "?"} // alive all the same: the key is there
			}
			st.Alive = &id
		case k == h.logTailKey(run):
			st.LogTail = kv.Value
		case k == h.reapedKey(run):
			st.Reaped = true
		case len(k) > len(jp) && k[:len(jp)] == jp:
			if _, err := strconv.ParseUint(k[len(jp):], 10, 64); err == nil {
				st.Journal = append(st.Journal, kv.Value)
			}
		}
	}
	return st, nil
}

// MarkReaped puts run id's tombstone before the writer treats the run as dead, in a
// transaction guarded by the term's epoch and by the alive key's absence: ErrSupervised
// if the run's supervisor put its alive key first (it lives: not reapable), ErrFenced if
// the term ended. Once it returns nil no supervisor can start the run (Supervise refuses
// with ErrReaped). Idempotent.
func (t *Term) MarkReaped(ctx context.Context, run string) error {
	h := t.h
	resp, err := h.cli.Txn(ctx).If(
		clientv3.Compare(clientv3.CreateRevision(t.key), "=", t.epoch),
		clientv3.Compare(clientv3.CreateRevision(h.aliveKey(run)), "=", 0),
	).Then(clientv3.OpPut(h.reapedKey(run), fmt.Sprint(t.epoch))).Else(clientv3.OpGet(t.key)).Commit()
	if err != nil {
		return fmt.Errorf("etcd home %s: mark run %s reaped: %w", h.prefix, run, err)
	}
	return t.guardResult(resp, "mark run "+run+" reaped")
}

// guardResult turns a failed transaction guarded by the epoch and the alive key's
// absence (its Else: a Get of the term's key) into ErrFenced or ErrSupervised.
func (t *Term) guardResult(resp *clientv3.TxnResponse, what string) error {
	if resp.Succeeded {
		return nil
	}
	if rr := resp.Responses[0].GetResponseRange(); rr == nil || len(rr.Kvs) == 0 || rr.Kvs[0].CreateRevision != t.epoch {
		return fmt.Errorf("etcd home %s: %s: %w", t.h.prefix, what, ErrFenced)
	}
	return fmt.Errorf("etcd home %s: %s: %w", t.h.prefix, what, ErrSupervised)
}

// ForgetRun deletes run id's journal and log tail once its outcome is saved, in a
// transaction guarded by the term's epoch and by the alive key's absence: a run whose
// supervisor lives is never forgotten. ErrSupervised if it lives, ErrFenced if the term
// ended. The tombstone stays: a supervisor that comes after the run was settled must
// still be refused.
func (t *Term) ForgetRun(ctx context.Context, run string) error {
	h := t.h
	resp, err := h.cli.Txn(ctx).If(
		clientv3.Compare(clientv3.CreateRevision(t.key), "=", t.epoch),
		clientv3.Compare(clientv3.CreateRevision(h.aliveKey(run)), "=", 0),
	).Then(clientv3.OpDelete(h.journalPfx(run), clientv3.WithPrefix()), clientv3.OpDelete(h.logTailKey(run)), clientv3.OpDelete(h.cancelKey(run))).
		Else(clientv3.OpGet(t.key)).Commit()
	if err != nil {
		return fmt.Errorf("etcd home %s: forget run %s: %w", h.prefix, run, err)
	}
	return t.guardResult(resp, "forget run "+run)
}

// WatchRun calls fn with run id's state (RunState) now and after every change of its
// keys, until fn returns false or ctx ends (ctx.Err()). A broken watch or a compacted
// revision reads the state again (after a pause, while etcd cannot be reached): fn may
// see the same state twice, never a change left out. It blocks.
func (h *Home) WatchRun(ctx context.Context, run string, fn func(RunState) bool) error {
	for {
		st, err := h.RunState(ctx, run)
		if err == nil {
			if !fn(st) {
				return nil
			}
			err = h.awaitRunChange(ctx, run, st.Rev)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second): // etcd unreachable: read again
			}
		}
	}
}

// awaitRunChange returns once a key of run id changed after rev (nil), or the watch broke.
func (h *Home) awaitRunChange(ctx context.Context, run string, rev int64) error {
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	defer cancel()
	for resp := range h.cli.Watch(wctx, h.runPfx(run), clientv3.WithPrefix(), clientv3.WithRev(rev+1)) {
		if err := resp.Err(); err != nil {
			return err
		}
		if len(resp.Events) > 0 {
			return nil
		}
	}
	return fmt.Errorf("etcd home %s: the watch of run %s ended", h.prefix, run)
}

// ForgetRunAttempts forgets (ForgetRun) every attempt of run id whose keys are named
// <id>@<attempt>, as Baton names them; an attempt whose supervisor lives is skipped
// (ErrSupervised is not an error here). It returns the first other error.
func (t *Term) ForgetRunAttempts(ctx context.Context, id string) error {
	pfx := t.h.runPfx(id + "@")
	pfx = pfx[:len(pfx)-1] // runs/<id>@ : every attempt
	resp, err := t.h.cli.Get(ctx, pfx, clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		return fmt.Errorf("etcd home %s: read the keys of run %s: %w", t.h.prefix, id, err)
	}
	seen := map[string]bool{}
	for _, kv := range resp.Kvs {
		rest := string(kv.Key)[len(t.h.prefix+"/runs/"):]
		esc, _, _ := strings.Cut(rest, "/")
		key, err := url.PathUnescape(esc)
		if err != nil || seen[key] {
			continue
		}
		seen[key] = true
		if err := t.ForgetRun(ctx, key); err != nil && !errors.Is(err, ErrSupervised) {
			return err
		}
	}
	return nil
}
