package host

// The chaos harness: N headless windows on one home, a client writing to whoever is the
// writer and a second client reading through it, both recording every operation with the
// time it was sent and the time its reply came, and a killer that kill -9s the writer
// (every other cycle; else it kills a reader or SIGSTOPs a window for a while) and starts
// replacements. Invariants are checked continuously by a poller and again at the end; the
// history of writes, reads and takeovers is checked for linearizability with porcupine
// (linearize_test.go), and each window's published views for going back. A run must also
// show that real work happened (minimumWork): a run that killed nothing fails.
//
//	go test ./host -run TestChaos                  short mode (about 15 s), part of the suite
//	BATON_CHAOS=long go test ./host -run TestChaos -timeout 0 -v      20 minutes
//	BATON_CHAOS=45m  go test ./host -run TestChaos -timeout 0 -v      any duration
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
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"baton/store"
)

const chaosSlots = 12 // workflows the client rewrites (registers with versions)

// chaosLanes are the workflows whose runs the client starts; each step checks, from the
// processes alive, that its lane never holds more than max_concurrent runs and that no run
// executes twice at once.
var chaosLanes = []struct {
	name   string
	max    int
	onLost string
	secs   string
}{
	{"lane-a", 2, "fail", "0.3"},
	{"lane-b", 1, "requeue", "0.6"},
	{"lane-c", 3, "fail", "0.15"},
	{"sched", 1, "fail", "0.4"},
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
func chaosStep(marks, lane string, max int, secs string) []string {
	script := `d=$1; wf=$2; max=$3; id=$BATON_RUN_ID
me="$$ $(cut -d' ' -f22 /proc/$$/stat)"
live() { s=$(cut -d' ' -f3,22 "/proc/$1/stat" 2>/dev/null) || return 1; [ "${s%% *}" != Z ] && [ "${s%% *}" != X ] && [ "${s#* }" = "$2" ]; }
f=$d/pid-$id
if [ -f "$f" ]; then read p st 2>/dev/null < "$f"; if live "$p" "$st"; then echo "$id $p $$" >> "$d/double"; fi; fi
echo "$me" > "$f"
mkdir -p "$d/lane-$wf"; echo "$me" > "$d/lane-$wf/$id"
n=0; for g in "$d/lane-$wf"/*; do read p st 2>/dev/null < "$g" || continue; if live "$p" "$st"; then n=$((n+1)); fi; done
if [ "$n" -gt "$max" ]; then echo "$wf $n" >> "$d/over"; fi
sleep $4
rm -f "$d/lane-$wf/$id"`
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

// chaosExact is an exact kill: the writer pid was killed while every other window was
// stopped, and runs were running in the file it left; the next takeover must reap exactly
// those, in its own writer role event.
type chaosExact struct {
	pid  int
	at   time.Time // read before the kill
	runs map[string]bool
}

type chaos struct {
	t           *testing.T
	home, marks string
	rng         *rand.Rand

	mu        sync.Mutex // guards everything below
	wins      []*chaosWin
	live      []*chaosWin
	ackedVer  [chaosSlots]int // highest acknowledged version per slot
	ackedRuns []string
	nextVer   int
	acked     int
	unknown   int // writes whose reply never came (window killed): neither promised nor lost
	refused   int
	notWriter int                     // snapshots answered by a window that was no longer the writer (not recorded)
	killedW   map[int]bool            // pids of writers killed with -9
	expected  map[int]map[string]bool // killed writer pid -> runs it left running (exact kills)
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
	noWriter  time.Duration // how long the writing client found no writer

	lin *linHistory
	// readMu is held by the reading client for each snapshot and by the killer for each
	// kill of a writer: a snapshot reply is long (tens of kB), and a window killed while
	// writing one leaves a torn line that the child harness reports as a protocol error.
	readMu sync.Mutex
}

func newChaos(t *testing.T, seed int64) *chaos {
	return &chaos{t: t, home: t.TempDir(), marks: t.TempDir(), rng: rand.New(rand.NewSource(seed)),
		killedW: map[int]bool{}, expected: map[int]map[string]bool{}, orphans: map[int]bool{}, lin: newLinHistory()}
}

func (h *chaos) violate(format string, a ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.viol) < 200 {
		h.viol = append(h.viol, fmt.Sprintf(format, a...))
	}
}

func TestChaos(t *testing.T) {
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
		takeovers: terms, exactChecked: len(h.exact), exactSkip: h.exactSkip}
}

// Minimum work per 5 seconds of chaos, measured on a loaded 2-core machine (two cores,
// four busy loops beside the test) with margin; see minimumWork.
const (
	minWriterKillsPer5s = 3
	minWritesPer5s      = 100
	minRunsPer5s        = 5
	minReadsPer5s       = 50
)

// minimumWork says what a run fell short of: a run in which nothing was killed, little
// was written or read, or no run ran has checked nothing, however clean it looks. Each
// writer kill must have led to a takeover, and at least one kill must have been exact
// (its reap set checked).
func minimumWork(c chaosCounts) []string {
	f := c.dur.Seconds() / 5
	if f < 1 {
		f = 1
	}
	need := func(per5s int) int { return int(float64(per5s) * f) }
	var out []string
	short := func(what string, got, want int) {
		if got < want {
			out = append(out, fmt.Sprintf("not enough work: %s=%d, at least %d expected in %s of chaos", what, got, want, c.dur))
		}
	}
	short("writer_kills", c.writerKills, max(1, need(minWriterKillsPer5s)))
	short("writes_acked", c.writesAcked, need(minWritesPer5s))
	short("runs_succeeded", c.runsSucceeded, need(minRunsPer5s))
	short("reads", c.reads, need(minReadsPer5s))
	short("exact_kills", c.exactChecked, 1)
	short("takeovers", c.takeovers, c.writerKills+1)
	return out
}

// spawn starts a window and adds it to the live set.
func (h *chaos) spawn(opts ...childOpt) *chaosWin {
	w := &chaosWin{spawned: time.Now()}
	w.c = startChild(h.t, h.home, opts...)
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
	for i := 0; i < chaosSlots; i++ {
		w.c.ok(map[string]any{"op": "add_workflow", "workflow": slotWF(i, 0)})
	}
	for _, l := range chaosLanes {
		w.c.ok(map[string]any{"op": "add_workflow", "workflow": map[string]any{"name": l.name,
			"max_concurrent": l.max, "on_owner_lost": l.onLost,
			"steps": []any{map[string]any{"name": "s", "argv": chaosStep(h.marks, l.name, l.max, l.secs)}}}})
	}
	w.c.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "sched", "every": "1s", "overlap": "skip"}})
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
			h.startRun(w, chaosLanes[rng.Intn(3)].name)
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
// (read_only: it did nothing) or unknown (no reply, or an unexpected error).
func (h *chaos) writeSlot(w *chaosWin, slot, ver int) {
	call := time.Now()
	r, sent, replied := try(w.c, map[string]any{"op": "update_workflow", "workflow": slotWF(slot, ver)}, 10*time.Second)
	ret := time.Now()
	if !sent {
		return
	}
	acked := h.record(w, fmt.Sprintf("update_workflow slot-%02d v%d", slot, ver), call, ret, r, replied, func() {
		if ver > h.ackedVer[slot] {
			h.ackedVer[slot] = ver
		}
	})
	if !replied || r["code"] != "read_only" { // a refused write did nothing
		h.lin.write(w.c.pid, slot, ver, call, ret, acked, uint64(toF(r["generation"])))
	}
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
	if s.WriterPID != w.c.pid {
		h.mu.Lock()
		h.notWriter++ // it stopped being the writer (or had not begun): a reader's view
		h.mu.Unlock()
		return s, false
	}
	h.lin.read(client, w.c.pid, call, ret, s)
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
	default:
		h.refused++
		if len(h.viol) < 200 {
			h.viol = append(h.viol, fmt.Sprintf("write refused with an unexpected error: %v", r))
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
		if i%4 == 0 {
			h.checkOrphans(d, false)
		}
		h.mu.Lock()
		h.lastDoc = d
		h.polls++
		h.mu.Unlock()
	}
}

// readDoc reads workflows.json; a file that does not parse is a violation.
func (h *chaos) readDoc() (*store.Doc, bool) {
	data, err := os.ReadFile(filepath.Join(h.home, store.FileName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		h.violate("read workflows.json: %v", err)
		return nil, false
	}
	d, err := store.Decode(data)
	if err != nil {
		h.violate("workflows.json does not parse: %v", err)
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
	wantHome := []byte("BATON_HOME=" + h.home + "\x00")
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil || !bytes.Contains(env, wantHome) || !pidAlive(pid) {
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
// is exact, so every run does the work minimumWork asks for; the other cycles are drawn.
func (h *chaos) cycle() {
	h.mu.Lock()
	h.cycles++
	n, kills := h.cycles, h.kills
	h.mu.Unlock()
	if n%2 == 1 {
		h.killWriter(kills%2 == 0)
		return
	}
	if n%6 == 2 {
		h.lagTakeover()
		return
	}
	switch p := h.rng.Intn(100); {
	case p < 30:
		h.killWriter(kills%2 == 0)
	case p < 60:
		h.killReader()
	default:
		h.stopAWhile()
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
// over: every run it had running must then be reaped, exactly once.
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
	if h.waitWriter(10*time.Second) == nil {
		h.violate("no window took over within 10s of kill -9 of writer %d", w.c.pid)
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
	left := map[string]bool{}
	for i := range d.Runs {
		if r := &d.Runs[i]; r.Status == store.StatusRunning {
			left[r.ID] = true
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
		got := map[string]bool{}
		if rs, ok := first["reaped"].([]any); ok {
			for _, r := range rs {
				got[fmt.Sprint(r)] = true
			}
		}
		for id := range x.runs {
			if !got[id] {
				h.violate("exact kill of writer %d: run %s was running in its file, but the takeover by %d (epoch %v) did not reap it (reaped %v)",
					x.pid, id, firstPID, first["epoch"], first["reaped"])
			}
		}
		for id := range got {
			if !x.runs[id] {
				h.violate("exact kill of writer %d: the takeover by %d (epoch %v) reaped run %s, which was not running in the file it read",
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
			h.t.Logf("lag takeover: window %d took over from writer %d with epoch %v, reaped %v", r.c.pid, w.c.pid, e["epoch"], e["reaped"])
		}
	}
	h.spawn()
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
// run executed twice at once; no lane held too many runs.
func (h *chaos) checkRuns(d *store.Doc, acked []string) {
	runs := h.allRuns()
	have := map[string]bool{}
	occ := map[string]string{}
	succeeded := 0
	for _, r := range runs {
		have[r.ID] = true
		if r.Status == store.StatusSucceeded {
			succeeded++
		}
		if r.Schedule != "" {
			k := r.Schedule + "@" + r.Due.String()
			if prev, dup := occ[k]; dup {
				h.violate("duplicate run: occurrence %s has runs %s and %s", k, prev, r.ID)
			}
			occ[k] = r.ID
		}
		if strings.Contains(r.Error, "owner window pid") {
			pid := 0
			fmt.Sscanf(r.Error[strings.Index(r.Error, "owner window pid")+len("owner window pid "):], "%d", &pid)
			h.mu.Lock()
			killed := h.killedW[pid]
			h.mu.Unlock()
			if !killed {
				h.violate("run %s was reaped from pid %d, which was never killed: %s", r.ID, pid, r.Error)
			}
		}
	}
	h.mu.Lock()
	h.succeeded = succeeded
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
}

// checkReaps: every (run, dead owner) is reaped at most once, only dead owners are reaped,
// and each exact kill's running runs were all reaped.
func (h *chaos) checkReaps() {
	entries, err := store.NewAudit(h.home).Read(0)
	if err != nil {
		h.violate("audit: %v", err)
	}
	seen := map[string]int{}
	byOwner := map[int]map[string]bool{}
	for _, e := range entries {
		if e.Kind != "reap" {
			continue
		}
		run := fmt.Sprint(e.Data["run"])
		owner := int(toF(e.Data["owner_pid"]))
		seen[fmt.Sprintf("%s/%d", run, owner)]++
		if byOwner[owner] == nil {
			byOwner[owner] = map[string]bool{}
		}
		byOwner[owner][run] = true
		h.mu.Lock()
		killed := h.killedW[owner]
		h.mu.Unlock()
		if !killed {
			h.violate("reap of run %s names owner %d, which was never killed (evidence %v)", run, owner, e.Data["evidence"])
		}
	}
	for k, n := range seen {
		if n > 1 {
			h.violate("run/owner %s reaped %d times", k, n)
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for pid, runs := range h.expected {
		for id := range runs {
			if !byOwner[pid][id] {
				h.viol = append(h.viol, fmt.Sprintf("run %s was running in killed writer %d but never reaped", id, pid))
			}
		}
	}
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
// epochs strictly increase.
func (h *chaos) checkRoles() {
	type term struct {
		pid        int
		start, end time.Time
		epoch      uint64
	}
	var terms []term
	h.mu.Lock()
	wins := append([]*chaosWin(nil), h.wins...)
	h.mu.Unlock()
	for _, w := range wins {
		c := w.c
		c.mu.Lock()
		var cur *term
		for i, e := range c.events {
			if e["event"] != "role" {
				continue
			}
			if e["role"] == "writer" {
				if cur != nil {
					terms = append(terms, *cur)
				}
				cur = &term{pid: c.pid, start: c.eventAt[i], epoch: uint64(toF(e["epoch"]))}
			} else if cur != nil {
				cur.end = c.eventAt[i]
				terms = append(terms, *cur)
				cur = nil
			}
		}
		if cur != nil {
			cur.end = w.ended // zero (open) if still alive
			terms = append(terms, *cur)
		}
		c.mu.Unlock()
	}
	sort.Slice(terms, func(i, j int) bool { return terms[i].start.Before(terms[j].start) })
	for i := 1; i < len(terms); i++ {
		a, b := terms[i-1], terms[i]
		if a.end.IsZero() || a.end.After(b.start) {
			h.violate("two writers at once: pid %d (epoch %d, since %s) and pid %d (epoch %d, since %s)",
				a.pid, a.epoch, a.start.Format("15:04:05.000000"), b.pid, b.epoch, b.start.Format("15:04:05.000000"))
		}
		if b.epoch <= a.epoch {
			h.violate("epochs do not increase: pid %d epoch %d, then pid %d epoch %d", a.pid, a.epoch, b.pid, b.epoch)
		}
	}
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
	return fmt.Sprintf("chaos summary: duration=%s ran=%s cycles=%d writer_kills=%d reader_kills=%d stops=%d windows=%d "+
		"writes_acked=%d runs_acked=%d runs_succeeded=%d unanswered=%d refused=%d lost=%d duplicate_runs=%d wedged_lanes=%d orphans=%d "+
		"exact_kills=%d exact_reaps_checked=%d exact_skipped=%d history_writes=%d history_open=%d reads=%d reads_not_writer=%d "+
		"takeovers=%d history_ops=%d history_pieces=%d write_p50=%s write_max=%s no_writer=%s polls=%d violations=%d",
		dur, ran, h.cycles, h.kills, h.rkills, h.stops, len(h.wins), writes-open, len(h.ackedRuns), h.succeeded, h.unknown, h.refused,
		lost, dups, wedged, orph, len(h.exact), exactRuns, h.exactSkip, writes, open, reads, h.notWriter,
		terms, ops, pieces, p50.Round(time.Microsecond), pmax.Round(time.Millisecond), h.noWriter.Round(time.Millisecond), h.polls, len(h.viol))
}

// kill kill -9s w as the chaos does.
func (h *chaos) kill(w *chaosWin) {
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
// R's copy is stale only if its takeover runs before its folder watch has reloaded the
// file, a race R's lock wait usually wins; an attempt where the watch won is recognised
// by R's reap set (it then reaps B's run) and repeated.
func TestChaosCatchesSkippedReread(t *testing.T) {
	for _, tc := range []struct {
		name string
		skip bool
	}{{"control", false}, {"skip-takeover-reread", true}} {
		t.Run(tc.name, func(t *testing.T) {
			const attempts = 5
			for i := 1; i <= attempts; i++ {
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
					t.Logf("attempt %d: R's watch reloaded the file before its takeover read it: the knob had nothing stale to use; again", i)
					continue
				}
				t.Logf("attempt %d: linearizability: %q; other checks: %q", i, lin, other)
				if !hasPrefixed(lin, "linearizability: partition term is not linearizable") {
					t.Errorf("the linearizability check did not catch the stale takeover: %q", lin)
				}
				if !hasPrefixed(other, "epochs do not increase") {
					t.Errorf("checkRoles did not catch the reused epoch: %q", other)
				}
				if !hasContaining(other, "reaped 2 times") {
					t.Errorf("checkReaps did not catch the second reap of A's run: %q", other)
				}
				return
			}
			t.Fatalf("no attempt of %d produced a stale takeover: the reverse control could not be shown", attempts)
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
	var opts []childOpt
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
	h.stopAll([]*chaosWin{r})
	floodWatch(t, h.home)
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

// TestChaosMinimumWork: a chaos run that killed nothing, or did too little, fails, however
// clean it looks; one that did the work passes.
func TestChaosMinimumWork(t *testing.T) {
	busy := chaosCounts{dur: 5 * time.Second, cycles: 10, writerKills: 5, readerKills: 2, stops: 3,
		writesAcked: 400, runsAcked: 20, runsSucceeded: 12, reads: 300, takeovers: 6, exactChecked: 3}
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
		{"long run, short of kills", func(c *chaosCounts) { c.dur = time.Minute }, "writer_kills=5"},
	} {
		c := busy
		tc.mod(&c)
		if got := minimumWork(c); !hasContaining(got, tc.want) {
			t.Errorf("%s: minimumWork = %q, want a complaint about %s", tc.name, got, tc.want)
		}
	}
}
