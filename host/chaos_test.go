package host

// The chaos harness: N headless windows on one home, a client writing to whoever is the
// writer and recording every acknowledged write, and a killer that kill -9s the writer
// (sometimes a reader, sometimes SIGSTOPs a window for a while) and starts replacements.
// Invariants are checked continuously by a poller and again at the end.
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
	c      *child
	ended  time.Time // when it was killed or closed; zero while alive
	killed bool
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
	killedW   map[int]bool            // pids of writers killed with -9
	expected  map[int]map[string]bool // killed writer pid -> runs it left running (exact kills)
	cycles    int
	kills     int
	rkills    int
	stops     int
	orphans   map[int]bool
	viol      []string
	lastDoc   *store.Doc
	polls     int
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
	h := &chaos{t: t, home: t.TempDir(), marks: t.TempDir(), rng: rand.New(rand.NewSource(seed)),
		killedW: map[int]bool{}, expected: map[int]map[string]bool{}, orphans: map[int]bool{}}
	const n = 3
	for i := 0; i < n; i++ {
		h.spawn()
	}
	h.setup()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); h.client(stop, rand.New(rand.NewSource(seed+1))) }()
	go func() { defer wg.Done(); h.poller(stop) }()
	end := time.Now().Add(dur)
	for time.Now().Before(end) && !t.Failed() {
		time.Sleep(time.Duration(150+h.rng.Intn(450)) * time.Millisecond)
		h.cycle()
	}
	close(stop)
	wg.Wait()
	h.finish()
	line := h.summary(dur)
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

// spawn starts a window and adds it to the live set.
func (h *chaos) spawn() *chaosWin {
	w := &chaosWin{c: startChild(h.t, h.home)}
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

// try sends req to c and waits for its reply; ok is false when no reply came (the window
// died or stayed stopped). It never fails the test: windows die under it on purpose.
func try(c *child, req map[string]any, timeout time.Duration) (map[string]any, bool) {
	c.mu.Lock()
	c.nextID++
	id := fmt.Sprintf("x%d", c.nextID)
	exited := c.exited
	c.mu.Unlock()
	if exited {
		return nil, false
	}
	req["id"] = id
	b, _ := json.Marshal(req)
	if _, err := c.stdin.Write(append(b, '\n')); err != nil {
		return nil, false
	}
	var r map[string]any
	ok := c.waitFor(timeout, func() bool { r = c.replies[id]; return r != nil })
	return r, ok
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
			time.Sleep(2 * time.Millisecond)
			continue
		}
		if time.Since(lastRun) > 120*time.Millisecond && h.queued() < 6 {
			lastRun = time.Now()
			lane := chaosLanes[rng.Intn(3)].name
			r, ok := try(w.c, map[string]any{"op": "start_run", "workflow": lane}, 10*time.Second)
			h.record(r, ok, func() { h.ackedRuns = append(h.ackedRuns, fmt.Sprint(r["run"])) })
			continue
		}
		h.mu.Lock()
		slot := rng.Intn(chaosSlots)
		h.nextVer++
		ver := h.nextVer
		h.mu.Unlock()
		r, ok := try(w.c, map[string]any{"op": "update_workflow", "workflow": slotWF(slot, ver)}, 10*time.Second)
		h.record(r, ok, func() {
			if ver > h.ackedVer[slot] {
				h.ackedVer[slot] = ver
			}
		})
		time.Sleep(time.Duration(rng.Intn(4)) * time.Millisecond)
	}
}

func (h *chaos) record(r map[string]any, ok bool, acked func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case !ok:
		h.unknown++
	case r["ok"] == true:
		h.acked++
		acked()
	case r["code"] == "read_only":
		h.refused++ // a window that stopped being the writer, or not yet: fine
	default:
		h.refused++
		if len(h.viol) < 200 {
			h.viol = append(h.viol, fmt.Sprintf("write refused with an unexpected error: %v", r))
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

// cycle is one act of chaos.
func (h *chaos) cycle() {
	h.mu.Lock()
	h.cycles++
	h.mu.Unlock()
	switch p := h.rng.Intn(100); {
	case p < 60:
		h.killWriter(h.rng.Intn(2) == 0)
	case p < 75:
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
		for _, x := range others {
			_ = x.c.cmd.Process.Signal(syscall.SIGSTOP)
		}
	}
	h.removeLive(w)
	h.mu.Lock()
	h.kills++
	h.killedW[w.c.pid] = true
	w.killed = true
	h.mu.Unlock()
	w.c.kill9()
	if exact {
		if d, ok := h.readDoc(); ok && d.Writer != nil && d.Writer.PID == w.c.pid {
			left := map[string]bool{}
			for i := range d.Runs {
				if r := &d.Runs[i]; r.Status == store.StatusRunning && r.OwnerPID == w.c.pid {
					left[r.ID] = true
				}
			}
			h.mu.Lock()
			h.expected[w.c.pid] = left
			h.mu.Unlock()
		}
		for _, x := range others {
			_ = x.c.cmd.Process.Signal(syscall.SIGCONT)
		}
	}
	h.spawn()
	if h.waitWriter(10*time.Second) == nil {
		h.violate("no window took over within 10s of kill -9 of writer %d", w.c.pid)
	}
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
	h.checkRoles()
	if ents, _ := filepath.Glob(filepath.Join(h.home, ".baton-tmp-*")); len(ents) > 0 {
		h.violate("stale temp files left after the last takeover: %v", ents)
	}
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
	for _, r := range runs {
		have[r.ID] = true
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

func (h *chaos) summary(dur time.Duration) string {
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
	exact := 0
	for _, m := range h.expected {
		exact += len(m)
	}
	return fmt.Sprintf("chaos summary: duration=%s cycles=%d writer_kills=%d reader_kills=%d stops=%d windows=%d "+
		"writes_acked=%d runs_acked=%d unanswered=%d refused=%d lost=%d duplicate_runs=%d wedged_lanes=%d orphans=%d "+
		"exact_reaps_checked=%d polls=%d violations=%d",
		dur, h.cycles, h.kills, h.rkills, h.stops, len(h.wins), h.acked, len(h.ackedRuns), h.unknown, h.refused,
		lost, dups, wedged, orph, exact, h.polls, len(h.viol))
}
