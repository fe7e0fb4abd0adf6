package host

// The chaos harness: N headless windows on one home, a client writing to whoever is the
// writer (and starting runs in lanes that fail, re-queue or are adopted when their owner
// is lost) and a second client reading through it, both recording every operation with
// the time it was sent and the time its reply came, and a killer that kill -9s the writer
// (every other cycle; else it kills a reader, SIGSTOPs a window for a while, kill -9s a
// run's supervisor while its window lives, or has a reader ask for the write role, a
// hand-over) and starts replacements. Invariants are checked continuously by a poller and
// again at the end, exactly-once outcomes among them (each run ends once, with the outcome
// its lane and the chaos it met call for, and no step starts more often than its lane
// allows); the history of writes, reads, takeovers and hand-overs is checked for
// linearizability with porcupine (linearize_test.go), and each window's published views
// for going back. A run must also show that real work happened (minimumWork): a run that
// killed nothing fails.
//
//	go test -tags batontest ./host -run TestChaos                  short mode (about 15 s), part of the suite
//	BATON_CHAOS=long go test -tags batontest ./host -run TestChaos -timeout 0 -v      20 minutes
//	BATON_CHAOS=45m  go test -tags batontest ./host -run TestChaos -timeout 0 -v      any duration
//
// The summary line is logged with t.Log and, in long mode, printed to stdout.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"baton/store"
	"baton/workflow"
	"baton/workflow/proc"
)

const chaosSlots = 12 // workflows the client rewrites (registers with versions)

// chaosLanes are the workflows whose runs the client starts (sched: its schedule does);
// each step checks, from the processes alive, that its lane never holds more than
// max_concurrent runs and that no run executes twice at once, and marks its start and its
// end. The adopt lane's runs outlive their writer: a writer kill or a hand-over adopts them.
var chaosLanes = []struct {
	name   string
	max    int
	onLost string
	secs   string
}{
	{"lane-a", 2, "fail", "0.3"},
	{"lane-b", 1, "requeue", "0.6"},
	{"lane-c", 3, "fail", "0.15"},
	{"adopt", 2, "adopt", "0.5"},
	{"sched", 1, "fail", "0.4"},
}

// chaosClientLanes is how many of chaosLanes (the first ones) the client starts runs of.
const chaosClientLanes = 4

// chaosLaneOf returns the on_owner_lost of the lane named name.
func chaosLaneOf(name string) (onLost string, ok bool) {
	for _, l := range chaosLanes {
		if l.name == name {
			return l.onLost, true
		}
	}
	if l, ok := etcdCutLane(name); ok { // only an etcd home's chaos has it
		return l, true
	}
	return "", false
}

// chaosDuration reads BATON_CHAOS: empty or "short" is the default short mode, "long" is
// 20 minutes, anything else is a Go duration.
func chaosDuration() (time.Duration, bool, error) {
	switch v := os.Getenv("BATON_CHAOS"); v {
	case "", "short":
		return 12 * time.Second, false, nil
	case "long":
		return 20 * time.Minute, true, nil
	default:
		d, err := time.ParseDuration(v)
		return d, true, err
	}
}

// chaosStep is the argv of a lane step. Its pid file per run detects a second live
// execution of the same run; its per-lane pid files count live runs of the lane. Each
// file holds a pid and its start time, so a recycled pid is not taken for a live step.
// Every start appends "<run> <pid>" to the starts file and every end that was not killed
// appends "<run>" to the ends file (one short O_APPEND write each: lines never mix).
func chaosStep(marks, lane string, max int, secs string) []string {
	script := `d=$1; wf=$2; max=$3; id=$BATON_RUN_ID
echo "$id $$" >> "$d/starts"
me="$$ $(cut -d' ' -f22 /proc/$$/stat)"
live() { s=$(cut -d' ' -f3,22 "/proc/$1/stat" 2>/dev/null) || return 1; [ "${s%% *}" != Z ] && [ "${s%% *}" != X ] && [ "${s#* }" = "$2" ]; }
f=$d/pid-$id
if [ -f "$f" ]; then read p st 2>/dev/null < "$f"; if live "$p" "$st"; then echo "$id $p $$" >> "$d/double"; fi; fi
echo "$me" > "$f"
mkdir -p "$d/lane-$wf"; echo "$me" > "$d/lane-$wf/$id"
n=0; for g in "$d/lane-$wf"/*; do read p st 2>/dev/null < "$g" || continue; if live "$p" "$st"; then n=$((n+1)); fi; done
if [ "$n" -gt "$max" ]; then echo "$wf $n" >> "$d/over"; fi
sleep $4
rm -f "$d/lane-$wf/$id"
echo "$id" >> "$d/ends"`
	return []string{"sh", "-c", script, "chaos-step", marks, lane, strconv.Itoa(max), secs}
}

type chaosWin struct {
	c       *child
	spawned time.Time // read before the process was started
	ended   time.Time // when it was killed or closed; zero while alive
	killed  bool
}

// chaosUnanswered is a request that got no reply: it must be explained by the harness
// having killed its window before the wait for the reply ended.
type chaosUnanswered struct {
	w        *chaosWin
	what     string
	sent     time.Time
	gaveUpAt time.Time
}

// chaosServed is a request a window answered as the writer: an acknowledged write, or a
// snapshot naming it as the writer.
type chaosServed struct {
	pid  int
	call time.Time // read before it was sent
	what string
}

// chaosExact is an exact kill: the writer pid was killed while every other window was
// stopped, and runs were running in the file it left; the next takeover must reap exactly
// those, in its own writer role event.
type chaosExact struct {
	pid  int
	at   time.Time         // read before the kill
	runs map[string]string // run -> its workflow
}

type chaos struct {
	t           *testing.T
	home, marks string
	rng         *rand.Rand
	schedID     string // the "sched" workflow's schedule, paused at the end (finish)

	mu        sync.Mutex // guards everything below
	wins      []*chaosWin
	live      []*chaosWin
	ackedVer  [chaosSlots]int // highest acknowledged version per slot
	ackedRuns []string
	nextVer   int
	acked     int
	unknown   int // writes whose reply never came (window killed): neither promised nor lost
	refused   int
	notWriter int                       // snapshots answered by a window that was no longer the writer (not recorded)
	killedW   map[int]bool              // pids of writers killed with -9
	expected  map[int]map[string]string // killed writer pid -> runs it left running (exact kills), with their workflows
	exact     []chaosExact
	exactSkip int // exact kills whose reap set could not be known (each is a violation)
	unanswer  []chaosUnanswered
	cycles    int
	kills     int
	rkills    int
	stops     int
	orphans   map[int]bool
	viol      []string
	lastDoc   *store.Doc
	polls     int
	succeeded int           // runs that ended succeeded (counted at the end)
	adoptOK   int           // runs of the adopt lane that ended succeeded (counted at the end)
	noWriter  time.Duration // how long the writing client found no writer

	supKills  int            // supervisors killed with -9 while their window lived
	supRaced  int            // of those, runs whose step had ended already (recorded succeeded)
	supKilled map[string]int // run -> the supervisor pid killed
	handovers int            // hand-overs asked for and answered writer
	hoAdopted int            // runs adopted by the requesters of hand-overs
	// killAdopted counts the runs adopted by the takeovers that followed writer kills.
	killAdopted int
	// served lists the acknowledged writes and the snapshots recorded as served by a
	// writer: no window may serve one sent after a newer writer term was announced.
	served []chaosServed
	// outcome is each run's first terminal outcome the poller saw on disk; it must
	// never change (a run's outcome is recorded exactly once).
	outcome map[string]string
	changed map[string]bool // runs whose changed outcome was reported

	lin *linHistory
	// pickWriter, when set, replaces writer(): an etcd home's harness (chaos_etcd_test.go)
	// picks among the windows its machines can reach.
	pickWriter func() *chaosWin
	// refusedMaybe records a write refused with read_only as one that may have been
	// applied (an etcd home's refusal may follow a transaction sent to the cluster), and
	// takes a refusal whose error names etcd (a timeout, a lost quorum) for a refusal,
	// not an unexpected error.
	refusedMaybe bool
	// runsOf, when set, replaces allRuns; stepHomes, when set, are the BATON_HOME values of
	// the step processes instead of home; lostRun, when set, says whether a run's owner
	// lost its home through no fault of Baton (an etcd home's machine cut off: its
	// supervisors kill their steps), and lostPID whether a window did. An etcd home's
	// harness sets them (chaos_etcd_test.go).
	runsOf    func() []store.Run
	stepHomes []string
	lostRun   func(r *store.Run) bool
	lostPID   func(pid int) bool
	// readMu is held by the reading client for each snapshot and by the killer for each
	// kill of a writer: a snapshot reply is long (tens of kB), and a window killed while
	// writing one leaves a torn line that the child harness reports as a protocol error.
	readMu sync.Mutex
}

func newChaos(t *testing.T, seed int64) *chaos {
	return &chaos{t: t, home: t.TempDir(), marks: t.TempDir(), rng: rand.New(rand.NewSource(seed)),
		killedW: map[int]bool{}, expected: map[int]map[string]string{}, orphans: map[int]bool{}, lin: newLinHistory(),
		supKilled: map[string]int{}, outcome: map[string]string{}, changed: map[string]bool{}}
}

func (h *chaos) violate(format string, a ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.viol) < 200 {
		h.viol = append(h.viol, fmt.Sprintf(format, a...))
	}
}

func TestChaos(t *testing.T) {
	// Not parallel: the chaos's minimum work was measured with it alone beside busy loops.
	dur, long, err := chaosDuration()
	if err != nil {
		t.Fatalf("BATON_CHAOS: %v", err)
	}
	if testing.Short() && !long {
		dur = 5 * time.Second
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("BATON_CHAOS_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("chaos: %s, seed %d (BATON_CHAOS_SEED to replay the choices)", dur, seed)
	h := newChaos(t, seed)
	const n = 3
	for i := 0; i < n; i++ {
		h.spawn()
	}
	h.setup()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); h.client(stop, rand.New(rand.NewSource(seed+1))) }()
	go func() { defer wg.Done(); h.reader(stop) }()
	go func() { defer wg.Done(); h.poller(stop) }()
	// The chaos lasts dur, and longer (up to 3 × dur) until it has done the minimum work
	// that the chaos drives itself (kills, writes, reads): a loaded machine does less per
	// second. What is still short then fails the run (minimumWork, after finish).
	start := time.Now()
	for !t.Failed() {
		if el := time.Since(start); el > 3*dur || (el > dur && h.enough(dur)) {
			break
		}
		time.Sleep(time.Duration(150+h.rng.Intn(450)) * time.Millisecond) // pacing of the chaos
		h.cycle()
	}
	ran := time.Since(start).Round(time.Millisecond)
	close(stop)
	wg.Wait()
	h.finish()
	for _, v := range minimumWork(h.counts(dur)) {
		h.violate("%s", v)
	}
	line := h.summary(dur, ran)
	t.Log(line)
	if long {
		fmt.Println(line)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, v := range h.viol {
		t.Error(v)
	}
}

// chaosCounts is how much work a chaos run did.
type chaosCounts struct {
	dur                                       time.Duration
	cycles, writerKills, readerKills, stops   int
	writesAcked, runsAcked, runsSucceeded     int
	reads, takeovers, exactChecked, exactSkip int
	supervisorKills, handovers, killAdopted   int
}

// enough says whether the chaos did the work minimumWork asks of a run of dur, in what it
// drives itself: writer kills, exact kills, acknowledged writes and reads. (Runs that
// succeeded and takeovers are counted at the end.)
func (h *chaos) enough(dur time.Duration) bool {
	c := h.counts(dur)
	c.runsSucceeded, c.takeovers = 1<<30, 1<<30
	return len(minimumWork(c)) == 0
}

func (h *chaos) counts(dur time.Duration) chaosCounts {
	writes, open, reads, terms, _ := h.lin.counts()
	h.mu.Lock()
	defer h.mu.Unlock()
	return chaosCounts{dur: dur, cycles: h.cycles, writerKills: h.kills, readerKills: h.rkills, stops: h.stops,
		writesAcked: writes - open, runsAcked: len(h.ackedRuns), runsSucceeded: h.succeeded, reads: reads,
		takeovers: terms, exactChecked: len(h.exact), exactSkip: h.exactSkip, supervisorKills: h.supKills, handovers: h.handovers,
		killAdopted: h.killAdopted}
}

// Minimum work per 5 seconds of chaos, measured on a loaded 2-core machine (two cores,
// four busy loops beside the test) with margin; see minimumWork.
const (
	minWriterKillsPer5s = 3
	minWritesPer5s      = 100
	minRunsPer5s        = 5
	minReadsPer5s       = 50
	minSupKillsPer5s    = 1
	minHandoversPer5s   = 1
	minKillAdoptsPer5s  = 1
)

// minimumWork says what a run fell short of: a run in which nothing was killed, little
// was written or read, or no run ran has checked nothing, however clean it looks. Each
// writer kill must have led to a takeover (a hand-over is one more), at least one kill
// must have been exact (its reap set checked), supervisors must have been killed,
// hand-overs made, and runs adopted by the takeovers after writer kills.
func minimumWork(c chaosCounts) []string {
	f := c.dur.Seconds() / 5
	if f < 1 {
		f = 1
	}
	need := func(per5s int) int { return int(float64(per5s) * f) }
	// Throughput, not events: under the race detector every window runs several times
	// slower (measured: 175 acknowledged writes in 36 s beside four busy loops).
	throughput := func(per5s int) int {
		if raceBuild {
			return need(per5s) / 5
		}
		return need(per5s)
	}
	var out []string
	short := func(what string, got, want int) {
		if got < want {
			out = append(out, fmt.Sprintf("not enough work: %s=%d, at least %d expected in %s of chaos", what, got, want, c.dur))
		}
	}
	short("writer_kills", c.writerKills, max(1, need(minWriterKillsPer5s)))
	short("writes_acked", c.writesAcked, throughput(minWritesPer5s))
	short("runs_succeeded", c.runsSucceeded, need(minRunsPer5s))
	short("reads", c.reads, throughput(minReadsPer5s))
	short("exact_kills", c.exactChecked, 1)
	short("takeovers", c.takeovers, c.writerKills+c.handovers+1)
	short("supervisor_kills", c.supervisorKills, max(1, need(minSupKillsPer5s)))
	short("handovers", c.handovers, max(1, need(minHandoversPer5s)))
	short("adopted_at_takeover", c.killAdopted, max(1, need(minKillAdoptsPer5s)))
	return out
}

// spawn starts a window and adds it to the live set.
func (h *chaos) spawn(opts ...childOpt) *chaosWin {
	return h.addWin(func() *child { return startChild(h.t, h.home, opts...) })
}

// addWin starts a window with start and adds it to the live set.
func (h *chaos) addWin(start func() *child) *chaosWin {
	w := &chaosWin{spawned: time.Now()}
	w.c = start()
	h.mu.Lock()
	h.wins = append(h.wins, w)
	h.live = append(h.live, w)
	h.mu.Unlock()
	return w
}

// lastRole returns the role of the newest role event of c ("" if none).
func lastRole(c *child) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.events) - 1; i >= 0; i-- {
		if c.events[i]["event"] == "role" {
			return fmt.Sprint(c.events[i]["role"])
		}
	}
	return ""
}

// writer returns the live window whose newest role event says writer, or nil.
func (h *chaos) writer() *chaosWin {
	if h.pickWriter != nil {
		return h.pickWriter()
	}
	h.mu.Lock()
	live := append([]*chaosWin(nil), h.live...)
	h.mu.Unlock()
	for _, w := range live {
		if lastRole(w.c) == "writer" {
			return w
		}
	}
	return nil
}

func (h *chaos) waitWriter(d time.Duration) *chaosWin {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if w := h.writer(); w != nil {
			return w
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

// try sends req to c and waits for its reply. sent is false when the request could not be
// sent (the window had exited: it did nothing); replied is false when it was sent but no
// reply came within timeout (the window died or stayed stopped: its outcome is unknown).
// It never fails the test: windows die under it on purpose.
func try(c *child, req map[string]any, timeout time.Duration) (r map[string]any, sent, replied bool) {
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprintf("x%d", c.nextID)
	exited := c.exited
	c.mu.Unlock()
	if exited {
		return nil, false, false
	}
	req["id"] = id
	b, _ := json.Marshal(req)
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		return nil, false, false
	}
	ok := c.waitFor(timeout, func() bool { r = c.replies[id]; return r != nil })
	c.mu.Lock()
	delete(c.replies, id) // snapshots are large: keep only the ones still awaited
	c.mu.Unlock()
	return r, true, ok
}

func slotWF(i, ver int) map[string]any {
	return map[string]any{"name": fmt.Sprintf("slot-%02d", i), "max_concurrent": 1, "on_owner_lost": "fail",
		"steps": []any{map[string]any{"name": "s", "argv": []string{"true", "v" + strconv.Itoa(ver)}}}}
}

func (h *chaos) setup() {
	w := h.waitWriter(10 * time.Second)
	if w == nil {
		h.t.Fatal("no writer among the first windows")
	}
	setupSlots(w)
	h.setupLanes(w)
}

// setupLanes adds the chaos lanes and the schedule of the sched lane through the writer w.
func (h *chaos) setupLanes(w *chaosWin) {
	for _, l := range chaosLanes {
		w.c.ok(map[string]any{"op": "add_workflow", "workflow": map[string]any{"name": l.name,
			"max_concurrent": l.max, "on_owner_lost": l.onLost,
			"steps": []any{map[string]any{"name": "s", "argv": chaosStep(h.marks, l.name, l.max, l.secs)}}}})
	}
	h.schedID, _ = w.c.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "sched", "every": "1s", "overlap": "skip"}})["schedule"].(string)
}

// setupSlots adds the slot workflows at version 0 through the writer w.
func setupSlots(w *chaosWin) {
	for i := 0; i < chaosSlots; i++ {
		w.c.ok(map[string]any{"op": "add_workflow", "workflow": slotWF(i, 0)})
	}
}

// client writes to whoever is the writer: versioned rewrites of the slot workflows and,
// now and then, a run. Every ok reply is an acknowledged write.
func (h *chaos) client(stop <-chan struct{}, rng *rand.Rand) {
	lastRun := time.Now()
	for {
		select {
		case <-stop:
			return
		default:
		}
		w := h.writer()
		if w == nil {
			t0 := time.Now()
			time.Sleep(2 * time.Millisecond) // polls the role events for the next writer
			h.mu.Lock()
			h.noWriter += time.Since(t0)
			h.mu.Unlock()
			continue
		}
		if time.Since(lastRun) > 120*time.Millisecond && h.queued() < 6 {
			lastRun = time.Now()
			h.startRun(w, chaosLanes[rng.Intn(chaosClientLanes)].name)
			continue
		}
		h.mu.Lock()
		slot := rng.Intn(chaosSlots)
		h.nextVer++
		ver := h.nextVer
		h.mu.Unlock()
		h.writeSlot(w, slot, ver)
		time.Sleep(time.Duration(rng.Intn(4)) * time.Millisecond) // pacing, not synchronisation
	}
}

// reader reads the document through whoever is the writer, beside the writing client, so
// reads and writes overlap in the history.
func (h *chaos) reader(stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-time.After(5 * time.Millisecond): // pacing, not synchronisation
		}
		if w := h.writer(); w != nil {
			h.readMu.Lock()
			h.readSnap(w, linReaderClient)
			h.readMu.Unlock()
		}
	}
}

// writeSlot writes version ver of slot through w and records it: acknowledged, refused
// (read_only: it did nothing, unless refusedMaybe) or unknown (no reply, or an unexpected
// error). It returns whether the write was acknowledged.
func (h *chaos) writeSlot(w *chaosWin, slot, ver int) bool {
	call := time.Now()
	r, sent, replied := try(w.c, map[string]any{"op": "update_workflow", "workflow": slotWF(slot, ver)}, 10*time.Second)
	ret := time.Now()
	if !sent {
		return false
	}
	what := fmt.Sprintf("update_workflow slot-%02d v%d", slot, ver)
	acked := h.record(w, what, call, ret, r, replied, func() {
		if ver > h.ackedVer[slot] {
			h.ackedVer[slot] = ver
		}
		h.served = append(h.served, chaosServed{pid: w.c.pid, call: call, what: what})
	})
	if !replied || r["code"] != "read_only" || h.refusedMaybe { // a refused write did nothing
		h.lin.write(w.c.pid, slot, ver, call, ret, acked, uint64(toF(r["generation"])))
	}
	return acked
}

// startRun starts a run of lane through w and records an acknowledged one.
func (h *chaos) startRun(w *chaosWin, lane string) (string, bool) {
	call := time.Now()
	r, sent, replied := try(w.c, map[string]any{"op": "start_run", "workflow": lane}, 10*time.Second)
	if !sent {
		return "", false
	}
	acked := h.record(w, "start_run "+lane, call, time.Now(), r, replied, func() { h.ackedRuns = append(h.ackedRuns, fmt.Sprint(r["run"])) })
	return fmt.Sprint(r["run"]), acked
}

// readSnap reads a snapshot through w and records it if w served it as the writer.
func (h *chaos) readSnap(w *chaosWin, client int) (linSnap, bool) {
	call := time.Now()
	r, _, replied := try(w.c, map[string]any{"op": "snapshot"}, 10*time.Second)
	ret := time.Now()
	if !replied || r["ok"] != true {
		return linSnap{}, false // a read that got no reply did nothing
	}
	s, err := parseSnap(r)
	if err != nil {
		h.violate("snapshot of window %d: %v", w.c.pid, err)
		return s, false
	}
	// A snapshot says who writes as its window knows it: a window that has just handed over
	// is a reader whose view still names itself until the requester's first save reaches
	// it. The reply carries no role, so a snapshot counts as the writer's only if the
	// window had not said it was a reader before its reply (its events and replies share
	// one ordered stream, and it says so as soon as it has let state.lock go).
	if s.WriterPID != w.c.pid || lastRole(w.c) != "writer" {
		h.mu.Lock()
		h.notWriter++ // it stopped being the writer (or had not begun): a reader's view
		h.mu.Unlock()
		return s, false
	}
	h.lin.read(client, w.c.pid, call, ret, s)
	h.mu.Lock()
	h.served = append(h.served, chaosServed{pid: w.c.pid, call: call, what: fmt.Sprintf("snapshot (generation %d, epoch %d)", s.Generation, s.Epoch)})
	h.mu.Unlock()
	return s, true
}

// record counts the outcome of a write sent to w and says whether it was acknowledged.
// A write with no reply is unknown: never counted as fine, and explained at the end
// (checkUnanswered) by the harness having killed w.
func (h *chaos) record(w *chaosWin, what string, sent, gaveUp time.Time, r map[string]any, replied bool, acked func()) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !replied:
		h.unknown++
		h.unanswer = append(h.unanswer, chaosUnanswered{w: w, what: what, sent: sent, gaveUpAt: gaveUp})
	case r["ok"] == true:
		h.acked++
		acked()
		return true
	case r["code"] == "read_only":
		h.refused++ // a window that stopped being the writer, or not yet: fine
	case h.refusedMaybe && strings.Contains(fmt.Sprint(r["error"]), "etcd"):
		h.refused++ // the cluster did not answer in time: recorded as a maybe
	default:
		h.refused++
		if len(h.viol) < 200 {
			h.viol = append(h.viol, fmt.Sprintf("write refused with an unexpected error: %s sent to window %d (last role %s) at %s: %v",
				what, w.c.pid, lastRole(w.c), sent.Format("15:04:05.000000"), r))
		}
	}
	return false
}

// checkUnanswered: every request that got no reply went to a window the harness killed
// before it stopped waiting; any other silence is a hang or a crash.
func (h *chaos) checkUnanswered() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, u := range h.unanswer {
		if !u.w.killed || u.w.ended.IsZero() || u.w.ended.After(u.gaveUpAt) {
			h.viol = append(h.viol, fmt.Sprintf("no reply to %s sent to window %d at %s, and the harness had not killed it (killed=%v)",
				u.what, u.w.c.pid, u.sent.Format("15:04:05.000"), u.w.killed))
		}
	}
}

func (h *chaos) queued() int {
	h.mu.Lock()
	d := h.lastDoc
	h.mu.Unlock()
	n := 0
	if d != nil {
		for i := range d.Runs {
			if d.Runs[i].Status == store.StatusQueued {
				n++
			}
		}
	}
	return n
}

// poller checks the invariants that hold at every instant: the file parses, epoch and
// generation never go back, every acknowledged write is on disk, no lane holds more
// running runs than max_concurrent, and no step process outlives its run.
func (h *chaos) poller(stop <-chan struct{}) {
	var lastGen, lastEpoch uint64
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		case <-time.After(15 * time.Millisecond):
		}
		h.mu.Lock()
		acked := h.ackedVer
		h.mu.Unlock()
		d, ok := h.readDoc()
		if !ok {
			continue
		}
		if d.Generation < lastGen || d.Epoch < lastEpoch {
			h.violate("disk went back: generation %d epoch %d after %d/%d", d.Generation, d.Epoch, lastGen, lastEpoch)
		}
		lastGen, lastEpoch = d.Generation, d.Epoch
		h.checkAcked(d, acked, "poll")
		h.checkLanes(d)
		h.checkOutcomes(d)
		if i%4 == 0 {
			h.checkOrphans(d, false)
		}
		h.mu.Lock()
		h.lastDoc = d
		h.polls++
		h.mu.Unlock()
	}
}

// readDoc reads the home's document (workflows.json and the frames of workflows.wal that
// follow it); a workflows.json that does not parse, or a log that cannot be read, is a
// violation.
func (h *chaos) readDoc() (*store.Doc, bool) {
	data, err := os.ReadFile(filepath.Join(h.home, store.FileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		h.violate("read workflows.json: %v", err)
		return nil, false
	}
	if _, err := store.Decode(data); err != nil {
		h.violate("workflows.json does not parse: %v", err)
		return nil, false
	}
	d, err := store.ReadHome(h.home)
	if err != nil {
		h.violate("read the home: %v", err)
		return nil, false
	}
	return d, true
}

// checkAcked reports each slot whose acknowledged version is missing from d.
func (h *chaos) checkAcked(d *store.Doc, acked [chaosSlots]int, when string) (lost int) {
	for i, want := range acked {
		if want == 0 {
			continue
		}
		w := d.Workflow(fmt.Sprintf("slot-%02d", i))
		got := -1
		if w != nil && len(w.Steps) == 1 && len(w.Steps[0].Argv) == 2 {
			got, _ = strconv.Atoi(strings.TrimPrefix(w.Steps[0].Argv[1], "v"))
		}
		if got < want {
			lost++
			h.violate("%s: acknowledged write lost: slot-%02d has v%d on disk (generation %d), v%d was acknowledged", when, i, got, d.Generation, want)
		}
	}
	return lost
}

// outcomeOf is what a run's record says of its end ("" while it is active).
func outcomeOf(r *store.Run) string {
	if r.Active() {
		return ""
	}
	exit := "none"
	if r.ExitCode != nil {
		exit = strconv.Itoa(*r.ExitCode)
	}
	return fmt.Sprintf("%s (attempt %d, exit %s, ended %s): %q", r.Status, r.Attempt, exit, r.Ended.Format(time.RFC3339Nano), r.Error)
}

// checkOutcomes: a run's outcome, once on disk, never changes: not to another outcome,
// not back to queued or running (each run ends exactly once).
func (h *chaos) checkOutcomes(d *store.Doc) {
	for i := range d.Runs {
		r := &d.Runs[i]
		now := outcomeOf(r)
		h.mu.Lock()
		first, seen := h.outcome[r.ID]
		if !seen && now != "" {
			h.outcome[r.ID] = now
		}
		changed := seen && now != first && !h.changed[r.ID]
		if changed {
			h.changed[r.ID] = true // reported once; runOutcomes compares the end too
		}
		h.mu.Unlock()
		if changed {
			if now == "" {
				now = r.Status
			}
			h.violate("outcome recorded twice: run %s of %s ended %s, then (generation %d) its record says %s", r.ID, r.Workflow, first, d.Generation, now)
		}
	}
}

func (h *chaos) checkLanes(d *store.Doc) {
	for _, w := range d.Workflows {
		n := 0
		for i := range d.Runs {
			if d.Runs[i].Workflow == w.Name && d.Runs[i].Status == store.StatusRunning {
				n++
			}
		}
		if n > w.MaxConcurrent {
			h.violate("lane %s: %d running runs on disk (generation %d), max_concurrent %d", w.Name, n, d.Generation, w.MaxConcurrent)
		}
	}
}

// stepProcesses returns the live processes carrying this home's run markers, by run id.
func (h *chaos) stepProcesses() map[int]string {
	out := map[int]string{}
	homes := h.stepHomes
	if homes == nil {
		homes = []string{h.home}
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !envHasHome(env, homes) || !pidAlive(pid) {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if id, ok := bytes.CutPrefix(kv, []byte("BATON_RUN_ID=")); ok {
				out[pid] = string(id)
			}
		}
	}
	return out
}

// envHasHome says whether the NUL-separated environment env sets BATON_HOME to one of homes.
func envHasHome(env []byte, homes []string) bool {
	for _, h := range homes {
		if bytes.Contains(env, []byte("BATON_HOME="+h+"\x00")) {
			return true
		}
	}
	return false
}

// checkOrphans looks for step processes of runs that d (read before the scan) already
// records as ended. At the end (all), every step process is an orphan.
func (h *chaos) checkOrphans(d *store.Doc, all bool) {
	for pid, id := range h.stepProcesses() {
		r := d.Run(id)
		if all || (r != nil && !r.Active()) {
			if !pidAlive(pid) { // gone meanwhile
				continue
			}
			h.mu.Lock()
			seen := h.orphans[pid]
			h.orphans[pid] = true
			h.mu.Unlock()
			if !seen {
				st := "unknown"
				if r != nil {
					st = r.Status
				}
				h.violate("orphan: step process %d of run %s (%s on disk, generation %d) is alive", pid, id, st, d.Generation)
			}
		}
	}
}

// cycle is one act of chaos. Every other cycle kills the writer, every other writer kill
// is exact; every fourth kills a run's supervisor too; of the other even cycles, one in
// three is a lag takeover and one a hand-over, so every run does the work minimumWork
// asks for; the rest are drawn.
func (h *chaos) cycle() {
	h.mu.Lock()
	h.cycles++
	n, kills := h.cycles, h.kills
	h.mu.Unlock()
	if n%2 == 1 {
		h.killWriter(kills%2 == 0)
		return
	}
	if n%4 == 0 {
		h.killSupervisor()
	}
	switch n % 6 {
	case 2:
		h.lagTakeover()
		return
	case 4:
		h.handOver()
		return
	}
	switch p := h.rng.Intn(100); {
	case p < 25:
		h.killWriter(kills%2 == 0)
	case p < 50:
		h.killReader()
	case p < 75:
		h.stopAWhile()
	default:
		h.handOver()
	}
}

func (h *chaos) removeLive(w *chaosWin) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, x := range h.live {
		if x == w {
			h.live = append(h.live[:i], h.live[i+1:]...)
			break
		}
	}
	w.ended = time.Now()
}

// killWriter kills the writer with -9 and starts a replacement. With exact, the readers
// are stopped first, so the file the dead writer left can be read before anyone takes
// over: every run it had running must then be reaped (or, in the adopt lane, adopted),
// exactly once.
func (h *chaos) killWriter(exact bool) {
	w := h.waitWriter(10 * time.Second)
	if w == nil {
		h.violate("no writer for 10s (cycle %d)", h.cycles)
		return
	}
	var others []*chaosWin
	if exact {
		h.mu.Lock()
		for _, x := range h.live {
			if x != w {
				others = append(others, x)
			}
		}
		h.mu.Unlock()
		h.stopAll(others)
	}
	at := time.Now()
	h.removeLive(w)
	h.mu.Lock()
	h.kills++
	h.killedW[w.c.pid] = true
	w.killed = true
	h.mu.Unlock()
	h.readMu.Lock() // no snapshot reply is being written (see readMu)
	w.c.kill9()
	h.readMu.Unlock()
	h.lin.died(w.c.pid, time.Now())
	if exact {
		h.exactReapSet(w.c.pid, at)
		for _, x := range others {
			_ = x.c.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	h.spawn()
	if nw := h.waitWriter(10 * time.Second); nw == nil {
		h.violate("no window took over within 10s of kill -9 of writer %d", w.c.pid)
	} else {
		h.noteAdopted(nw)
	}
}

// noteAdopted counts the runs that w's last takeover (after a kill) adopted.
func (h *chaos) noteAdopted(w *chaosWin) {
	evs := w.c.eventsCopy()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i]["event"] == "role" && evs[i]["role"] == "writer" {
			h.mu.Lock()
			h.killAdopted += len(eventList(evs[i], "adopted"))
			h.mu.Unlock()
			return
		}
	}
}

// exactReapSet reads the file the killed writer pid left while every other window is
// stopped: the runs running in it are the reap set of the next takeover. A file that
// cannot be read or that does not name pid as its writer is a violation, never a skip.
func (h *chaos) exactReapSet(pid int, at time.Time) {
	d, ok := h.readDoc()
	why := ""
	switch {
	case !ok:
		why = "workflows.json cannot be read"
	case d.Writer == nil || d.Writer.PID != pid:
		why = fmt.Sprintf("workflows.json (generation %d) names writer %v", d.Generation, d.Writer)
	}
	if why != "" {
		h.mu.Lock()
		h.exactSkip++
		h.mu.Unlock()
		h.violate("exact kill of writer %d: its reap set cannot be known: %s", pid, why)
		return
	}
	left := map[string]string{}
	for i := range d.Runs {
		if r := &d.Runs[i]; r.Status == store.StatusRunning {
			left[r.ID] = r.Workflow
			if r.OwnerPID != pid {
				h.violate("exact kill of writer %d: run %s is running under pid %d in its file (generation %d)", pid, r.ID, r.OwnerPID, d.Generation)
			}
		}
	}
	h.mu.Lock()
	h.expected[pid] = left
	h.exact = append(h.exact, chaosExact{pid: pid, at: at, runs: left})
	h.mu.Unlock()
}

// checkExactReaps: the first takeover after each exact kill reaped, by its own writer
// role event, exactly the runs the killed writer left running.
func (h *chaos) checkExactReaps() {
	h.mu.Lock()
	exact := append([]chaosExact(nil), h.exact...)
	wins := append([]*chaosWin(nil), h.wins...)
	h.mu.Unlock()
	for _, x := range exact {
		var first map[string]any
		var firstAt time.Time
		firstPID := 0
		for _, w := range wins {
			w.c.mu.Lock()
			for i, e := range w.c.events {
				if e["event"] == "role" && e["role"] == "writer" && w.c.eventAt[i].After(x.at) {
					if first == nil || w.c.eventAt[i].Before(firstAt) {
						first, firstAt, firstPID = e, w.c.eventAt[i], w.c.pid
					}
					break
				}
			}
			w.c.mu.Unlock()
		}
		if first == nil {
			h.violate("exact kill of writer %d: no takeover followed", x.pid)
			continue
		}
		got, adopted := map[string]bool{}, map[string]bool{}
		for _, id := range eventList(first, "reaped") {
			got[id] = true
		}
		for _, id := range eventList(first, "adopted") {
			got[id], adopted[id] = true, true
		}
		for id, wf := range x.runs {
			onLost, _ := chaosLaneOf(wf)
			switch {
			case !got[id]:
				h.violate("exact kill of writer %d: run %s of %s was running in its file, but the takeover by %d (epoch %v) neither reaped nor adopted it (reaped %v, adopted %v)",
					x.pid, id, wf, firstPID, first["epoch"], first["reaped"], first["adopted"])
			case adopted[id] && onLost != "adopt":
				h.violate("exact kill of writer %d: the takeover by %d (epoch %v) adopted run %s of %s (on_owner_lost %s), which a lost owner fails or re-queues",
					x.pid, firstPID, first["epoch"], id, wf, onLost)
			}
		}
		for id := range got {
			if _, ok := x.runs[id]; !ok {
				h.violate("exact kill of writer %d: the takeover by %d (epoch %v) reaped or adopted run %s, which was not running in the file it read",
					x.pid, firstPID, first["epoch"], id)
			}
		}
	}
}

// recordTakeovers adds every writer role event of every window to the history: the term
// began after the window was started and was done when the event was read.
func (h *chaos) recordTakeovers() {
	h.mu.Lock()
	wins := append([]*chaosWin(nil), h.wins...)
	h.mu.Unlock()
	for _, w := range wins {
		w.c.mu.Lock()
		for i, e := range w.c.events {
			if e["event"] == "role" && e["role"] == "writer" {
				h.lin.takeover(w.c.pid, uint64(toF(e["epoch"])), w.spawned, w.c.eventAt[i])
			}
		}
		w.c.mu.Unlock()
	}
}

// stopAll SIGSTOPs the windows and waits until every thread of each is stopped: a signal
// takes effect later, and a window not yet stopped could still win state.lock.
func (h *chaos) stopAll(ws []*chaosWin) {
	for _, x := range ws {
		_ = x.c.cmd.Process.Signal(syscall.SIGSTOP)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, x := range ws {
		for !threadsStopped(x.c.pid) {
			if time.Now().After(deadline) {
				h.violate("window %d did not stop within 10s of SIGSTOP", x.c.pid)
				return
			}
			time.Sleep(time.Millisecond) // polls /proc for the state that proves the stop
		}
	}
}

// threadsStopped reports whether every thread of pid is stopped (or the process is gone).
func threadsStopped(pid int) bool {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return true
	}
	for _, e := range ents {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, e.Name()))
		if err != nil {
			continue // that thread is gone
		}
		i := bytes.LastIndexByte(b, ')') // the state follows the command name
		if i < 0 || i+2 >= len(b) {
			return false
		}
		switch b[i+2] {
		case 'T', 't', 'Z', 'X':
		default:
			return false
		}
	}
	return true
}

// lagTakeover makes a window take over from a copy a whole writer term old, if it skips
// its re-read: reader R is stopped and its folder watch flooded (the writer frozen
// meanwhile); the writer is killed;
// the next writer works a while and is killed too, while every other window is stopped,
// so R takes over. With its re-read R bumps the newest epoch and reaps the last writer's
// runs; without it, it would reuse the last writer's epoch and reap again what that one
// reaped (see TestChaosCatchesSkippedReread).
func (h *chaos) lagTakeover() {
	h.mu.Lock()
	var rs []*chaosWin
	for _, x := range h.live {
		if lastRole(x.c) == "reader" {
			rs = append(rs, x)
		}
	}
	h.mu.Unlock()
	if len(rs) == 0 {
		return
	}
	r := rs[h.rng.Intn(len(rs))]
	// The writer is frozen meanwhile, so every event of the flood comes before any later
	// save's: R's watch has the whole flood to drain before it learns of a change.
	w1 := h.waitWriter(10 * time.Second)
	if w1 == nil {
		h.violate("no writer for 10s (cycle %d)", h.cycles)
		return
	}
	h.stopAll([]*chaosWin{w1})
	h.stopAll([]*chaosWin{r})
	floodWatch(h.t, h.home)
	_ = w1.c.cmd.Process.Signal(syscall.SIGCONT)
	h.killWriter(false)
	// The next writer works a while: wait for a few acknowledged writes (or give up).
	h.mu.Lock()
	want := h.acked + 5
	h.mu.Unlock()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		h.mu.Lock()
		done := h.acked >= want
		h.mu.Unlock()
		if done {
			break
		}
	}
	w := h.waitWriter(10 * time.Second)
	if w == nil {
		_ = r.c.cmd.Process.Signal(syscall.SIGCONT)
		return // killWriter said so
	}
	h.mu.Lock()
	var others []*chaosWin
	for _, x := range h.live {
		if x != w && x != r {
			others = append(others, x)
		}
	}
	h.mu.Unlock()
	h.stopAll(others)
	from := r.c.nEvents()
	h.removeLive(w)
	h.mu.Lock()
	h.kills++
	h.killedW[w.c.pid] = true
	w.killed = true
	h.mu.Unlock()
	h.readMu.Lock() // no snapshot reply is being written (see readMu)
	w.c.kill9()
	h.readMu.Unlock()
	h.lin.died(w.c.pid, time.Now())
	_ = r.c.cmd.Process.Signal(syscall.SIGCONT)
	if !r.c.waitFor(10*time.Second, func() bool {
		for _, e := range r.c.events[from:] {
			if e["event"] == "role" && e["role"] == "writer" {
				return true
			}
		}
		return false
	}) {
		h.violate("lag takeover: window %d, the only one not stopped, did not take over within 10s of kill -9 of writer %d; its events since: %v",
			r.c.pid, w.c.pid, r.c.eventsCopy()[from:])
	}
	for _, x := range others {
		_ = x.c.cmd.Process.Signal(syscall.SIGCONT)
	}
	for _, e := range r.c.eventsCopy()[from:] {
		if e["event"] == "role" && e["role"] == "writer" {
			h.t.Logf("lag takeover: window %d took over from writer %d with epoch %v, reaped %v, adopted %v", r.c.pid, w.c.pid, e["epoch"], e["reaped"], e["adopted"])
			h.mu.Lock()
			h.killAdopted += len(eventList(e, "adopted"))
			h.mu.Unlock()
		}
	}
	h.spawn()
}

// supervisorOf says whether pid is a supervisor (the test binary's hidden mode) of run id.
func supervisorOf(pid int, id string) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return false
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	return len(args) >= 3 && args[1] == workflow.SuperviseArg && (args[len(args)-1] == id || args[2] == workflow.SpareArg)
}

// killSupervisor kill -9s the supervisor of a random running run while its window (the
// writer) lives, then waits (15 s at most) for the run's outcome, which runOutcomes checks
// at the end: failed, naming that supervisor pid; or, if the step had already ended when
// the kill landed (its end mark is there), succeeded from the journal.
func (h *chaos) killSupervisor() {
	d, ok := h.readDoc()
	if !ok {
		return
	}
	var cands []store.Run
	for i := range d.Runs {
		r := d.Runs[i]
		if r.Status == store.StatusRunning && r.SupervisorPID > 0 && proc.Alive(r.SupervisorPID, r.SupervisorStart) && supervisorOf(r.SupervisorPID, r.ID) {
			cands = append(cands, r)
		}
	}
	if len(cands) == 0 {
		return
	}
	r := cands[h.rng.Intn(len(cands))]
	pid := r.SupervisorPID
	h.mu.Lock()
	h.supKills++
	h.supKilled[r.ID] = pid
	h.mu.Unlock()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		h.violate("kill -9 of supervisor %d of run %s: %v", pid, r.ID, err)
		return
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := h.runRecord(r.ID)
		if got != nil && (got.Status != store.StatusRunning || got.Attempt != r.Attempt) {
			h.countSupKilled(got)
			return
		}
		if time.Now().After(deadline) {
			h.violate("wedged: run %s of %s still running 15s after kill -9 of its supervisor pid %d (owner pid %d)", r.ID, r.Workflow, pid, r.OwnerPID)
			return
		}
		time.Sleep(10 * time.Millisecond) // polls the file, which proves the outcome
	}
}

// countSupKilled counts a run whose supervisor was killed after its step had ended (it
// succeeded); runOutcomes judges every such run at the end.
func (h *chaos) countSupKilled(r *store.Run) {
	if r.Status == store.StatusSucceeded {
		h.mu.Lock()
		h.supRaced++
		h.mu.Unlock()
	}
}

// runRecord returns run id as the document has it, or the archive once it left the
// document (nil if neither has it).
func (h *chaos) runRecord(id string) *store.Run {
	if d, ok := h.readDoc(); ok {
		if r := d.Run(id); r != nil {
			return r
		}
	}
	for _, r := range h.allRuns() {
		if r.ID == id {
			return &r
		}
	}
	return nil
}

// handOver asks a random reader to write (request_write) while the client goes on writing
// to whoever is the writer. The reply must be writer with a higher epoch; the requester
// then reports writer (adopting every running run) and the old writer reports reader and
// lives on.
func (h *chaos) handOver() {
	h.mu.Lock()
	var rs []*chaosWin
	for _, x := range h.live {
		if lastRole(x.c) == "reader" {
			rs = append(rs, x)
		}
	}
	h.mu.Unlock()
	old := h.waitWriter(10 * time.Second)
	if len(rs) == 0 || old == nil {
		return
	}
	r := rs[h.rng.Intn(len(rs))]
	fromR, fromOld := r.c.nEvents(), old.c.nEvents()
	reply, _, replied := try(r.c, map[string]any{"op": "request_write"}, HandoverTimeout+10*time.Second)
	switch {
	case !replied:
		h.violate("no reply to request_write sent to reader %d within %s", r.c.pid, HandoverTimeout+10*time.Second)
		return
	case reply["ok"] != true || reply["role"] != "writer":
		h.violate("request_write to reader %d (writer %d, every window alive and running) was refused: %v", r.c.pid, old.c.pid, reply)
		return
	}
	var ev map[string]any
	if !r.c.waitFor(10*time.Second, func() bool {
		for _, e := range r.c.events[fromR:] {
			if e["event"] == "role" && e["role"] == "writer" {
				ev = e
				return true
			}
		}
		return false
	}) {
		h.violate("hand-over: window %d answered writer (epoch %v) but reported no writer role within 10s", r.c.pid, reply["epoch"])
		return
	}
	if toF(ev["epoch"]) != toF(reply["epoch"]) {
		h.violate("hand-over: window %d answered epoch %v, its writer event says %v", r.c.pid, reply["epoch"], ev["epoch"])
	}
	if !old.c.waitFor(10*time.Second, func() bool {
		for _, e := range old.c.events[fromOld:] {
			if e["event"] == "role" && e["role"] == "reader" {
				return true
			}
		}
		return false
	}) {
		h.violate("hand-over: the old writer %d reported no reader role within 10s of window %d taking over", old.c.pid, r.c.pid)
	}
	adopted := eventList(ev, "adopted")
	h.mu.Lock()
	h.handovers++
	h.hoAdopted += len(adopted)
	h.mu.Unlock()
	h.t.Logf("hand-over: window %d took over from %d with epoch %v, adopted %v, settled %v", r.c.pid, old.c.pid, ev["epoch"], adopted, ev["reaped"])
}

func (h *chaos) killReader() {
	h.mu.Lock()
	var rs []*chaosWin
	for _, x := range h.live {
		if lastRole(x.c) == "reader" {
			rs = append(rs, x)
		}
	}
	h.mu.Unlock()
	if len(rs) == 0 {
		return
	}
	w := rs[h.rng.Intn(len(rs))]
	h.removeLive(w)
	h.mu.Lock()
	h.rkills++
	w.killed = true
	h.mu.Unlock()
	w.c.kill9()
	h.lin.died(w.c.pid, time.Now())
	h.spawn()
}

// stopAWhile freezes a window (the writer half the time) with SIGSTOP, then thaws it.
// A frozen writer still holds the lock: nobody may take over meanwhile.
func (h *chaos) stopAWhile() {
	h.mu.Lock()
	if len(h.live) == 0 {
		h.mu.Unlock()
		return
	}
	w := h.live[h.rng.Intn(len(h.live))]
	h.stops++
	h.mu.Unlock()
	if x := h.writer(); x != nil && h.rng.Intn(2) == 0 {
		w = x
	}
	_ = w.c.cmd.Process.Signal(syscall.SIGSTOP)
	time.Sleep(time.Duration(100+h.rng.Intn(700)) * time.Millisecond)
	_ = w.c.cmd.Process.Signal(syscall.SIGCONT)
}

// finish lets the lanes drain, then checks everything once more: acknowledged writes and
// runs, wedged lanes, orphans, reaps, duplicate runs, roles and epochs, stale temp files.
func (h *chaos) finish() {
	w := h.waitWriter(15 * time.Second)
	if w == nil {
		h.violate("no writer at the end")
		return
	}
	// The schedule due every second would go on starting runs after the document below
	// is read, and their steps would look like orphans of runs it does not know (1 in 7
	// runs of .ci/run): paused, it starts none, and what it started is in the document.
	if h.schedID != "" {
		w.c.ok(map[string]any{"op": "pause_schedule", "schedule": h.schedID})
	}
	var d *store.Doc
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ok bool
		d, ok = h.readDoc()
		if ok && activeRuns(d) == 0 {
			break
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if d == nil {
		h.violate("no document at the end")
		return
	}
	h.mu.Lock()
	acked := h.ackedVer
	ackedRuns := append([]string(nil), h.ackedRuns...)
	h.mu.Unlock()
	h.checkAcked(d, acked, "end")
	wedged := map[string]bool{}
	for i := range d.Runs {
		if r := &d.Runs[i]; r.Active() {
			wedged[r.Workflow] = true
			h.violate("wedged: run %s of %s still %s 30s after the chaos stopped (owner pid %d)", r.ID, r.Workflow, r.Status, r.OwnerPID)
		}
	}
	h.checkOrphans(d, len(wedged) == 0)
	h.checkRuns(d, ackedRuns)
	h.checkReaps()
	h.checkExactReaps()
	h.checkRoles()
	h.checkUnanswered()
	h.checkHistory()
	h.checkTemps(false)
	// Everyone closes gracefully.
	h.mu.Lock()
	live := append([]*chaosWin(nil), h.live...)
	h.live = nil
	h.mu.Unlock()
	for _, x := range live {
		if err := x.c.close(); err != nil {
			h.violate("window %d did not close cleanly: %v", x.c.pid, err)
		}
		x.ended = time.Now()
	}
	if _, ok := h.readDoc(); !ok {
		h.violate("no readable document after everyone closed")
	}
	h.checkTemps(true)
}

// checkTemps looks for temp files of saves. While windows live, a live window's temp file
// may be a save in progress; one whose creator is dead should have been removed by the
// takeover that followed its death. Once every window has closed, none may be left.
func (h *chaos) checkTemps(allClosed bool) {
	ents, _ := filepath.Glob(filepath.Join(h.home, ".baton-tmp-*"))
	for _, e := range ents {
		pid := tempCreatorPID(filepath.Base(e))
		h.mu.Lock()
		var win *chaosWin
		for _, w := range h.wins {
			if w.c.pid == pid {
				win = w
			}
		}
		h.mu.Unlock()
		switch {
		case allClosed:
			h.violate("temp file %s left after every window closed (creator pid %d)", filepath.Base(e), pid)
		case win == nil:
			h.violate("temp file %s of pid %d, no window of this run, left after the last takeover", filepath.Base(e), pid)
		case win.killed:
			h.violate("temp file %s of window %d, killed at %s, left after the last takeover", filepath.Base(e), pid, win.ended.Format("15:04:05.000"))
		}
	}
}

// tempCreatorPID reads the creator's pid in a temp file's name,
// .baton-tmp-<base>-<pid>[.<start>.<boot>]-<nanos> (0 if it cannot).
func tempCreatorPID(name string) int {
	rest := strings.TrimPrefix(name, ".baton-tmp-")
	i := strings.LastIndexByte(rest, '-')
	if i < 0 {
		return 0
	}
	j := strings.LastIndexByte(rest[:i], '-')
	tag, _, _ := strings.Cut(rest[j+1:i], ".")
	pid, _ := strconv.Atoi(tag)
	return pid
}

func activeRuns(d *store.Doc) int {
	n := 0
	for i := range d.Runs {
		if d.Runs[i].Active() {
			n++
		}
	}
	return n
}

// allRuns returns every run of the home, the live document's and the archived ones.
func (h *chaos) allRuns() []store.Run {
	st := store.New(h.home, store.Options{})
	_, _ = st.Reload()
	var out []store.Run
	q := store.HistoryQuery{Limit: store.MaxHistoryLimit}
	for {
		p, err := st.History(q)
		if err != nil {
			h.violate("history: %v", err)
			return out
		}
		out = append(out, p.Runs...)
		if p.Next == 0 {
			return out
		}
		q.Before = p.Next
	}
}

// checkRuns: every acknowledged run exists; no occurrence of a schedule has two runs; no
// run executed twice at once; no lane held too many runs; each run has one record and the
// outcome first seen on disk, started no more than its lane allows, and ended as its lane
// and the chaos it met say (runOutcomes).
func (h *chaos) checkRuns(d *store.Doc, acked []string) {
	var runs []store.Run
	if h.runsOf != nil {
		runs = h.runsOf()
	} else {
		runs = h.allRuns()
	}
	have := map[string]bool{}
	occ := map[string]string{}
	succeeded, adoptOK := 0, 0
	for _, r := range runs {
		have[r.ID] = true
		if r.Status == store.StatusSucceeded {
			succeeded++
			if onLost, _ := chaosLaneOf(r.Workflow); onLost == "adopt" {
				adoptOK++
			}
		}
		if r.Schedule != "" {
			k := r.Schedule + "@" + r.Due.String()
			if prev, dup := occ[k]; dup {
				h.violate("duplicate run: occurrence %s has runs %s and %s", k, prev, r.ID)
			}
			occ[k] = r.ID
		}
	}
	h.mu.Lock()
	h.succeeded, h.adoptOK = succeeded, adoptOK
	killedW := make(map[int]bool, len(h.killedW))
	for pid := range h.killedW {
		killedW[pid] = true
	}
	m := chaosMarks{starts: map[string]int{}, ends: map[string]int{}, supKilled: map[string]int{}, outcome: map[string]string{}, lost: map[string]bool{}}
	lostPID := h.lostPID
	if h.lostRun != nil {
		for i := range runs {
			m.lost[runs[i].ID] = h.lostRun(&runs[i])
		}
	}
	for id, pid := range h.supKilled {
		m.supKilled[id] = pid
	}
	for id, o := range h.outcome {
		m.outcome[id] = o
	}
	h.mu.Unlock()
	for _, id := range acked {
		if !have[id] {
			h.violate("acknowledged run %s is missing from the document and the archive", id)
		}
	}
	for _, l := range lines(filepath.Join(h.marks, "double")) {
		h.violate("duplicate run: a run executed twice at once: %s", l)
	}
	for _, l := range lines(filepath.Join(h.marks, "over")) {
		h.violate("lane over max_concurrent (seen by a step): %s", l)
	}
	for _, l := range lines(filepath.Join(h.marks, "starts")) {
		id, _, _ := strings.Cut(l, " ")
		m.starts[id]++
	}
	for _, l := range lines(filepath.Join(h.marks, "ends")) {
		m.ends[l]++
	}
	for _, v := range runOutcomes(runs, m, func(pid int) bool { return killedW[pid] || (lostPID != nil && lostPID(pid)) }) {
		h.violate("%s", v)
	}
	for _, v := range checkRunEvents(h.children(), runs) {
		h.violate("%s", v)
	}
}

// chaosMarks is what the chaos knows of the runs besides their records: the step starts
// and ends its marks files counted per run, the supervisors it killed (run -> pid) and the
// first outcome the poller saw on disk; lost are the runs whose owner lost the home (an
// etcd home's machine cut off: their supervisors kill their steps).
type chaosMarks struct {
	starts, ends map[string]int
	supKilled    map[string]int
	outcome      map[string]string
	lost         map[string]bool
}

// runOutcomes checks the runs' records (document and archive) at the end of the chaos:
//   - each run has one record, whose outcome is the first one seen on disk;
//   - a run's step started at most once per attempt, and at most once in all for a lane
//     that is not on_owner_lost "requeue" (fail: a lost owner fails it; adopt: the next
//     writer adopts it); a run that succeeded had its step start and end;
//   - a run whose supervisor was killed while its window lived failed naming that pid
//     (or succeeded, its step having ended before the kill);
//   - a run of the adopt lane succeeded: its writer's kill or hand-over never ends it.
//     It may fail only as above, or if its writer was killed before its supervisor was
//     up (the error names that killed writer and no supervisor, and no step started).
//   - a run failed naming an owner window names one the chaos killed.
func runOutcomes(runs []store.Run, m chaosMarks, killed func(pid int) bool) []string {
	var out []string
	records := map[string]int{}
	for _, r := range runs {
		records[r.ID]++
	}
	for i := range runs {
		r := &runs[i]
		if n := records[r.ID]; n > 1 {
			out = append(out, fmt.Sprintf("outcome recorded twice: run %s has %d records in the document and the archive", r.ID, n))
			records[r.ID] = 0 // once
		}
		if r.Active() {
			continue // finish reports it wedged
		}
		now := outcomeOf(r)
		if first, ok := m.outcome[r.ID]; ok && first != now {
			out = append(out, fmt.Sprintf("outcome recorded twice: run %s of %s was first seen ended %s, its record says %s", r.ID, r.Workflow, first, now))
		}
		onLost, lane := chaosLaneOf(r.Workflow)
		starts := m.starts[r.ID]
		if lane && starts > max(r.Attempt, 1) {
			out = append(out, fmt.Sprintf("duplicate run: run %s of %s started its step %d times in %d attempts", r.ID, r.Workflow, starts, r.Attempt))
		}
		if lane && onLost != "requeue" && starts > 1 {
			out = append(out, fmt.Sprintf("duplicate run: run %s of %s (on_owner_lost %s) started its step %d times", r.ID, r.Workflow, onLost, starts))
		}
		if lane && r.Status == store.StatusSucceeded && (starts == 0 || m.ends[r.ID] == 0) {
			out = append(out, fmt.Sprintf("run %s of %s recorded succeeded, but its step started %d times and ended %d times", r.ID, r.Workflow, starts, m.ends[r.ID]))
		}
		owner := 0
		if k := strings.Index(r.Error, "owner window pid "); k >= 0 {
			fmt.Sscanf(r.Error[k+len("owner window pid "):], "%d", &owner)
			if !killed(owner) {
				out = append(out, fmt.Sprintf("run %s was reaped from pid %d, which was never killed: %s", r.ID, owner, r.Error))
			}
		}
		if pid, ok := m.supKilled[r.ID]; ok {
			switch {
			case r.Status == store.StatusFailed && strings.Contains(r.Error, fmt.Sprintf("supervisor pid %d died", pid)):
			case r.Status == store.StatusSucceeded && m.ends[r.ID] > 0:
			default:
				out = append(out, fmt.Sprintf("run %s of %s, whose supervisor pid %d was killed while its window lived, ended %s, not failed naming that supervisor",
					r.ID, r.Workflow, pid, now))
			}
			continue
		}
		if onLost == "adopt" && r.Status != store.StatusSucceeded {
			if r.Status == store.StatusFailed && owner != 0 && killed(owner) && !strings.Contains(r.Error, "supervisor") && starts == 0 {
				continue // its writer died between claiming it and starting its supervisor
			}
			if r.Status == store.StatusFailed && m.lost[r.ID] {
				continue // its machine was cut off from the home: its supervisor killed its step
			}
			out = append(out, fmt.Sprintf("adopt run %s ended %s, its step having started %d times and ended %d times: a run whose supervisor lives must be adopted by the next writer and succeed",
				r.ID, now, starts, m.ends[r.ID]))
		}
	}
	return out
}

// checkRunEvents: every window saw each run end at most once, and with its final
// outcome: no window saw a run change after it ended (a second record of its end).
func checkRunEvents(cs []*child, runs []store.Run) []string {
	final := map[string]string{}
	for _, r := range runs {
		final[r.ID] = r.Status
	}
	var out []string
	for _, c := range cs {
		ended := map[string]string{}
		c.mu.Lock()
		for _, e := range c.events {
			if e["event"] != "run" {
				continue
			}
			id, st := fmt.Sprint(e["run"]), fmt.Sprint(e["status"])
			if prev, ok := ended[id]; ok {
				out = append(out, fmt.Sprintf("outcome recorded twice: window %d saw run %s end %s, then become %s (%v)", c.pid, id, prev, st, e["error"]))
				continue
			}
			if st == store.StatusQueued || st == store.StatusRunning {
				continue
			}
			ended[id] = st
			if f, ok := final[id]; ok && f != st {
				out = append(out, fmt.Sprintf("outcome recorded twice: window %d saw run %s end %s, its record says %s", c.pid, id, st, f))
			}
		}
		c.mu.Unlock()
	}
	return out
}

// chaosTerm is one writer term as the windows' role events tell it: it began when its
// writer event was read, and ended when the window's next role event was read or, for a
// window killed as the writer, just before its kill.
type chaosTerm struct {
	pid        int
	epoch      uint64
	start, end time.Time // end zero: still open
	byKill     bool      // ended by the chaos's kill -9 of the window
}

// terms returns every writer term of every window, by start.
func (h *chaos) terms() []chaosTerm {
	h.mu.Lock()
	wins := append([]*chaosWin(nil), h.wins...)
	h.mu.Unlock()
	var terms []chaosTerm
	for _, w := range wins {
		c := w.c
		c.mu.Lock()
		var cur *chaosTerm
		for i, e := range c.events {
			if e["event"] != "role" {
				continue
			}
			if cur != nil { // a role event after a writer event ends that term...
				if e["role"] != "writer" { // ...but a second writer event leaves it open
					cur.end = c.eventAt[i]
				}
				terms = append(terms, *cur)
				cur = nil
			}
			if e["role"] == "writer" {
				cur = &chaosTerm{pid: c.pid, start: c.eventAt[i], epoch: uint64(toF(e["epoch"]))}
			}
		}
		if cur != nil {
			cur.end = w.ended // zero (open) if still alive
			cur.byKill = w.killed
			terms = append(terms, *cur)
		}
		c.mu.Unlock()
	}
	sort.Slice(terms, func(i, j int) bool { return terms[i].start.Before(terms[j].start) })
	return terms
}

// ownerTerm returns the term of window pid that a reap in epoch names as the run's owner:
// the last one it began before that epoch (nil if it never wrote before it).
func ownerTerm(terms []chaosTerm, pid int, epoch uint64) *chaosTerm {
	var best *chaosTerm
	for i := range terms {
		if t := &terms[i]; t.pid == pid && t.epoch < epoch && (best == nil || t.epoch > best.epoch) {
			best = t
		}
	}
	return best
}

// checkReaps: every (run, owner's term) is settled at most once, only terms that ended are
// settled, a term that ended by a hand-over (its window alive) has its runs adopted or
// recorded from their journal, never failed or re-queued, an adopt run is never killed
// while its supervisor lives, and each exact kill's running runs were all reaped.
func (h *chaos) checkReaps() {
	entries, err := store.NewAudit(h.home).Read(0)
	if err != nil {
		h.violate("audit: %v", err)
	}
	terms := h.terms()
	seen := map[string]int{}
	byOwner := map[int]map[string]bool{}
	for _, e := range entries {
		if e.Kind != "reap" {
			continue
		}
		run := fmt.Sprint(e.Data["run"])
		owner := int(toF(e.Data["owner_pid"]))
		epoch := uint64(toF(e.Data["epoch"]))
		action, wf := fmt.Sprint(e.Data["action"]), fmt.Sprint(e.Data["workflow"])
		if byOwner[owner] == nil {
			byOwner[owner] = map[string]bool{}
		}
		byOwner[owner][run] = true
		t := ownerTerm(terms, owner, epoch)
		h.mu.Lock()
		killed := h.killedW[owner]
		h.mu.Unlock()
		switch {
		case t == nil:
			seen[fmt.Sprintf("%s/%d", run, owner)]++
			if !killed {
				h.violate("reap of run %s (epoch %d, %s) names owner %d, which never wrote before and was never killed (evidence %v)", run, epoch, action, owner, e.Data["evidence"])
			}
			continue
		case t.byKill:
		case t.end.IsZero():
			h.violate("reap of run %s (epoch %d, %s) names owner %d, whose writer term (epoch %d) never ended (evidence %v)", run, epoch, action, owner, t.epoch, e.Data["evidence"])
		case action != workflow.ActionAdopted && action != workflow.ActionRecorded:
			h.violate("run %s of %s was %s (epoch %d) from owner %d, whose term (epoch %d) ended alive (a hand-over adopts every running run whose supervisor lives, and none was being killed; evidence %v; the whole reap record: %v)",
				run, wf, action, epoch, owner, t.epoch, e.Data["evidence"], e.Data)
		}
		seen[fmt.Sprintf("%s/%d/%d", run, owner, t.epoch)]++
		// (An adopt run failed here is judged by its record: see runOutcomes.)
		if onLost, _ := chaosLaneOf(wf); onLost == "adopt" && action == workflow.ActionRequeued {
			h.violate("adopt run %s was re-queued (epoch %d) after its owner %d was lost", run, epoch, owner)
		}
	}
	for k, n := range seen {
		if n > 1 {
			h.violate("run/owner %s reaped %d times", k, n)
		}
	}
	audited := map[uint64]bool{} // epochs whose takeover record is in the audit log
	for _, e := range entries {
		if e.Kind == store.KindTakeover {
			audited[uint64(toF(e.Data["epoch"]))] = true
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for pid, runs := range h.expected {
		for id := range runs {
			if !byOwner[pid][id] && !h.reapUnaudited(id, audited) {
				h.viol = append(h.viol, fmt.Sprintf("run %s was running in killed writer %d but never reaped", id, pid))
			}
		}
	}
}

// reapUnaudited reports whether run id was reaped or adopted by a takeover whose window
// was killed before it wrote the takeover's audit records: the reap is in the document
// (the takeover's save comes first, the audit log after the writer role is reported), and
// its audit records died with the window. h.mu is held.
func (h *chaos) reapUnaudited(id string, audited map[uint64]bool) bool {
	for _, w := range h.wins {
		if !h.killedW[w.c.pid] {
			continue
		}
		w.c.mu.Lock()
		for _, e := range w.c.events {
			if e["event"] != "role" || e["role"] != "writer" || audited[uint64(toF(e["epoch"]))] {
				continue
			}
			if slices.Contains(eventList(e, "reaped"), id) || slices.Contains(eventList(e, "adopted"), id) {
				w.c.mu.Unlock()
				return true
			}
		}
		w.c.mu.Unlock()
	}
	return false
}

func toF(v any) float64 {
	f, _ := v.(float64)
	return f
}

// checkHistory checks the recorded history for linearizability, and every window's views.
func (h *chaos) checkHistory() {
	h.recordTakeovers()
	for _, v := range h.lin.check(2 * time.Minute) {
		h.violate("%s", v)
	}
	h.mu.Lock()
	var cs []*child
	for _, w := range h.wins {
		cs = append(cs, w.c)
	}
	h.mu.Unlock()
	for _, v := range checkViews(cs) {
		h.violate("%s", v)
	}
}

// checkRoles: from every window's role events, writer terms never overlap and their
// epochs strictly increase; no window served a request as the writer once a newer term
// had been announced (checkServed).
//
// A term that ended by a kill ended before the kill, so a successor whose writer event
// was read before then overlapped it. A term that ended alive (a hand-over: the window
// reads on) ended inside its window, before its reader event was written, and that event
// may be read after the successor's writer event: the read times do not order the two
// terms, so such terms are checked by what their window served instead.
func (h *chaos) checkRoles() {
	terms := h.terms()
	for i := 1; i < len(terms); i++ {
		a, b := terms[i-1], terms[i]
		if a.end.IsZero() || (a.byKill && a.end.After(b.start)) {
			h.violate("two writers at once: pid %d (epoch %d, since %s) and pid %d (epoch %d, since %s)",
				a.pid, a.epoch, a.start.Format("15:04:05.000000"), b.pid, b.epoch, b.start.Format("15:04:05.000000"))
		}
		if b.epoch <= a.epoch {
			h.violate("epochs do not increase: pid %d epoch %d, then pid %d epoch %d", a.pid, a.epoch, b.pid, b.epoch)
		}
	}
	h.mu.Lock()
	served := append([]chaosServed(nil), h.served...)
	h.mu.Unlock()
	for _, v := range checkServed(terms, served) {
		h.violate("%s", v)
	}
}

// checkServed: a window that answered a request as the writer (an acknowledged write, a
// snapshot naming it) did so in its newest term announced before the request was sent,
// and no other window had announced a term with a higher epoch by then: that term could
// only begin once this one had ended, so the window served while another wrote.
func checkServed(terms []chaosTerm, served []chaosServed) []string {
	var out []string
	for _, s := range served {
		var own *chaosTerm
		for i := range terms {
			if t := &terms[i]; t.pid == s.pid && t.start.Before(s.call) && (own == nil || t.start.After(own.start)) {
				own = t
			}
		}
		if own == nil {
			out = append(out, fmt.Sprintf("two writers at once: window %d served %s (sent %s) as the writer, without having announced a writer term",
				s.pid, s.what, s.call.Format("15:04:05.000000")))
			continue
		}
		for i := range terms {
			if t := &terms[i]; t.pid != s.pid && t.epoch > own.epoch && t.start.Before(s.call) {
				out = append(out, fmt.Sprintf("two writers at once: window %d served %s (sent %s) as the writer of epoch %d, after window %d had announced epoch %d (at %s)",
					s.pid, s.what, s.call.Format("15:04:05.000000"), own.epoch, t.pid, t.epoch, t.start.Format("15:04:05.000000")))
				break
			}
		}
	}
	return out
}

func (h *chaos) summary(dur, ran time.Duration) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var lost, dups, wedged, orph int
	for _, v := range h.viol {
		switch {
		case strings.Contains(v, "lost") || strings.Contains(v, "missing"):
			lost++
		case strings.Contains(v, "duplicate") || strings.Contains(v, "reaped 2") || strings.Contains(v, "twice"):
			dups++
		case strings.HasPrefix(v, "wedged"):
			wedged++
		case strings.HasPrefix(v, "orphan"):
			orph++
		}
	}
	exactRuns := 0
	for _, m := range h.expected {
		exactRuns += len(m)
	}
	writes, open, reads, terms, ops := h.lin.counts()
	p50, pmax := h.lin.latency()
	h.lin.mu.Lock()
	pieces := h.lin.pieces
	h.lin.mu.Unlock()
	return fmt.Sprintf("chaos summary: duration=%s ran=%s cycles=%d writer_kills=%d reader_kills=%d stops=%d "+
		"supervisor_kills=%d supervisor_kills_after_end=%d handovers=%d adopted_at_handover=%d adopted_at_takeover=%d adopt_runs_succeeded=%d windows=%d "+
		"writes_acked=%d runs_acked=%d runs_succeeded=%d unanswered=%d refused=%d lost=%d duplicate_runs=%d wedged_lanes=%d orphans=%d "+
		"exact_kills=%d exact_reaps_checked=%d exact_skipped=%d history_writes=%d history_open=%d reads=%d reads_not_writer=%d "+
		"takeovers=%d history_ops=%d history_pieces=%d write_p50=%s write_max=%s no_writer=%s polls=%d violations=%d",
		dur, ran, h.cycles, h.kills, h.rkills, h.stops, h.supKills, h.supRaced, h.handovers, h.hoAdopted, h.killAdopted, h.adoptOK,
		len(h.wins), writes-open, len(h.ackedRuns), h.succeeded, h.unknown, h.refused,
		lost, dups, wedged, orph, len(h.exact), exactRuns, h.exactSkip, writes, open, reads, h.notWriter,
		terms, ops, pieces, p50.Round(time.Microsecond), pmax.Round(time.Millisecond), h.noWriter.Round(time.Millisecond), h.polls, len(h.viol))
}

// markKilled records w as killed (a writer kill or a reader kill) before it is: the
// checks then know its silence is the chaos's doing.
func (h *chaos) markKilled(w *chaosWin) {
	writer := lastRole(w.c) == "writer"
	h.removeLive(w)
	h.mu.Lock()
	if writer {
		h.kills++
		h.killedW[w.c.pid] = true
	} else {
		h.rkills++
	}
	w.killed = true
	h.mu.Unlock()
}

// kill kill -9s w as the chaos does.
func (h *chaos) kill(w *chaosWin) {
	h.markKilled(w)
	h.readMu.Lock() // no snapshot reply is being written (see readMu)
	w.c.kill9()
	h.readMu.Unlock()
	h.lin.died(w.c.pid, time.Now())
}

// TestChaosCatchesSkippedReread is the reverse control of the takeover's re-read (DESIGN
// step 2) for the chaos checkers. Refresh-before-write stays on, so a takeover that skips
// its re-read loses no slot write: its first save refreshes first. What it does get wrong
// is everything it computes from its stale copy before that save: the epoch (the stale
// epoch + 1, which may be one already used: with the disk's epoch equal to it, fencing
// does not stop the save) and the reap set (runs already reaped are reaped again, runs
// of the last dead writer are not). So the scenario makes a window's copy a whole term
// stale: reader R is stopped; writer A writes and starts runs; A is killed; window B
// takes over (epoch +1), writes and starts a run; B is killed; R is let go and takes
// over. Through R the history then shows a term whose epoch was already B's: the
// porcupine check (partition "term") must say so, and so must checkRoles and checkReaps.
// Without the knob the same scenario must come out clean.
//
// R's watch is held from the moment it is stopped until it writes, so its copy is stale
// at its takeover every time; the control shows the re-read alone makes it right.
func TestChaosCatchesSkippedReread(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		skip bool
	}{{"control", false}, {"skip-takeover-reread", true}} {
		t.Run(tc.name, func(t *testing.T) {
			h, stale, fresh := staleTakeover(t, tc.skip)
			lin := h.lin.check(time.Minute)
			h.checkRoles()
			h.checkReaps()
			views := checkViews(h.children())
			h.mu.Lock()
			other := append([]string(nil), h.viol...)
			h.mu.Unlock()
			other = append(other, views...)
			if !tc.skip {
				if !fresh {
					t.Errorf("R's takeover (with its re-read) did not reap exactly B's run")
				}
				for _, v := range append(lin, other...) {
					t.Error(v)
				}
				return
			}
			if !stale {
				t.Fatal("R's takeover without its re-read did not work from its stale copy (it did not reap A's run, or it reaped B's): the held watch did not hold")
			}
			t.Logf("linearizability: %q; other checks: %q", lin, other)
			if !hasPrefixed(lin, "linearizability: partition term is not linearizable") {
				t.Errorf("the linearizability check did not catch the stale takeover: %q", lin)
			}
			if !hasPrefixed(other, "epochs do not increase") {
				t.Errorf("checkRoles did not catch the reused epoch: %q", other)
			}
			if !hasContaining(other, "reaped 2 times") {
				t.Errorf("checkReaps did not catch the second reap of A's run: %q", other)
			}
		})
	}
}

func hasPrefixed(ss []string, p string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func hasContaining(ss []string, p string) bool {
	for _, s := range ss {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func (h *chaos) children() []*child {
	h.mu.Lock()
	defer h.mu.Unlock()
	var cs []*child
	for _, w := range h.wins {
		cs = append(cs, w.c)
	}
	return cs
}

// staleTakeover runs the scenario of TestChaosCatchesSkippedReread once, on a new home,
// with R skipping its takeover's re-read or not, and records the history. stale says
// whether R's takeover worked from its stale copy (it reaped A's run, not B's).
func staleTakeover(t *testing.T, skip bool) (h *chaos, stale, fresh bool) {
	h = newChaos(t, 1)
	a := h.spawn()
	a.c.waitWriter(10 * time.Second)
	for i := 0; i < 4; i++ {
		a.c.ok(map[string]any{"op": "add_workflow", "workflow": slotWF(i, 0)})
	}
	a.c.ok(addWF("hold", 4, "fail", "sleep", "30"))
	holdFile := filepath.Join(t.TempDir(), "hold-reloads")
	opts := []childOpt{withEnv("BATON_TEST_HOLD_RELOADS=" + holdFile)}
	if skip {
		opts = append(opts, withEnv("BATON_TEST_SKIP_TAKEOVER_REREAD=1"))
	}
	r := h.spawn(opts...)
	if role := r.c.initialRole(); role != "reader" {
		t.Fatalf("R started as %s", role)
	}
	running := func(w *chaosWin, run string) {
		w.c.waitEvent(0, 10*time.Second, eventIs("run", "run", run, "status", "running"))
	}
	ver := 0
	write := func(w *chaosWin, slot int) {
		ver++
		h.writeSlot(w, slot, ver)
	}
	read := func(w *chaosWin) linSnap {
		s, ok := h.readSnap(w, linReaderClient)
		if !ok {
			t.Fatalf("snapshot through writer %d was not served by it", w.c.pid)
		}
		return s
	}

	run1, _ := h.startRun(a, "hold")
	running(a, run1)
	write(a, 0)
	g := read(a).Generation
	r.c.waitEvent(0, 10*time.Second, func(e map[string]any) bool {
		return e["event"] == "changed" && uint64(toF(e["generation"])) >= g
	}) // R's copy now has run1 running under A
	// From here until it writes, R's watch reads no change: its copy is stale when it
	// takes over, every time (else its thawed watch could reload before its lock wake).
	if err := os.WriteFile(holdFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h.stopAll([]*chaosWin{r})
	write(a, 1)
	run2, _ := h.startRun(a, "hold")
	running(a, run2)
	read(a)
	h.kill(a)

	b := h.spawn()
	b.c.waitWriter(10 * time.Second) // B reaps run1 and run2
	read(b)
	write(b, 2)
	run3, _ := h.startRun(b, "hold")
	running(b, run3)
	read(b)
	h.kill(b)

	_ = r.c.cmd.Process.Signal(syscall.SIGCONT)
	e := r.c.waitWriter(10 * time.Second)
	if err := os.Remove(holdFile); err != nil {
		t.Fatal(err)
	}
	reaped := map[string]bool{}
	if rs, ok := e["reaped"].([]any); ok {
		for _, x := range rs {
			reaped[fmt.Sprint(x)] = true
		}
	}
	stale = reaped[run1] && !reaped[run3]
	fresh = reaped[run3] && len(reaped) == 1
	t.Logf("R (pid %d) took over with epoch %v, reaped %v; runs: A's %s %s, B's %s", r.c.pid, e["epoch"], e["reaped"], run1, run2, run3)
	read(r)
	write(r, 3)
	read(r)
	// Nothing is left running (R's standing reaper gets what its takeover missed), then
	// R closes; the history is complete.
	deadline := time.Now().Add(20 * time.Second)
	for {
		d, ok := h.readDoc()
		if ok && activeRuns(d) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs still active 20s after R took over")
		}
		time.Sleep(20 * time.Millisecond) // polls the file for the state that proves it
	}
	h.removeLive(r)
	if err := r.c.close(); err != nil {
		t.Fatalf("R did not close cleanly: %v", err)
	}
	h.recordTakeovers()
	return h, stale, fresh
}

// TestChaosMinimumWork: a chaos run that killed nothing, or did too little, fails, however
// clean it looks; one that did the work passes.
func TestChaosMinimumWork(t *testing.T) {
	busy := chaosCounts{dur: 5 * time.Second, cycles: 10, writerKills: 5, readerKills: 2, stops: 3,
		writesAcked: 400, runsAcked: 20, runsSucceeded: 12, reads: 300, takeovers: 8, exactChecked: 3,
		supervisorKills: 2, handovers: 2, killAdopted: 2}
	if got := minimumWork(busy); len(got) != 0 {
		t.Fatalf("a busy run was refused: %q", got)
	}
	for _, tc := range []struct {
		name string
		mod  func(c *chaosCounts)
		want string
	}{
		{"zero kills", func(c *chaosCounts) { c.writerKills, c.takeovers, c.exactChecked = 0, 1, 0 }, "writer_kills=0"},
		{"few kills", func(c *chaosCounts) { c.writerKills, c.takeovers = 2, 3 }, "writer_kills=2"},
		{"few writes", func(c *chaosCounts) { c.writesAcked = 10 }, "writes_acked=10"},
		{"no runs", func(c *chaosCounts) { c.runsSucceeded = 0 }, "runs_succeeded=0"},
		{"no reads", func(c *chaosCounts) { c.reads = 0 }, "reads=0"},
		{"no exact kill", func(c *chaosCounts) { c.exactChecked = 0 }, "exact_kills=0"},
		{"a kill without a takeover", func(c *chaosCounts) { c.takeovers = 5 }, "takeovers=5"},
		{"a hand-over without a takeover", func(c *chaosCounts) { c.takeovers = 7 }, "takeovers=7"},
		{"no supervisor kill", func(c *chaosCounts) { c.supervisorKills = 0 }, "supervisor_kills=0"},
		{"no hand-over", func(c *chaosCounts) { c.handovers, c.takeovers = 0, 6 }, "handovers=0"},
		{"no adoption after a kill", func(c *chaosCounts) { c.killAdopted = 0 }, "adopted_at_takeover=0"},
		{"long run, short of kills", func(c *chaosCounts) { c.dur = time.Minute }, "writer_kills=5"},
	} {
		c := busy
		tc.mod(&c)
		if got := minimumWork(c); !hasContaining(got, tc.want) {
			t.Errorf("%s: minimumWork = %q, want a complaint about %s", tc.name, got, tc.want)
		}
	}
}

// TestChaosRunOutcomes shows runOutcomes on made-up records and marks: what it accepts
// and each thing it must refuse.
func TestChaosRunOutcomes(t *testing.T) {
	exit0 := 0
	ended := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(id, wf, status string, attempt int, errText string) store.Run {
		r := store.Run{ID: id, Workflow: wf, Status: status, Attempt: attempt, Error: errText, Ended: ended}
		if status == store.StatusSucceeded {
			r.ExitCode = &exit0
		}
		return r
	}
	lostOwner := "owner window pid 7 died (instance lock of pid 7 is free; pid 7 is gone) while step 1 of 1 was running"
	clean := func() ([]store.Run, chaosMarks) {
		runs := []store.Run{
			run("a1", "lane-a", store.StatusSucceeded, 1, ""),
			run("a2", "lane-a", store.StatusFailed, 1, lostOwner),
			run("b1", "lane-b", store.StatusSucceeded, 3, "re-queued: "+lostOwner),
			run("d1", "adopt", store.StatusSucceeded, 1, ""),
			run("d2", "adopt", store.StatusFailed, 1, lostOwner), // its supervisor was not up yet
			run("d3", "adopt", store.StatusFailed, 1, "the run's supervisor pid 99 died while step 1 was running; its processes were killed"),
			run("c1", "lane-c", store.StatusSucceeded, 1, ""), // its supervisor was killed after the step ended
			run("s1", "slot-01", store.StatusSucceeded, 1, ""),
			run("d4", "adopt", store.StatusFailed, 1, "supervisor lost its etcd lease"), // its machine was cut off (etcd home)
		}
		m := chaosMarks{
			starts:    map[string]int{"a1": 1, "a2": 1, "b1": 2, "d1": 1, "d3": 1, "c1": 1, "d4": 1},
			ends:      map[string]int{"a1": 1, "b1": 1, "d1": 1, "c1": 1},
			supKilled: map[string]int{"d3": 99, "c1": 98},
			outcome:   map[string]string{},
			lost:      map[string]bool{"d4": true},
		}
		for i := range runs {
			m.outcome[runs[i].ID] = outcomeOf(&runs[i])
		}
		return runs, m
	}
	killed := func(pid int) bool { return pid == 7 }
	runs, m := clean()
	if got := runOutcomes(runs, m, killed); len(got) != 0 {
		t.Fatalf("clean runs refused: %q", got)
	}
	for _, tc := range []struct {
		name string
		mod  func(runs []store.Run, m chaosMarks) []store.Run
		want string
	}{
		{"two records of one run", func(runs []store.Run, m chaosMarks) []store.Run { return append(runs, runs[0]) }, "run a1 has 2 records"},
		{"an outcome that changed", func(runs []store.Run, m chaosMarks) []store.Run {
			runs[1].Error = "cancelled"
			return runs
		}, "run a2 of lane-a was first seen ended failed"},
		{"a fail run started twice", func(runs []store.Run, m chaosMarks) []store.Run { m.starts["a2"] = 2; return runs }, "run a2 of lane-a (on_owner_lost fail) started its step 2 times"},
		{"an adopt run started twice", func(runs []store.Run, m chaosMarks) []store.Run { m.starts["d1"] = 2; return runs }, "run d1 of adopt (on_owner_lost adopt) started its step 2 times"},
		{"a requeue run started more often than its attempts", func(runs []store.Run, m chaosMarks) []store.Run { m.starts["b1"] = 4; return runs }, "run b1 of lane-b started its step 4 times in 3 attempts"},
		{"a success without its step's end", func(runs []store.Run, m chaosMarks) []store.Run { delete(m.ends, "a1"); return runs }, "run a1 of lane-a recorded succeeded, but its step started 1 times and ended 0 times"},
		{"an adopt run failed with its supervisor alive", func(runs []store.Run, m chaosMarks) []store.Run {
			runs[4].Error = lostOwner + "; its supervisor pid 50 was stopped"
			m.outcome["d2"] = outcomeOf(&runs[4])
			return runs
		}, "adopt run d2 ended failed"},
		{"an adopt run failed after its step started", func(runs []store.Run, m chaosMarks) []store.Run { m.starts["d2"] = 1; return runs }, "adopt run d2 ended failed"},
		{"an adopt run failed from an owner never killed", func(runs []store.Run, m chaosMarks) []store.Run {
			runs[4].Error = strings.ReplaceAll(lostOwner, "7", "8")
			m.outcome["d2"] = outcomeOf(&runs[4])
			return runs
		}, "run d2 was reaped from pid 8, which was never killed"},
		{"an adopt run failed, its machine never cut off", func(runs []store.Run, m chaosMarks) []store.Run { delete(m.lost, "d4"); return runs }, "adopt run d4 ended failed"},
		{"a killed supervisor not named", func(runs []store.Run, m chaosMarks) []store.Run { m.supKilled["d3"] = 97; return runs }, "run d3 of adopt, whose supervisor pid 97 was killed"},
		{"a killed supervisor's run succeeded with its step cut short", func(runs []store.Run, m chaosMarks) []store.Run { delete(m.ends, "c1"); return runs }, "run c1 of lane-c, whose supervisor pid 98 was killed"},
	} {
		runs, m := clean()
		runs = tc.mod(runs, m)
		if got := runOutcomes(runs, m, killed); !hasContaining(got, tc.want) {
			t.Errorf("%s: runOutcomes = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestChaosRunEvents shows checkRunEvents on made-up event streams.
func TestChaosRunEvents(t *testing.T) {
	win := func(pid int, sts ...string) *child {
		c := &child{pid: pid}
		for _, st := range sts {
			c.events = append(c.events, map[string]any{"event": "run", "run": "r1", "status": st})
		}
		return c
	}
	final := []store.Run{{ID: "r1", Status: store.StatusSucceeded}}
	for _, tc := range []struct {
		name string
		cs   []*child
		want string
	}{
		{"one end in every window", []*child{win(1, "queued", "running", "queued", "running", "succeeded"), win(2, "running", "succeeded"), win(3)}, ""},
		{"an end, then running again", []*child{win(1, "running", "failed", "running", "succeeded")}, "window 1 saw run r1 end failed, then become running"},
		{"two outcomes in two windows", []*child{win(1, "running", "succeeded"), win(2, "running", "failed")}, "window 2 saw run r1 end failed, its record says succeeded"},
	} {
		got := checkRunEvents(tc.cs, final)
		if tc.want == "" && len(got) > 0 || tc.want != "" && !hasContaining(got, tc.want) {
			t.Errorf("%s: checkRunEvents = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestChaosServed shows checkServed on made-up terms: a window that handed over (it lives
// on as a reader) must serve nothing as the writer once its successor announced itself;
// its own later term is another matter.
func TestChaosServed(t *testing.T) {
	at := func(n int) time.Time { return time.Time{}.Add(time.Duration(n) * time.Millisecond) }
	terms := []chaosTerm{
		{pid: 1, epoch: 1, start: at(0), end: at(12)}, // handed over: its reader event was read late
		{pid: 2, epoch: 2, start: at(10), end: at(20)},
		{pid: 1, epoch: 3, start: at(21)},
	}
	for _, tc := range []struct {
		name string
		s    chaosServed
		want string
	}{
		{"the writer before the hand-over", chaosServed{pid: 1, call: at(5), what: "w"}, ""},
		{"the successor", chaosServed{pid: 2, call: at(11), what: "w"}, ""},
		{"the old writer again, in its next term", chaosServed{pid: 1, call: at(22), what: "w"}, ""},
		{"the old writer after its successor announced itself", chaosServed{pid: 1, call: at(11), what: "w"}, "window 1 served w (sent 00:00:00.011000) as the writer of epoch 1, after window 2 had announced epoch 2"},
		{"a window that never announced a term", chaosServed{pid: 3, call: at(11), what: "w"}, "window 3 served w"},
	} {
		got := checkServed(terms, []chaosServed{tc.s})
		if tc.want == "" && len(got) > 0 || tc.want != "" && !hasContaining(got, tc.want) {
			t.Errorf("%s: checkServed = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// floodWatch queues folder events that name no file of Baton's in home: a stopped window's
// folder watch must drain them, after it resumes, before it gets to the events of
// workflows.json. It stands for a reader whose follow lags behind the writer.
func floodWatch(t *testing.T, home string) {
	a, b := filepath.Join(home, "flood-a"), filepath.Join(home, "flood-b")
	if err := os.WriteFile(a, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2500; i++ { // two events each way, well under the queue's 16384
		if err := os.Rename(a, b); err != nil {
			t.Fatal(err)
		}
		a, b = b, a
	}
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
}
