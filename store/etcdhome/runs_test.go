package etcdhome

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"baton/store/storetest/etcdtest"
)

func supervise(t *testing.T, h *Home, run string) *Supervisor {
	t.Helper()
	s, err := h.Supervise(testCtx(t), run, ident("laptop", 30))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// TestSupervisorLeaseGoneJournalSurvives: while a supervisor's lease lives its run is not
// reapable; once the lease is gone the alive key is gone (reapable), the journal is still
// there to tell how the run went, Lost is closed, and the dead supervisor can add nothing.
func TestSupervisorLeaseGoneJournalSurvives(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	s := supervise(t, h, "run/1")
	recs := []string{`{"type":"start"}`, `{"type":"step_start","step":0}`}
	for _, r := range recs {
		if err := s.Append(ctx, []byte(r)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := h.RunState(ctx, "run/1")
	if err != nil {
		t.Fatal(err)
	}
	if st.Reapable() || st.Alive.Machine != "laptop" || st.Alive.Lease != s.Lease() || len(st.Journal) != 2 {
		t.Fatalf("live run: %+v", st)
	}
	if err := h.RevokeDead(ctx, s.Lease()); err != nil { // the lease is gone (expiry or proven death)
		t.Fatal(err)
	}
	st, err = h.RunState(ctx, "run/1")
	if err != nil {
		t.Fatal(err)
	}
	if !st.Reapable() {
		t.Fatal("run still alive after its supervisor's lease went")
	}
	if len(st.Journal) != 2 || string(st.Journal[0]) != recs[0] || string(st.Journal[1]) != recs[1] {
		t.Fatalf("journal after the lease went: %q", st.Journal)
	}
	select {
	case <-s.Lost():
	case <-ctx.Done():
		t.Fatal("Lost not closed after the lease was revoked")
	}
	if err := s.Append(ctx, []byte(`{"type":"end"}`)); !errors.Is(err, ErrFenced) {
		t.Fatalf("append after the lease went: %v, want ErrFenced", err)
	}
	if st, _ := h.RunState(ctx, "run/1"); len(st.Journal) != 2 {
		t.Fatalf("a dead supervisor's record was added: %q", st.Journal)
	}
}

// TestSuperviseOnlyOne: a run with a live supervisor cannot get a second one; ForgetRun
// refuses it while it lives and deletes its keys once it is dead.
func TestSuperviseOnlyOne(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	s := supervise(t, h, "r2")
	if _, err := h.Supervise(ctx, "r2", ident("server", 31)); !errors.Is(err, ErrSupervised) {
		t.Fatalf("second supervisor: %v, want ErrSupervised", err)
	}
	s.Append(ctx, []byte(`{"type":"start"}`))
	w := writer(t, h, ident("laptop", 10))
	if err := w.ForgetRun(ctx, "r2"); !errors.Is(err, ErrSupervised) {
		t.Fatalf("ForgetRun of a live run: %v, want ErrSupervised", err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.ForgetRun(ctx, "r2"); err != nil {
		t.Fatal(err)
	}
	if st, _ := h.RunState(ctx, "r2"); len(st.Journal) != 0 {
		t.Fatalf("journal after ForgetRun: %q", st.Journal)
	}
}

// TestSupervisorLostWhenCutOff: a supervisor that cannot reach etcd closes Lost by itself
// (before its lease could expire) instead of running on.
func TestSupervisorLostWhenCutOff(t *testing.T) {
	dir := t.TempDir()
	m, err := startMember(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	h := openHome(t, m.client(t), "cut", Options{Lease: 2 * time.Second})
	s, err := h.Supervise(testCtx(t), "r", ident("laptop", 30))
	if err != nil {
		m.e.Close()
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	m.e.Close() // etcd gone: no renewal can succeed
	// An Append in flight (it cannot be answered) must not keep Lost from closing.
	actx, acancel := context.WithCancel(context.Background())
	appended := make(chan error, 1)
	go func() { appended <- s.Append(actx, []byte(`{"type":"step_end"}`)) }()
	select {
	case <-s.Lost():
	case <-time.After(60 * time.Second):
		t.Fatal("Lost not closed a minute after etcd went away")
	}
	acancel()
	if err := <-appended; err == nil {
		t.Fatal("an Append without etcd succeeded")
	}
	if why := s.Why(); why == nil || !strings.Contains(why.Error(), "could not be renewed") {
		t.Fatalf("Why = %v", why)
	}
}

// TestLogTailKeepsLast64KiB: the tail holds exactly the last LogTailSize bytes written.
func TestLogTailKeepsLast64KiB(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	s := supervise(t, h, "r")
	lt := s.LogTail()
	var all bytes.Buffer
	for i := 0; all.Len() < 200<<10; i++ {
		line := []byte(strings.Repeat(string(rune('a'+i%26)), 1+i%700) + "\n")
		all.Write(line)
		lt.Write(line)
	}
	lt.Write(make([]byte, 0))
	if err := lt.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := h.RunState(ctx, "r")
	want := all.Bytes()[all.Len()-LogTailSize:]
	if !bytes.Equal(st.LogTail, want) {
		t.Fatalf("tail of %d bytes, want the last %d", len(st.LogTail), len(want))
	}
}

// TestLogTailRateLimited: however often the log is written, the tail is put at most once
// per LogTailEvery (plus the final put at Close). Counted by the key's version (its puts),
// bounded by the time that passed: load only makes puts fewer.
func TestLogTailRateLimited(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	s := supervise(t, h, "r")
	lt := s.LogTail()
	start := time.Now()
	for time.Since(start) < 2500*time.Millisecond {
		lt.Write([]byte("x"))
		time.Sleep(5 * time.Millisecond) // pacing the writer, not synchronisation
	}
	if err := lt.Close(); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	resp, err := h.cli.Get(ctx, h.logTailKey("r"))
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("log tail key: %v %v", resp, err)
	}
	max := int64(elapsed/LogTailEvery) + 2 // one per interval, the first at once, and Close's
	if v := resp.Kvs[0].Version; v > max || v < 2 {
		t.Fatalf("%d puts of the tail in %s, want 2..%d", v, elapsed, max)
	}
}

// TestStartRaceReaperFirst: a run saved running whose supervisor has not yet put its
// alive key is reaped (tombstone); the late supervisor is then refused (ErrReaped) and
// puts nothing, also after the run's keys were forgotten: no step may start.
func TestStartRaceReaperFirst(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	w := writer(t, h, ident("laptop", 10))
	if err := w.MarkReaped(ctx, "late"); err != nil {
		t.Fatal(err)
	}
	if err := w.MarkReaped(ctx, "late"); err != nil { // idempotent
		t.Fatal(err)
	}
	if err := w.ForgetRun(ctx, "late"); err != nil {
		t.Fatal(err)
	}
	if s, err := h.Supervise(ctx, "late", ident("laptop", 31)); !errors.Is(err, ErrReaped) {
		if s != nil {
			s.Close(ctx)
		}
		t.Fatalf("late supervisor after the reap: %v, want ErrReaped", err)
	}
	st, err := h.RunState(ctx, "late")
	if err != nil {
		t.Fatal(err)
	}
	if st.Alive != nil || !st.Reaped {
		t.Fatalf("after a refused supervisor: %+v, want no alive key and the tombstone", st)
	}
}

// TestStartRaceSupervisorFirst: a supervisor whose alive key is there wins: the reaper's
// tombstone is refused (ErrSupervised), so it never treats the run as dead; a writer whose
// term ended cannot put one either (ErrFenced).
func TestStartRaceSupervisorFirst(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	s := supervise(t, h, "early")
	w := writer(t, h, ident("laptop", 10))
	if err := w.MarkReaped(ctx, "early"); !errors.Is(err, ErrSupervised) {
		t.Fatalf("tombstone of a supervised run: %v, want ErrSupervised", err)
	}
	st, err := h.RunState(ctx, "early")
	if err != nil {
		t.Fatal(err)
	}
	if st.Reapable() || st.Reaped {
		t.Fatalf("supervised run after the refused reap: %+v", st)
	}
	if err := s.Append(ctx, []byte(`{"type":"start"}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.MarkReaped(ctx, "other"); !errors.Is(err, ErrFenced) {
		t.Fatalf("tombstone by a resigned writer: %v, want ErrFenced", err)
	}
}

// TestForgetRunAttempts: every attempt's journal and tail go, a live attempt's stay, the
// tombstones stay, and another run's keys are not touched.
func TestForgetRunAttempts(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	w := writer(t, h, ident("laptop", 10))
	for _, k := range []string{"r7@1", "r7@2", "r70@1"} {
		s := supervise(t, h, k)
		if err := s.Append(ctx, []byte(`{"type":"start"}`)); err != nil {
			t.Fatal(err)
		}
		if k != "r7@2" {
			if err := s.Close(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.MarkReaped(ctx, "r7@3"); err != nil {
		t.Fatal(err)
	}
	if err := w.ForgetRunAttempts(ctx, "r7"); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]int{"r7@1": 0, "r7@2": 1, "r70@1": 1} {
		if st, err := h.RunState(ctx, k); err != nil || len(st.Journal) != want {
			t.Errorf("%s after forgetting r7: %d records (%v), want %d", k, len(st.Journal), err, want)
		}
	}
	if st, _ := h.RunState(ctx, "r7@3"); !st.Reaped {
		t.Error("the tombstone of r7@3 was forgotten")
	}
}

// TestLostWhileAppendHangs: etcd cut off (every byte dropped, as a network cut does)
// while an Append waits for its answer: Lost still closes by the supervisor's deadline.
// It once waited for the Append, which waited for Lost: the supervisor hung.
func TestLostWhileAppendHangs(t *testing.T) {
	p := etcdtest.NewProxy(t, []string{shared.endpoint})
	cli, err := clientv3.New(clientv3.Config{Endpoints: p.Endpoints(), DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	h := openHome(t, cli, fmt.Sprintf("t%d-hang", prefixes.Add(1)), Options{Lease: 2 * time.Second})
	s, err := h.Supervise(testCtx(t), "r", ident("laptop", 30))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	p.Cut()
	actx, acancel := context.WithCancel(context.Background())
	defer acancel()
	appended := make(chan error, 1)
	go func() { appended <- s.Append(actx, []byte(`{"type":"step_end"}`)) }()
	select {
	case <-s.Lost():
	case <-time.After(60 * time.Second):
		t.Fatal("Lost not closed a minute after the cut, while an Append waited")
	}
	acancel()
	if err := <-appended; err == nil {
		t.Fatal("an Append through a cut network succeeded")
	}
}

// TestCancelAfterCompaction: the supervisor's cancel watch breaks (its etcd member
// restarts) after the revision it watched from was compacted; a cancel put after that
// still reaches the supervisor (it once retried the compacted revision for ever).
func TestCancelAfterCompaction(t *testing.T) {
	c := etcdtest.StartCluster(t, 1)
	cli := etcdtest.Client(t, c.Endpoints()...)
	ctx := testCtx(t)
	h := openHome(t, cli, "cmp", Options{Lease: 15 * time.Second})
	s, err := h.Supervise(ctx, "r", ident("laptop", 30))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	var rev int64
	for i := 0; i < 5; i++ {
		resp, err := cli.Put(ctx, "cmp-junk", fmt.Sprint(i))
		if err != nil {
			t.Fatal(err)
		}
		rev = resp.Header.Revision
	}
	if _, err := cli.Compact(ctx, rev); err != nil { // past the alive key's revision
		t.Fatal(err)
	}
	if err := c.Member(0).Restart(); err != nil { // every watch breaks
		t.Fatal(err)
	}
	if err := c.WaitHealthy(ctx); err != nil {
		t.Fatal(err)
	}
	term, err := h.Campaign(ctx, ident("laptop", 31))
	if err != nil {
		t.Fatal(err)
	}
	defer term.Resign(context.Background())
	if ok, err := term.RequestCancel(ctx, "r", "stop it"); err != nil || !ok {
		t.Fatalf("request cancel: %v, %v", ok, err)
	}
	select {
	case why := <-s.Cancels():
		if why != "stop it" {
			t.Fatalf("cancel reason %q", why)
		}
	case <-s.Lost():
		t.Fatalf("the supervisor lost its lease: %v", s.Why())
	case <-time.After(60 * time.Second):
		t.Fatal("the cancel put after the compaction was not delivered within a minute")
	}
}

// TestCancelNeedsTheTerm: a writer whose term ended cancels nothing (its epoch guards the
// cancel); while its term lasts it cancels a run whose supervisor lives, and no other.
func TestCancelNeedsTheTerm(t *testing.T) {
	ctx := testCtx(t)
	h := newHome(t, Options{})
	s, err := h.Supervise(ctx, "r", ident("laptop", 30))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background())
	term, err := h.Campaign(ctx, ident("laptop", 31))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := term.RequestCancel(ctx, "none", "stop it"); ok || err != nil {
		t.Fatalf("cancel of a run with no supervisor: %v, %v", ok, err)
	}
	if err := term.Resign(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := term.RequestCancel(ctx, "r", "stop it"); ok || !errors.Is(err, ErrFenced) {
		t.Fatalf("cancel after the term ended: %v, %v; want ErrFenced", ok, err)
	}
	if resp, err := h.cli.Get(ctx, h.cancelKey("r")); err != nil || len(resp.Kvs) != 0 {
		t.Fatalf("a cancel key put after the term ended: %+v, %v", resp, err)
	}
	term2, err := h.Campaign(ctx, ident("laptop", 32))
	if err != nil {
		t.Fatal(err)
	}
	defer term2.Resign(context.Background())
	if ok, err := term2.RequestCancel(ctx, "r", "stop it"); !ok || err != nil {
		t.Fatalf("cancel by the writer of a live run: %v, %v", ok, err)
	}
	select {
	case why := <-s.Cancels():
		if why != "stop it" {
			t.Fatalf("reason %q", why)
		}
	case <-ctx.Done():
		t.Fatal("the cancel never reached the supervisor")
	}
}
