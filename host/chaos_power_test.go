package host

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"baton/store/storetest/forgetfs"
	"baton/workflow"
	"baton/workflow/proc"
)

// TestChaosPowerCuts is the chaos harness (chaos_test.go) with power cuts among its
// faults: the home is on a forgetting file system (store/storetest/forgetfs), and each cycle
// either kill -9s the writer and starts a replacement, or cuts the power: every window,
// supervisor and step dies at once, the home goes back to what was durable, and three new
// windows open it. The client writes through whoever is the writer and a second client
// reads through it, as in TestChaos; at the end every acknowledged write must be on disk,
// writer terms must not overlap and their epochs must rise across the cuts, no request may
// go unanswered unless its window was killed, and the history of writes, reads and
// takeovers must be linearizable (porcupine, linearize_test.go), and each window's views
// must not go back nor disagree with another window's of the same boot. The checks of TestChaos
// that read the disk while windows live (the poller's) or count runs' outcomes do not
// apply: a power cut legitimately takes back what was written but not yet synced.
//
//	go test -tags batontest ./host -run TestChaosPowerCuts                   short mode (about 5 s of chaos)
//	BATON_CHAOS_POWER=long go test -tags batontest ./host -run TestChaosPowerCuts -timeout 0 -v   10 minutes
//	BATON_CHAOS_POWER=30m ...                                 any duration
func TestChaosPowerCuts(t *testing.T) {
	// Not parallel: the chaos's minimum work was measured with it alone beside busy loops.
	dur, long := 5*time.Second, false
	switch v := os.Getenv("BATON_CHAOS_POWER"); v {
	case "", "short":
	case "long":
		dur, long = 10*time.Minute, true
	default:
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("BATON_CHAOS_POWER: %v", err)
		}
		dur, long = d, true
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("BATON_CHAOS_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("chaos with power cuts: %s, seed %d (BATON_CHAOS_SEED to replay the choices)", dur, seed)
	fsys := forgetfs.Start(t)
	h := newChaos(t, seed)
	h.home = filepath.Join(fsys.Dir(), "home")
	for range 3 {
		h.spawn()
	}
	h.setup()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); h.client(stop, rand.New(rand.NewSource(seed+1))) }()
	go func() { defer wg.Done(); h.reader(stop) }()
	cuts, boots := 0, []int{0} // boots: the index in h.wins of each boot's first window
	start := time.Now()
	// The chaos runs for dur and then on until it has done enough to check anything (two
	// cuts, 20 acknowledged writes, 10 reads): on a loaded machine (the race detector,
	// busy loops beside it) 5 s may hold only a few. limit bounds it all the same.
	limit := 3 * dur
	if !long {
		limit = 90 * time.Second
	}
	enough := func() bool {
		writes, open, reads, _, _ := h.lin.counts()
		return cuts >= 2 && writes-open >= 20 && reads >= 10
	}
	for !t.Failed() && (time.Since(start) < dur || !enough()) && time.Since(start) < limit {
		time.Sleep(time.Duration(150+h.rng.Intn(450)) * time.Millisecond) // pacing of the chaos
		h.mu.Lock()
		h.cycles++
		h.mu.Unlock()
		if h.rng.Intn(3) == 0 {
			fsys = h.powerCut(fsys)
			cuts++
			h.mu.Lock()
			boots = append(boots, len(h.wins)-3)
			h.mu.Unlock()
			continue
		}
		if w := h.waitWriter(30 * time.Second); w != nil {
			h.kill(w)
			h.spawn()
		} else {
			h.violate("no writer for 30s (cycle %d)", h.cycles)
		}
	}
	close(stop)
	wg.Wait()
	h.finishPower(boots)
	writes, open, reads, terms, _ := h.lin.counts()
	line := fmt.Sprintf("chaos with power cuts: ran=%s cycles=%d power_cuts=%d writer_kills=%d windows=%d writes_acked=%d history_open=%d reads=%d takeovers=%d violations=%d",
		time.Since(start).Round(time.Millisecond), h.cycles, cuts, h.kills, len(h.wins), writes-open, open, reads, terms, len(h.viol))
	t.Log(line)
	if long {
		fmt.Println(line)
	}
	if writes-open < 20 || reads < 10 || terms < cuts+1 {
		t.Errorf("not enough work to check anything: %s", line)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, v := range h.viol {
		t.Error(v)
	}
}

// powerCut cuts the power under the chaos home: every live window dies at once (recorded
// as killed, as kill does), and every supervisor and step of the home; the home goes back
// to what was durable; three new windows open it on a new mount, which it returns.
func (h *chaos) powerCut(fsys *forgetfs.FS) *forgetfs.FS {
	h.mu.Lock()
	live := append([]*chaosWin(nil), h.live...)
	h.mu.Unlock()
	h.readMu.Lock() // no snapshot reply is being written (see readMu)
	var cs []*child
	for _, w := range live {
		cs = append(cs, w.c)
	}
	haltAll(h.t, cs)
	err := fsys.PowerCut(func() {
		for _, w := range live { // recorded killed before the kill, as kill does
			h.markKilled(w)
		}
		for _, w := range live {
			_ = w.c.cmd.Process.Signal(syscall.SIGKILL)
		}
		for _, w := range live {
			w.c.kill9()
			h.lin.died(w.c.pid, time.Now())
		}
		proc.KillAll(nil, [][]string{{workflow.EnvHome + "=" + h.home}}, 10*time.Second)
	})
	h.readMu.Unlock()
	if err != nil {
		h.t.Fatal(err)
	}
	fsys = fsys.Remount(h.t)
	for range 3 {
		h.spawn()
	}
	return fsys
}

// finishPower is finish for a chaos with power cuts: the checks that hold across cuts.
// Windows' views are compared within each boot only: a reader may show a save whose
// fdatasync has not returned yet (it follows the log as it is written), and a cut takes
// that save back; across a cut only acknowledged saves are promised, and checkAcked and
// the linearizability check (reads are served by the writer) hold them to it.
func (h *chaos) finishPower(boots []int) {
	if h.waitWriter(30*time.Second) == nil {
		h.violate("no writer at the end")
		return
	}
	d, ok := h.readDoc()
	if !ok {
		h.violate("no document at the end")
		return
	}
	h.mu.Lock()
	acked := h.ackedVer
	h.mu.Unlock()
	h.checkAcked(d, acked, "end")
	h.checkRoles()
	h.checkUnanswered()
	h.recordTakeovers()
	for _, v := range h.lin.check(2 * time.Minute) {
		h.violate("%s", v)
	}
	h.mu.Lock()
	wins := append([]*chaosWin(nil), h.wins...)
	h.mu.Unlock()
	for i, from := range boots {
		to := len(wins)
		if i+1 < len(boots) {
			to = boots[i+1]
		}
		var cs []*child
		for _, w := range wins[from:to] {
			cs = append(cs, w.c)
		}
		for _, v := range checkViews(cs) {
			h.violate("boot %d: %s", i, v)
		}
	}
}
