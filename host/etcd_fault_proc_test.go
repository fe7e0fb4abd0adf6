package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"baton/store"
	"baton/store/etcdhome"
	"baton/store/storetest/etcdtest"
)

// Faults of the etcd cluster itself under an etcd home, with real processes (issue 21):
// kill -9 of the etcd leader during a stream of saves, quorum lost and regained, and a
// compaction under a following window. The windows, machines and the view past the
// proxies are those of etcd_proc_test.go.

// etcdOpTimeout bounds one wait of these tests on a loaded machine.
const etcdOpTimeout = 60 * time.Second

// writeOutcome is what one write request through a window got.
type writeOutcome struct {
	name  string
	by    int // the window's pid
	ok    bool
	error string
}

// writeStream sends writes (add_workflow, one new name each) alternately to the windows
// given, one at a time, until stop is closed, and records every outcome.
type writeStream struct {
	mu       sync.Mutex
	outcomes []writeOutcome
	done     chan struct{}
}

func startWriteStream(t *testing.T, tag string, stop <-chan struct{}, windows ...*child) *writeStream {
	s := &writeStream{done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			w := windows[i%len(windows)]
			name := fmt.Sprintf("%s-%04d", tag, i)
			req := addWF(name, 1, "fail")
			if w != windows[0] {
				req["forward"] = true
			}
			id := w.send(req)
			var r map[string]any
			if !w.waitFor(etcdOpTimeout, func() bool { r = w.replies[id]; return r != nil }) {
				t.Errorf("child %d: no reply to write %s within %s", w.pid, name, etcdOpTimeout)
				return
			}
			o := writeOutcome{name: name, by: w.pid, ok: r["ok"] == true, error: fmt.Sprint(r["error"])}
			s.mu.Lock()
			s.outcomes = append(s.outcomes, o)
			s.mu.Unlock()
			if !o.ok { // refused: not in a tight loop while etcd elects
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}
	}()
	return s
}

// acked counts the acknowledged writes recorded from index from on.
func (s *writeStream) acked(from int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, o := range s.outcomes[min(from, len(s.outcomes)):] {
		if o.ok {
			n++
		}
	}
	return n
}

func (s *writeStream) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.outcomes)
}

// awaitAcked waits until n writes from index from on were acknowledged.
func (s *writeStream) awaitAcked(t *testing.T, from, n int, timeout time.Duration, why string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for s.acked(from) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d of %d writes acknowledged within %s; outcomes since: %v", why, s.acked(from), n, timeout, s.since(from))
		}
		select {
		case <-s.done:
			t.Fatalf("%s: the write stream ended; outcomes since: %v", why, s.since(from))
		case <-time.After(10 * time.Millisecond): // polls a counter the stream's goroutine moves
		}
	}
}

func (s *writeStream) since(from int) []writeOutcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]writeOutcome(nil), s.outcomes[min(from, len(s.outcomes)):]...)
}

// split returns the acknowledged and the refused names (a refusal that says the outcome
// is unknown is neither: the write may be in etcd or not); every refusal must say why.
func (s *writeStream) split(t *testing.T) (acked, refused []string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.outcomes {
		if o.ok {
			acked = append(acked, o.name)
			continue
		}
		if strings.Contains(o.error, etcdhome.ErrOutcomeUnknown.Error()) {
			continue // refused, but saying it may have been written: either is right
		}
		refused = append(refused, o.name)
		if o.error == "" || o.error == "<nil>" {
			t.Errorf("write %s by child %d refused without saying why", o.name, o.by)
		}
	}
	return acked, refused
}

// checkTermsHeld reads the history of the home's meta key (every save's last
// transaction puts it) and fails unless each save was made by a window holding the
// election at the save's revision: the document names its writer, and the election's
// oldest key at that revision is that window's. Generations rise by one from save to save
// and epochs never fall. It returns how many saves it checked.
func (v *etcdView) checkTermsHeld(prefix string) int {
	v.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), etcdOpTimeout)
	defer cancel()
	metaKey := "/" + prefix + "/doc/meta"
	head, err := v.cli.Get(ctx, metaKey)
	if err != nil || len(head.Kvs) != 1 {
		v.t.Fatalf("read %s: %v (%d keys)", metaKey, err, len(head.Kvs))
	}
	type save struct {
		rev        int64
		epoch, gen uint64
		writer     *store.Owner
	}
	var saves []save
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	for resp := range v.cli.Watch(wctx, metaKey, clientv3.WithRev(1)) {
		if err := resp.Err(); err != nil {
			v.t.Fatalf("history of %s: %v", metaKey, err)
		}
		for _, ev := range resp.Events {
			var m struct {
				Doc store.Doc `json:"doc"`
			}
			if err := json.Unmarshal(ev.Kv.Value, &m); err != nil {
				v.t.Fatalf("meta at revision %d: %v", ev.Kv.ModRevision, err)
			}
			saves = append(saves, save{ev.Kv.ModRevision, m.Doc.Epoch, m.Doc.Generation, m.Doc.Writer})
		}
		if len(saves) > 0 && saves[len(saves)-1].rev >= head.Kvs[0].ModRevision {
			break
		}
	}
	wcancel()
	for i, s := range saves {
		resp, err := v.cli.Get(ctx, "/"+prefix+"/writer/", append(clientv3.WithFirstCreate(), clientv3.WithRev(s.rev))...)
		if err != nil {
			v.t.Fatalf("the election at revision %d: %v", s.rev, err)
		}
		var holder etcdhome.Identity
		if len(resp.Kvs) == 1 {
			if err := json.Unmarshal(resp.Kvs[0].Value, &holder); err != nil {
				v.t.Fatalf("the election's key %s: %v", resp.Kvs[0].Key, err)
			}
		}
		switch {
		case s.writer == nil:
			v.t.Errorf("save at revision %d (generation %d) names no writer", s.rev, s.gen)
		case len(resp.Kvs) == 0:
			v.t.Errorf("save at revision %d (generation %d) by window pid %d: no window held the election", s.rev, s.gen, s.writer.PID)
		case holder.Owner.Instance != s.writer.Instance:
			v.t.Errorf("save at revision %d (generation %d) by window pid %d, while the election was held by pid %d on %s",
				s.rev, s.gen, s.writer.PID, holder.Owner.PID, holder.Machine)
		}
		if i > 0 && (s.gen != saves[i-1].gen+1 || s.epoch < saves[i-1].epoch) {
			v.t.Errorf("save at revision %d has generation %d epoch %d after generation %d epoch %d",
				s.rev, s.gen, s.epoch, saves[i-1].gen, saves[i-1].epoch)
		}
	}
	return len(saves)
}

// localDocuments lists what in a machine's local folder is a document (workflows.json or
// its log): an etcd home's document lives in etcd only.
func localDocuments(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n := d.Name(); n == store.FileName || n == store.WALName {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// Not parallel (nor are the other etcd process tests): with 2 s leases they run alone,
// as beside parallel tests on a loaded machine they lost what they observe.
func TestEtcdClusterFaultsProcesses(t *testing.T) {
	c := etcdtest.StartCluster(t, 3)
	cli := etcdtest.Client(t, c.Endpoints()...)

	// (a) kill -9 of the etcd leader while the writer saves and a reader of the same
	// machine forwards writes to it: every acknowledged write is in etcd, every refusal
	// says why and none of the refused writes is there, the writer goes on writing once a
	// leader is elected, and every save in etcd's history was made in a term its writer
	// held at that revision.
	t.Run("KillLeaderDuringSaves", func(t *testing.T) {
		const prefix = "leader"
		v := newEtcdView(t, cli, prefix)
		m := newEtcdMachine(t, c, "m1")
		a := m.window(t, prefix, "2s")
		if r := a.initialRole(); r != "writer" {
			t.Fatalf("first window: %s", r)
		}
		b := m.window(t, prefix, "2s")
		if r := b.initialRole(); r != "reader" {
			t.Fatalf("second window: %s", r)
		}
		stop := make(chan struct{})
		s := startWriteStream(t, "w", stop, a, b)
		defer func() {
			select {
			case <-stop:
			default:
				close(stop)
			}
			<-s.done
		}()
		s.awaitAcked(t, 0, 20, etcdOpTimeout, "writes before the leader kill")
		ctx, cancel := context.WithTimeout(context.Background(), etcdOpTimeout)
		leader, err := c.Leader(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		before := s.len()
		if err := c.Member(leader).Kill(); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		t.Logf("killed leader %s after %d writes", c.Member(leader).Name(), before)
		s.awaitAcked(t, before, 30, 2*etcdOpTimeout, "the windows must write again once a new leader is elected")
		t.Logf("30 writes acknowledged %s after the leader kill", time.Since(killed).Round(time.Millisecond))
		if err := c.Member(leader).Restart(); err != nil {
			t.Fatal(err)
		}
		close(stop)
		<-s.done
		acked, refused := s.split(t)
		for _, o := range s.since(0) {
			if !o.ok {
				t.Logf("refused: %s by %d: %s", o.name, o.by, o.error)
			}
		}
		// The writer role may have moved (a commit whose answer was lost revokes its own
		// lease): the last write goes to whichever window writes now, past every proxy.
		w := awaitAnyWriter(t, etcdOpTimeout, a, b)
		ackWrite(w, "after", &acked)
		v.checkAcked(acked, refused)
		n := v.checkTermsHeld(prefix)
		t.Logf("%d acknowledged, %d refused; %d saves in etcd's history, each in a term held at its revision",
			len(acked), len(refused), n)
	})

	// (b) Quorum lost (the leader killed, a follower stopped) and regained: every window
	// says it is read-only because etcd is unreachable, every write is refused saying so,
	// no window writes a document anywhere else (its local folder), and once the quorum is
	// back a writer is elected again and every acknowledged write is there.
	t.Run("QuorumLostAndRegained", func(t *testing.T) {
		const prefix = "quorum"
		v := newEtcdView(t, cli, prefix)
		ma, mb := newEtcdMachine(t, c, "ma"), newEtcdMachine(t, c, "mb")
		a := ma.window(t, prefix, "2s")
		if r := a.initialRole(); r != "writer" {
			t.Fatalf("first window: %s", r)
		}
		var acked, refused []string
		ackWrite(a, "q1", &acked)
		b := ma.window(t, prefix, "2s") // a reader that forwards to a
		c2 := mb.window(t, prefix, "2s")
		for _, x := range []*child{b, c2} {
			if r := x.initialRole(); r != "reader" {
				t.Fatalf("child %d: %s", x.pid, r)
			}
		}
		ackWrite(a, "q2", &acked)
		ctx, cancel := context.WithTimeout(context.Background(), etcdOpTimeout)
		leader, err := c.Leader(ctx)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		follower := (leader + 1) % 3
		lost := time.Now()
		if err := c.Member(leader).Kill(); err != nil {
			t.Fatal(err)
		}
		if err := c.Member(follower).Stop(); err != nil {
			t.Fatal(err)
		}
		t.Logf("quorum lost: leader %s killed, %s stopped", c.Member(leader).Name(), c.Member(follower).Name())
		since := regexp.MustCompile(`etcd unreachable since (\d\d:\d\d)`)
		for _, x := range []*child{a, b, c2} {
			st := awaitStatus(t, x, etcdOpTimeout, "the window says etcd is unreachable", func(st map[string]any) bool {
				return since.MatchString(fmt.Sprint(st["problem"]))
			})
			hhmm := since.FindStringSubmatch(fmt.Sprint(st["problem"]))[1]
			if hhmm != lost.Format("15:04") && hhmm != lost.Add(time.Minute).Format("15:04") {
				t.Errorf("child %d: unreachable since %s, the quorum was lost at %s", x.pid, hhmm, lost.Format("15:04:05"))
			}
			t.Logf("child %d: role %v, %v", x.pid, st["role"], st["problem"])
		}
		for i, x := range []*child{a, b, c2, a} {
			name := fmt.Sprintf("lost-%d", i)
			req := addWF(name, 1, "fail")
			if x != a {
				req["forward"] = true
			}
			r := x.do(req)
			if r["ok"] == true {
				t.Fatalf("child %d acknowledged %s without a quorum: %v", x.pid, name, r)
			}
			if e := fmt.Sprint(r["error"]); !strings.Contains(e, "etcd unreachable since") {
				t.Errorf("child %d refused %s without saying etcd is unreachable: %s", x.pid, name, e)
			}
			refused = append(refused, name)
		}
		for _, mc := range []*etcdMachine{ma, mb} {
			if docs := localDocuments(t, mc.local); len(docs) > 0 {
				t.Errorf("machine %s wrote a document in its local folder: %v", mc.name, docs)
			}
		}
		if err := c.Member(follower).Cont(); err != nil {
			t.Fatal(err)
		}
		if err := c.Member(leader).Restart(); err != nil {
			t.Fatal(err)
		}
		regained := time.Now()
		w := awaitAnyWriter(t, 2*etcdOpTimeout, a, b, c2)
		t.Logf("writer again: child %d, %s after the quorum returned", w.pid, time.Since(regained).Round(time.Millisecond))
		ackWrite(w, "q3", &acked)
		for _, x := range []*child{a, b, c2} {
			awaitStatus(t, x, etcdOpTimeout, "the window reaches etcd again", func(st map[string]any) bool {
				return !strings.Contains(fmt.Sprint(st["problem"]), "etcd unreachable")
			})
		}
		v.checkAcked(acked, refused)
		v.checkTermsHeld(prefix)
		for _, mc := range []*etcdMachine{ma, mb} {
			if docs := localDocuments(t, mc.local); len(docs) > 0 {
				t.Errorf("machine %s wrote a document in its local folder: %v", mc.name, docs)
			}
		}
	})

	// (c) Compaction under a follower: a reader whose machine reaches one member only; that
	// member is killed (the reader's watch is left at its revision), the writer saves many
	// times through the others, the test compacts past the reader's revision and
	// defragments; the member restarts and catches up before the reader reaches it again.
	// The reader's watch then resumes at a compacted revision with no event to deliver: it
	// reads again in full and shows exactly the latest document (generation and
	// workflows), and keeps following after.
	t.Run("CompactionUnderFollower", func(t *testing.T) {
		const prefix = "compact"
		v := newEtcdView(t, cli, prefix)
		ctx, cancel := context.WithTimeout(context.Background(), 3*etcdOpTimeout)
		defer cancel()
		leader, err := c.Leader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		x := c.Member((leader + 1) % 3) // a follower: its loss keeps the quorum
		ma := newEtcdMachine(t, c, "ma")
		mb := &etcdMachine{name: "mb", local: t.TempDir(), proxy: etcdtest.NewProxy(t, []string{x.Endpoint()})}
		a := ma.window(t, prefix, "5s")
		if r := a.initialRole(); r != "writer" {
			t.Fatalf("first window: %s", r)
		}
		var acked []string
		ackWrite(a, "c-first", &acked)
		r := mb.window(t, prefix, "5s")
		if role := r.initialRole(); role != "reader" {
			t.Fatalf("second window: %s", role)
		}
		awaitGeneration(t, r, v.doc().Generation, "the reader follows before the fault")
		if err := x.Kill(); err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			ackWrite(a, fmt.Sprintf("c-%04d", i), &acked)
		}
		// A key beside the document, so the compaction is past the last save's revision:
		// a watch from the compaction on has no save to deliver, only a full read shows it.
		head, err := cli.Put(ctx, "/"+prefix+"-beside", "x")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Compact(ctx, head.Header.Revision, clientv3.WithCompactPhysical()); err != nil {
			t.Fatal(err)
		}
		for i := range c.Size() {
			if m := c.Member(i); m != x {
				if _, err := cli.Defragment(ctx, m.Endpoint()); err != nil {
					t.Fatalf("defragment %s: %v", m.Name(), err)
				}
			}
		}
		mb.proxy.Cut() // the reader reaches the member only once it has caught up
		if err := x.Restart(); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitHealthy(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := cli.Defragment(ctx, x.Endpoint()); err != nil {
			t.Fatalf("defragment %s: %v", x.Name(), err)
		}
		t.Logf("compacted at revision %d and defragmented while the reader's member was down", head.Header.Revision)
		mb.proxy.Join()
		want := v.doc()
		awaitGeneration(t, r, want.Generation, "the reader reads again in full after the compaction")
		checkSameWorkflows(t, r, want)
		ackWrite(a, "c-after", &acked)
		awaitGeneration(t, r, v.doc().Generation, "the reader keeps following after the compaction")
		checkSameWorkflows(t, r, v.doc())
		v.checkAcked(acked, nil)
	})
}

// awaitAnyWriter asks the windows for their status until one of them writes (role
// writer, nothing keeping it from writing) and returns it.
func awaitAnyWriter(t *testing.T, timeout time.Duration, windows ...*child) *child {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		for _, x := range windows {
			if st := x.ok(map[string]any{"op": "status"}); st["role"] == "writer" && fmt.Sprint(st["problem"]) == "" {
				return x
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window became the writer within %s", timeout)
		}
		windows[0].waitFor(50*time.Millisecond, func() bool { return false }) // status is asked: no event to wait on
	}
}

// awaitGeneration waits until window c shows generation gen, failing if it shows a
// later one (it skipped a save) or none within the deadline.
func awaitGeneration(t *testing.T, c *child, gen uint64, why string) {
	t.Helper()
	awaitStatus(t, c, etcdOpTimeout, fmt.Sprintf("%s: generation %d", why, gen), func(st map[string]any) bool {
		g, _ := st["generation"].(float64)
		if uint64(g) > gen {
			t.Fatalf("child %d shows generation %d, past %d", c.pid, uint64(g), gen)
		}
		return uint64(g) == gen
	})
}

// checkSameWorkflows fails unless window c's document has exactly want's workflows, in
// its order, at its generation.
func checkSameWorkflows(t *testing.T, c *child, want *store.Doc) {
	t.Helper()
	s := c.snapshot()
	if s.Generation != want.Generation || !slices.Equal(s.names(), diskNames(want)) {
		t.Fatalf("child %d shows generation %d with %d workflows; etcd has generation %d with %d",
			c.pid, s.Generation, len(s.names()), want.Generation, len(diskNames(want)))
	}
}
