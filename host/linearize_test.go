package host

// The chaos history and its linearizability check, with porcupine (as etcd's robustness
// tests check theirs). Every write and every read made through the writer is recorded
// with the time it was sent and the time its reply came. A write that got no reply has an
// unknown outcome: it took effect at some time after it was sent, or never. It stays open
// (return +infinity) until its window is known dead; then it returns at that death, as a
// write that may have done nothing (the model is nondeterministic there), since a dead
// window's write cannot take effect later. The history is checked against a sequential
// model of the document, split into independent partitions:
//
//   - "slot-NN": one register per slot workflow. A write is update_workflow with a
//     version; a read is that slot's version in a snapshot served by the writer.
//   - "term": who writes, and with which epoch. A takeover (a window's writer role event)
//     must raise the epoch; a snapshot served by a writer must carry exactly the epoch
//     and the window of the term then current. A takeover that works from a stale copy
//     and bumps an epoch that was already used fails here. A hand-over is a takeover
//     like any other (the requester's writer event, a higher epoch), whose predecessor
//     is not dead but reads on: it serves no more snapshots as the writer, and a window
//     may hold several terms over its life (each with its own, higher epoch).
//   - "generation": the generation a reply through the writer carries never goes back.
//
// Reader views are checked apart (checkViews): they lag by design, so they are not
// linearizable, but each window's generations only rise and its epochs never go back.

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

type linKind int

const (
	linWrite    linKind = iota // update_workflow of a slot with a version
	linRead                    // a slot's version in a snapshot served by the writer
	linTakeover                // a window's writer role event, with its epoch
	linTerm                    // the epoch of a snapshot and the window that served it
	linGen                     // the generation of a reply served by the writer
)

// Porcupine's client ids (they only label the visualization).
const (
	linWriterClient = iota
	linReaderClient
	linTakeoverClient
)

type linInput struct {
	Kind  linKind
	Part  string // the partition: "slot-NN", "term" or "generation"
	Ver   int    // write: the version written
	Maybe bool   // write: no reply came, so it may have done nothing
	PID   int    // takeover, term: the window
	Epoch uint64 // takeover: the epoch its role event reported
}

type linOutput struct {
	Ver   int    // read: the version seen
	Epoch uint64 // term: the snapshot's epoch
	Gen   uint64 // generation: the reply's generation
}

// linState is the state of one partition: a slot's version, the current term (epoch and
// the window holding it), or the highest generation seen.
type linState struct {
	Ver   int
	Epoch uint64
	PID   int
	Gen   uint64
}

// linStep returns the states the partition can be in after the operation, none if the
// operation cannot happen in state.
func linStep(state, input, output any) []any {
	s := state.(linState)
	in := input.(linInput)
	out, _ := output.(linOutput)
	switch in.Kind {
	case linWrite:
		next := s
		next.Ver = in.Ver
		if in.Maybe && next != s {
			return []any{next, s}
		}
		return []any{next}
	case linRead:
		if out.Ver == s.Ver {
			return []any{s}
		}
	case linTakeover:
		if in.Epoch > s.Epoch {
			s.Epoch, s.PID = in.Epoch, in.PID
			return []any{s}
		}
	case linTerm:
		if out.Epoch == s.Epoch && in.PID == s.PID {
			return []any{s}
		}
	case linGen:
		if out.Gen >= s.Gen {
			s.Gen = out.Gen
			return []any{s}
		}
	}
	return nil
}

func linDescribe(input, output any) string {
	in := input.(linInput)
	out, _ := output.(linOutput)
	switch in.Kind {
	case linWrite:
		if in.Maybe {
			return fmt.Sprintf("write %s v%d (no reply)", in.Part, in.Ver)
		}
		return fmt.Sprintf("write %s v%d", in.Part, in.Ver)
	case linRead:
		return fmt.Sprintf("read %s -> v%d", in.Part, out.Ver)
	case linTakeover:
		return fmt.Sprintf("takeover by pid %d with epoch %d", in.PID, in.Epoch)
	case linTerm:
		return fmt.Sprintf("snapshot by writer pid %d -> epoch %d", in.PID, out.Epoch)
	case linGen:
		return fmt.Sprintf("reply -> generation %d", out.Gen)
	}
	return "?"
}

func linPartition(history []porcupine.Operation) [][]porcupine.Operation {
	by := map[string][]porcupine.Operation{}
	var names []string
	for _, op := range history {
		p := op.Input.(linInput).Part
		if _, ok := by[p]; !ok {
			names = append(names, p)
		}
		by[p] = append(by[p], op)
	}
	sort.Strings(names)
	out := make([][]porcupine.Operation, 0, len(names))
	for _, n := range names {
		out = append(out, by[n])
	}
	return out
}

var linModel = (&porcupine.NondeterministicModel{
	Partition: linPartition,
	Init:      func() []any { return []any{linState{}} }, // every slot starts at v0 (setup)
	Step:      linStep,
	Hash: func(state any) uint64 {
		s := state.(linState)
		return uint64(s.Ver)*0x9e3779b97f4a7c15 ^ s.Epoch<<48 ^ uint64(s.PID)<<24 ^ s.Gen
	},
	DescribeOperation: linDescribe,
	DescribeState: func(state any) string {
		s := state.(linState)
		return fmt.Sprintf("v%d epoch %d pid %d generation %d", s.Ver, s.Epoch, s.PID, s.Gen)
	},
}).ToModel()

// linHistory records the operations of a chaos run. Times are monotonic nanoseconds
// since base, read before a request is sent and after its reply is read, so each
// interval contains the moment the operation took effect.
type linHistory struct {
	base time.Time

	mu      sync.Mutex
	ops     []porcupine.Operation
	openPID map[int]int   // index in ops of a write with no reply -> the window it went to
	deaths  map[int]int64 // window -> a time when it was known dead
	writes  int           // writes recorded (acknowledged or open)
	open    int           // writes with no reply
	reads   int           // snapshots served by the writer
	terms   int           // takeovers
	pieces  int           // pieces the last check cut the history into
}

func newLinHistory() *linHistory { return &linHistory{base: time.Now()} }

func (l *linHistory) at(t time.Time) int64 { return int64(t.Sub(l.base)) }

func (l *linHistory) add(client int, in linInput, out linOutput, call, ret int64) {
	l.ops = append(l.ops, porcupine.Operation{ClientId: client, Input: in, Output: out, Call: call, Return: ret})
}

func slotPart(slot int) string { return fmt.Sprintf("slot-%02d", slot) }

// write records update_workflow of slot with version ver, sent at call to window pid.
// acked: it was answered ok at ret with generation gen. Otherwise its outcome is unknown
// (no reply, or an error that does not prove the write was not applied): it stays open,
// return +infinity, unless pid is known dead (see died and history).
// A write refused with read_only did nothing and is not recorded.
func (l *linHistory) write(pid, slot, ver int, call, ret time.Time, acked bool, gen uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	r := int64(math.MaxInt64)
	if acked {
		r = l.at(ret)
		l.add(linWriterClient, linInput{Kind: linGen, Part: "generation"}, linOutput{Gen: gen}, l.at(call), r)
	} else {
		l.open++
		if l.openPID == nil {
			l.openPID = map[int]int{}
		}
		l.openPID[len(l.ops)] = pid
	}
	l.add(linWriterClient, linInput{Kind: linWrite, Part: slotPart(slot), Ver: ver, Maybe: !acked}, linOutput{}, l.at(call), r)
}

// read records a snapshot served by the writer window pid.
func (l *linHistory) read(client, pid int, call, ret time.Time, s linSnap) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads++
	c, r := l.at(call), l.at(ret)
	for slot, v := range s.Slots {
		l.add(client, linInput{Kind: linRead, Part: slotPart(slot)}, linOutput{Ver: v}, c, r)
	}
	l.add(client, linInput{Kind: linTerm, Part: "term", PID: pid}, linOutput{Epoch: s.Epoch}, c, r)
	l.add(client, linInput{Kind: linGen, Part: "generation"}, linOutput{Gen: s.Generation}, c, r)
}

// takeover records that window pid became the writer with epoch: it began after call (a
// time before the window was started) and was done when its role event was read at ret.
func (l *linHistory) takeover(pid int, epoch uint64, call, ret time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.terms++
	l.add(linTakeoverClient, linInput{Kind: linTakeover, Part: "term", PID: pid, Epoch: epoch}, linOutput{}, l.at(call), l.at(ret))
}

func (l *linHistory) counts() (writes, open, reads, terms, ops int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writes, l.open, l.reads, l.terms, len(l.ops)
}

// latency returns the median and the largest time from call to return of the
// acknowledged writes.
func (l *linHistory) latency() (p50, max time.Duration) {
	l.mu.Lock()
	var ds []time.Duration
	for _, op := range l.ops {
		if op.Input.(linInput).Kind == linWrite && op.Return != math.MaxInt64 {
			ds = append(ds, time.Duration(op.Return-op.Call))
		}
	}
	l.mu.Unlock()
	if len(ds) == 0 {
		return 0, 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], ds[len(ds)-1]
}

// died records that window pid was dead at t (its kill -9 was reaped): a write it never
// answered took effect before t or never.
func (l *linHistory) died(pid int, t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.deaths == nil {
		l.deaths = map[int]int64{}
	}
	l.deaths[pid] = l.at(t)
}

// history returns the operations to check: a write that got no reply from a window known
// dead returns at its death (or, sent after it, did nothing and is dropped); any other
// stays open for ever.
func (l *linHistory) history() []porcupine.Operation {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]porcupine.Operation, 0, len(l.ops))
	for i, op := range l.ops {
		if pid, ok := l.openPID[i]; ok {
			if d, dead := l.deaths[pid]; dead {
				if op.Call >= d {
					continue
				}
				op.Return = d
			}
		}
		out = append(out, op)
	}
	return out
}

// linChunkOps is the size from which the history is checked in pieces (see linChunks):
// porcupine's memory grows with the square of a partition's length.
const linChunkOps = 4000

// check runs porcupine on the history and returns one problem per piece and partition
// that is not linearizable (or one if the check ran out of time).
func (l *linHistory) check(timeout time.Duration) []string {
	var out []string
	chunks := linChunks(l.history(), linChunkOps)
	l.mu.Lock()
	l.pieces = len(chunks)
	l.mu.Unlock()
	for i, ops := range chunks {
		where := ""
		if len(chunks) > 1 {
			where = fmt.Sprintf(" (piece %d of %d)", i+1, len(chunks))
		}
		switch porcupine.CheckOperationsTimeout(linModel, ops, timeout) {
		case porcupine.Ok:
			continue
		case porcupine.Unknown:
			out = append(out, fmt.Sprintf("linearizability%s: the check of %d operations did not finish within %s", where, len(ops), timeout))
			continue
		}
		first := len(out)
		for _, part := range linPartition(ops) {
			res, info := porcupine.CheckOperationsVerbose(linModel, part, timeout)
			if res != porcupine.Ok {
				out = append(out, describeIllegal(part, info)+where)
			}
		}
		if len(out) == first { // cannot happen: a history is linearizable iff each partition is
			out = append(out, "linearizability"+where+": not linearizable, yet no partition alone fails")
		}
		// A picture of the history and the longest linearizations, for whoever debugs it.
		_, info := porcupine.CheckOperationsVerbose(linModel, ops, timeout)
		f := filepath.Join(os.TempDir(), fmt.Sprintf("baton-chaos-lin-%d.html", time.Now().UnixNano()))
		if err := porcupine.VisualizePath(linModel, info, f); err == nil {
			out[first] += " (visualization: " + f + ")"
		}
	}
	return out
}

// linChunks cuts a long history into pieces that are checked one by one, at snapshots that
// overlap no other operation: such a snapshot sees the whole state (every slot, the term,
// the generation) at an instant when nothing else is in flight, so the state there is the
// same in every linearization. The next piece starts from it, by operations that set it
// just before. A piece is cut only once it has at least min operations.
func linChunks(ops []porcupine.Operation, min int) [][]porcupine.Operation {
	if len(ops) <= min {
		return [][]porcupine.Operation{ops}
	}
	ops = append([]porcupine.Operation(nil), ops...)
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	slots := map[string]bool{}
	for _, op := range ops {
		if in := op.Input.(linInput); in.Kind == linWrite || in.Kind == linRead {
			slots[in.Part] = true
		}
	}
	var chunks [][]porcupine.Operation
	start := 0
	var maxRet int64 = math.MinInt64 // the latest return of the operations before i
	for i := 0; i < len(ops); {
		j := i // the snapshot group: the same call, return and client, with one term read
		for j < len(ops) && ops[j].Call == ops[i].Call && ops[j].Return == ops[i].Return && ops[j].ClientId == ops[i].ClientId {
			j++
		}
		g := ops[i:j]
		cut := i-start >= min && maxRet < g[0].Call && (j == len(ops) || ops[j].Call > g[0].Return) && pinsAll(g, slots)
		if cut {
			chunks = append(chunks, ops[start:j])
			next := make([]porcupine.Operation, 0, len(g))
			for _, op := range g {
				next = append(next, pinned(op))
			}
			rest := append(next, ops[j:]...)
			ops, start, i, maxRet = rest, 0, len(next), math.MinInt64
			for _, op := range next {
				maxRet = max(maxRet, op.Return)
			}
			continue
		}
		for _, op := range g {
			maxRet = max(maxRet, op.Return)
		}
		i = j
	}
	return append(chunks, ops[start:])
}

// pinsAll says whether group g is a snapshot that reads every slot, the term and the
// generation.
func pinsAll(g []porcupine.Operation, slots map[string]bool) bool {
	seen, term, gen := 0, false, false
	for _, op := range g {
		switch in := op.Input.(linInput); in.Kind {
		case linRead:
			if slots[in.Part] {
				seen++
			}
		case linTerm:
			term = true
		case linGen:
			gen = true
		default:
			return false
		}
	}
	return term && gen && seen == len(slots)
}

// pinned turns one operation of a pinning snapshot into one that sets what it saw, at the
// instant the snapshot returned (before everything that follows).
func pinned(op porcupine.Operation) porcupine.Operation {
	in, out := op.Input.(linInput), op.Output.(linOutput)
	switch in.Kind {
	case linRead:
		in = linInput{Kind: linWrite, Part: in.Part, Ver: out.Ver}
	case linTerm:
		in = linInput{Kind: linTakeover, Part: in.Part, PID: in.PID, Epoch: out.Epoch}
	}
	return porcupine.Operation{ClientId: op.ClientId, Input: in, Output: out, Call: op.Return, Return: op.Return}
}

// describeIllegal names a partition that is not linearizable: the end of its longest
// linearizable prefix and the first operations (by call time) that no order could fit.
func describeIllegal(part []porcupine.Operation, info porcupine.LinearizationInfo) string {
	name := part[0].Input.(linInput).Part
	var best []porcupine.Operation
	for _, p := range info.PartialLinearizationsOperations() {
		for _, lin := range p {
			if len(lin) > len(best) {
				best = lin
			}
		}
	}
	in := map[porcupine.Operation]bool{}
	for _, op := range best {
		in[op] = true
	}
	var left []porcupine.Operation
	for _, op := range part {
		if !in[op] {
			left = append(left, op)
		}
	}
	sort.Slice(left, func(i, j int) bool { return left[i].Call < left[j].Call })
	desc := func(ops []porcupine.Operation) string {
		var s []string
		for _, op := range ops {
			ret := "open"
			if op.Return != math.MaxInt64 {
				ret = fmt.Sprintf("%.1fms", float64(op.Return)/1e6)
			}
			s = append(s, fmt.Sprintf("%s [%.1fms, %s]", linDescribe(op.Input, op.Output), float64(op.Call)/1e6, ret))
		}
		return strings.Join(s, "; ")
	}
	tail := best
	if len(tail) > 4 {
		tail = tail[len(tail)-4:]
	}
	if len(left) > 4 {
		left = left[:4]
	}
	return fmt.Sprintf("linearizability: partition %s is not linearizable (%d operations): the longest linearizable order "+
		"has %d, ending with: %s; none of these fits after it: %s", name, len(part), len(best), desc(tail), desc(left))
}

// linSnap is what a snapshot reply says about the modelled state.
type linSnap struct {
	Generation uint64
	Epoch      uint64
	WriterPID  int
	Slots      map[int]int // slot -> version
}

// parseSnap reads a snapshot reply; it fails if a slot workflow is not a versioned slot.
func parseSnap(r map[string]any) (linSnap, error) {
	b, _ := json.Marshal(r)
	var s struct {
		Generation uint64 `json:"generation"`
		Epoch      uint64 `json:"epoch"`
		WriterPID  int    `json:"writer_pid"`
		Workflows  []struct {
			Name  string `json:"name"`
			Steps []struct {
				Argv []string `json:"argv"`
			} `json:"steps"`
		} `json:"workflows"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return linSnap{}, err
	}
	out := linSnap{Generation: s.Generation, Epoch: s.Epoch, WriterPID: s.WriterPID, Slots: map[int]int{}}
	for _, w := range s.Workflows {
		n, ok := strings.CutPrefix(w.Name, "slot-")
		if !ok {
			continue
		}
		slot, err := strconv.Atoi(n)
		if err != nil || len(w.Steps) != 1 || len(w.Steps[0].Argv) != 2 {
			return out, fmt.Errorf("slot workflow %s is not a versioned slot: %+v", w.Name, w.Steps)
		}
		v, err := strconv.Atoi(strings.TrimPrefix(w.Steps[0].Argv[1], "v"))
		if err != nil {
			return out, fmt.Errorf("slot workflow %s: bad version %q", w.Name, w.Steps[0].Argv[1])
		}
		out.Slots[slot] = v
	}
	return out, nil
}

// checkViews checks what every window published, reader or writer: in each window's
// changed events the generation only rises and the epoch never goes back, and two views
// of one generation, in any windows, carry the same epoch (one generation is one file).
func checkViews(cs []*child) []string {
	var out []string
	epochOf := map[uint64]uint64{}
	seenIn := map[uint64]int{}
	for _, c := range cs {
		c.mu.Lock()
		var lastGen, lastEpoch uint64
		for _, e := range c.events {
			if e["event"] != "changed" {
				continue
			}
			g, ep := uint64(toF(e["generation"])), uint64(toF(e["epoch"]))
			if g <= lastGen && lastGen != 0 {
				out = append(out, fmt.Sprintf("view of window %d went back: generation %d (epoch %d) after %d", c.pid, g, ep, lastGen))
			}
			if ep < lastEpoch {
				out = append(out, fmt.Sprintf("view of window %d went back: epoch %d (generation %d) after epoch %d", c.pid, ep, g, lastEpoch))
			}
			lastGen, lastEpoch = g, ep
			if prev, ok := epochOf[g]; ok && prev != ep {
				out = append(out, fmt.Sprintf("generation %d has two versions: epoch %d in window %d, epoch %d in window %d", g, prev, seenIn[g], ep, c.pid))
			} else if !ok {
				epochOf[g], seenIn[g] = ep, c.pid
			}
		}
		c.mu.Unlock()
	}
	return out
}

// TestLinearizeModel shows the model on small histories: what it must accept and what it
// must refuse.
func TestLinearizeModel(t *testing.T) {
	ms := func(n int) time.Time { return time.Time{}.Add(time.Duration(n) * time.Millisecond) }
	snap := func(gen, epoch uint64, v int) linSnap {
		return linSnap{Generation: gen, Epoch: epoch, Slots: map[int]int{0: v}}
	}
	for _, tc := range []struct {
		name  string
		build func(l *linHistory)
		ok    bool
	}{
		{"read your write", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.write(1, 0, 5, ms(2), ms(3), true, 2)
			l.read(0, 1, ms(4), ms(5), snap(2, 1, 5))
		}, true},
		{"stale read after an acknowledged write", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.write(1, 0, 5, ms(2), ms(3), true, 2)
			l.read(0, 1, ms(4), ms(5), snap(2, 1, 0))
		}, false},
		{"a write with no reply may show up late", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.write(1, 0, 5, ms(2), ms(3), false, 0)
			l.read(0, 1, ms(4), ms(5), snap(1, 1, 0))
			l.takeover(2, 2, ms(0), ms(7))
			l.read(0, 2, ms(8), ms(9), snap(3, 2, 5))
		}, true},
		{"a write with no reply may never show up", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.write(1, 0, 5, ms(2), ms(3), false, 0)
			l.takeover(2, 2, ms(0), ms(7))
			l.read(0, 2, ms(8), ms(9), snap(3, 2, 0))
		}, true},
		{"a write with no reply may have done nothing before its window died", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.write(1, 0, 5, ms(2), ms(3), false, 0)
			l.died(1, ms(6))
			l.takeover(2, 2, ms(0), ms(7))
			l.read(0, 2, ms(8), ms(9), snap(3, 2, 0))
		}, true},
		{"a write with no reply cannot show up after its window died", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.write(1, 0, 5, ms(2), ms(3), false, 0)
			l.died(1, ms(6))
			l.takeover(2, 2, ms(0), ms(7))
			l.read(0, 2, ms(8), ms(9), snap(3, 2, 0))
			l.read(0, 2, ms(10), ms(11), snap(3, 2, 5))
		}, false},
		{"a write sent after its window died did nothing", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.died(1, ms(2))
			l.write(1, 0, 5, ms(3), ms(4), false, 0)
			l.takeover(2, 2, ms(0), ms(7))
			l.read(0, 2, ms(8), ms(9), snap(3, 2, 5))
		}, false},
		{"a hand-over: a higher epoch while the old writer reads on, and hands back later", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.write(1, 0, 5, ms(2), ms(3), true, 2)
			l.read(0, 1, ms(4), ms(5), snap(2, 1, 5))
			l.takeover(2, 2, ms(0), ms(7)) // window 2 asked; window 1 never dies
			l.read(0, 2, ms(8), ms(9), snap(3, 2, 5))
			l.write(2, 0, 6, ms(10), ms(11), true, 4)
			l.takeover(1, 3, ms(0), ms(13)) // window 1 asks back: its second term
			l.read(0, 1, ms(14), ms(15), snap(5, 3, 6))
		}, true},
		{"a hand-over overlapping a write of the old writer", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.write(1, 0, 5, ms(2), ms(8), true, 2) // answered after the requester's event
			l.takeover(2, 2, ms(0), ms(7))
			l.read(0, 2, ms(9), ms(10), snap(3, 2, 5))
		}, true},
		{"the old writer still serving its term after the hand-over", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.takeover(2, 2, ms(0), ms(3))
			l.read(0, 2, ms(4), ms(5), snap(3, 2, 0))
			l.read(0, 1, ms(6), ms(7), snap(3, 1, 0))
		}, false},
		{"the requester's write lost at the hand-back", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.takeover(2, 2, ms(0), ms(3))
			l.write(2, 0, 6, ms(4), ms(5), true, 3)
			l.takeover(1, 3, ms(0), ms(7))
			l.read(0, 1, ms(8), ms(9), snap(4, 3, 0))
		}, false},
		{"a hand-over that keeps the epoch", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.read(0, 1, ms(2), ms(3), snap(2, 1, 0))
			l.takeover(2, 1, ms(0), ms(5))
			l.read(0, 2, ms(6), ms(7), snap(3, 1, 0))
		}, false},
		{"generation goes back", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.read(0, 1, ms(2), ms(3), snap(5, 1, 0))
			l.read(0, 1, ms(4), ms(5), snap(4, 1, 0))
		}, false},
		{"two terms with one epoch", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.takeover(2, 2, ms(0), ms(3))
			l.read(0, 2, ms(4), ms(5), snap(3, 2, 0))
			l.takeover(3, 2, ms(0), ms(7))
			l.read(0, 3, ms(8), ms(9), snap(4, 2, 0))
		}, false},
		{"a new writer serving its predecessor's epoch", func(l *linHistory) {
			l.takeover(1, 1, ms(0), ms(1))
			l.read(0, 1, ms(2), ms(3), snap(2, 1, 0))
			l.read(0, 2, ms(4), ms(5), snap(3, 1, 0))
		}, false},
	} {
		l := newLinHistory()
		l.base = time.Time{}
		tc.build(l)
		got := l.check(10 * time.Second)
		if tc.ok && len(got) > 0 {
			t.Errorf("%s: refused a linearizable history: %q", tc.name, got)
		}
		if !tc.ok && len(got) == 0 {
			t.Errorf("%s: accepted a history that is not linearizable", tc.name)
		}
	}
}

// TestCheckViews shows checkViews on made-up event streams.
func TestCheckViews(t *testing.T) {
	win := func(pid int, views ...[2]uint64) *child {
		c := &child{pid: pid}
		for _, v := range views {
			c.events = append(c.events, map[string]any{"event": "changed", "generation": float64(v[0]), "epoch": float64(v[1])})
			c.events = append(c.events, map[string]any{"event": "run", "run": "r1", "status": "running"})
		}
		return c
	}
	for _, tc := range []struct {
		name string
		cs   []*child
		want string
	}{
		{"views that rise", []*child{win(1, [2]uint64{1, 1}, [2]uint64{2, 1}, [2]uint64{5, 2}), win(2, [2]uint64{2, 1}, [2]uint64{5, 2})}, ""},
		{"a generation goes back", []*child{win(1, [2]uint64{3, 1}, [2]uint64{2, 1})}, "generation 2 (epoch 1) after 3"},
		{"a generation repeats", []*child{win(1, [2]uint64{3, 1}, [2]uint64{3, 1})}, "generation 3 (epoch 1) after 3"},
		{"an epoch goes back", []*child{win(1, [2]uint64{3, 2}, [2]uint64{4, 1})}, "epoch 1 (generation 4) after epoch 2"},
		{"two files of one generation", []*child{win(1, [2]uint64{3, 1}, [2]uint64{4, 2}), win(2, [2]uint64{4, 3})}, "generation 4 has two versions"},
	} {
		got := checkViews(tc.cs)
		if tc.want == "" && len(got) > 0 || tc.want != "" && !hasContaining(got, tc.want) {
			t.Errorf("%s: checkViews = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestLinChunks: a long history checked in pieces gives the verdict of the whole, the
// state carried across each cut included.
func TestLinChunks(t *testing.T) {
	t.Parallel()
	const slots = 3
	build := func(bad int) *linHistory {
		l := newLinHistory()
		l.base = time.Time{}
		at := func(n int) time.Time { return time.Time{}.Add(time.Duration(n) * time.Microsecond) }
		l.takeover(1, 1, at(0), at(1))
		vers := make([]int, slots)
		n, pid, epoch := 10, 1, uint64(1)
		for i := 1; i <= 3000; i++ {
			slot := i % slots
			vers[slot] = i
			l.write(pid, slot, i, at(n), at(n+2), true, uint64(i+1)) // overlaps the next read
			if i == 1505 {
				// A takeover that begins as the next read ends, and which that read sees: a
				// cut there would pin its epoch and then replay it.
				pid, epoch = 2, 2
			}
			s := linSnap{Generation: uint64(i + 1), Epoch: epoch, Slots: map[int]int{}}
			for k, v := range vers {
				s.Slots[k] = v
			}
			start := n + 1
			if i%7 == 0 {
				start = n + 3 // this read overlaps nothing: a place to cut
			} else if i%5 == 0 && i > slots {
				s.Slots[slot] = vers[slot] - slots // it overlaps the write and comes first
			}
			if i == bad {
				s.Slots[slot] = vers[slot] - 2*slots // a version overwritten before this read began
			}
			l.read(0, pid, at(start), at(start+1), s)
			if i == 1505 {
				l.takeover(pid, epoch, at(start+1), at(start+2))
			}
			n += 5
		}
		return l
	}
	good := build(-1)
	pieces := linChunks(good.history(), 300)
	if len(pieces) < 5 {
		t.Fatalf("a 3000-write history was cut into %d pieces, want many", len(pieces))
	}
	for _, min := range []int{300, 1} { // 1: cut at every snapshot that allows it
		if got := checkPieces(good.history(), min); len(got) > 0 {
			t.Fatalf("refused a linearizable history in pieces of %d: %q", min, got)
		}
	}
	// Without the state carried over a cut, every piece but the first would be refused
	// (it would start from v0); a stale read anywhere is found, right after a cut too.
	after := 0
	for _, op := range pieces[1] {
		if in := op.Input.(linInput); in.Kind == linWrite && op.Call != op.Return {
			after = in.Ver // the first real write of the second piece
			break
		}
	}
	for _, bad := range []int{7, 700, 1401, 2999, after} {
		if got := checkPieces(build(bad).history(), 300); len(got) == 0 {
			t.Errorf("a stale read at write %d was not found when checked in pieces", bad)
		}
	}
}

// checkPieces checks ops in pieces of at least min operations.
func checkPieces(ops []porcupine.Operation, min int) []string {
	var out []string
	for i, p := range linChunks(ops, min) {
		if !porcupine.CheckOperations(linModel, p) {
			out = append(out, fmt.Sprintf("piece %d is not linearizable", i))
		}
	}
	return out
}
