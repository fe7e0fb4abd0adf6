package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Recovery is the explicit act that makes a damaged home (ErrDamaged, or a workflows.json
// that cannot be read) usable again without losing what can be kept:
//
//  1. what can be restored: the newest good document (workflows.json, workflows.prev.json
//     or, from a window, the one it holds in memory) plus every frame of workflows.wal
//     that still chains onto it; what cannot be (frames after a damaged one, a log of
//     another home) is named;
//  2. the damaged files are moved aside, into a dated folder inside the home
//     (damaged-<time>/), never deleted;
//  3. the recovered document is written durably, with the next generation after any this
//     home has seen, beside a new log;
//  4. the audit log records what was restored and what could not be.
//
// PlanRecovery does step 1 only and changes nothing. Recover does all four; its caller
// must hold the home's writer lock (state.lock), so no window writes meanwhile.

// KindRecovery is the audit kind of a Recovery.
const KindRecovery = "recovery"

// DamagedPrefix starts the name of the folder Recover moves damaged files into.
const DamagedPrefix = "damaged-"

// ErrNotDamaged is returned by PlanRecovery and Recover when the home reads as it is:
// there is nothing to recover.
var ErrNotDamaged = errors.New("the home is not damaged: nothing to recover")

// Recovery says what Recover restored, or what PlanRecovery found it would restore.
type Recovery struct {
	Damage         string   `json:"damage"`              // what was wrong, as a window reports it
	From           string   `json:"from"`                // the document restored from
	FromGeneration uint64   `json:"from_generation"`     // its generation
	Frames         int      `json:"frames"`              // frames of workflows.wal replayed on it
	Restored       uint64   `json:"restored_generation"` // the newest generation restored
	Generation     uint64   `json:"generation"`          // the generation the recovered document is saved as
	Workflows      int      `json:"workflows"`           // in the recovered document
	Runs           int      `json:"runs"`                // in the recovered document
	Lost           []string `json:"lost,omitempty"`      // what could not be restored
	MovedTo        string   `json:"moved_to,omitempty"`  // the folder the damaged files went to
	Moved          []string `json:"moved,omitempty"`     // the files moved there
	doc            *Doc     // the document Recover saves
}

// AuditKind makes a Recovery an audit record.
func (Recovery) AuditKind() string { return KindRecovery }

// candidate is one document recovery may start from.
type candidate struct {
	name string
	doc  *Doc
}

// walImage is workflows.wal as read whole for recovery.
type walImage struct {
	b      []byte
	head   walHead
	ok     bool  // head is a cycle
	err    error // why the log cannot be used at all (its header is damaged)
	exists bool
}

func readWALImage(dir string) walImage {
	data, err := ReadInHome(filepath.Join(dir, WALName))
	if errors.Is(err, os.ErrNotExist) {
		return walImage{}
	}
	w := walImage{b: data, exists: true, err: err}
	if err == nil {
		w.head, w.ok, w.err = parseWALHeader(data)
	}
	return w
}

// PlanRecovery finds what Recover would restore in the home dir, changing nothing.
// memory, if not nil, is a good document a window holds (it may be newer than any file).
// It returns ErrNotDamaged when the home reads as it is, and an error when no good
// document is left to restore from.
func PlanRecovery(dir string, memory *Doc) (*Recovery, error) {
	_, err := ReadHome(dir)
	if err == nil {
		return nil, ErrNotDamaged
	}
	if !errors.Is(err, ErrUnreadable) {
		return nil, err
	}
	r := &Recovery{Damage: err.Error()}
	log := readWALImage(dir)
	cands := r.candidates(dir, memory)
	home := homeOf(log, cands)
	var best *Doc
	for _, c := range cands {
		if c.doc.Home != "" && c.doc.Home != home {
			r.Lost = append(r.Lost, fmt.Sprintf("%s belongs to home %s, not to this home (%s): not used", c.name, c.doc.Home, home))
			continue
		}
		doc, frames := replay(c.doc, log, home)
		if best == nil || best.Before(doc) {
			best, r.From, r.FromGeneration, r.Frames = doc, c.name, c.doc.Generation, frames
		}
	}
	if best == nil {
		return nil, fmt.Errorf("%w: nothing to restore from: neither %s nor %s is a good document of this home (%s). Nothing was changed",
			ErrUnreadable, FileName, PrevName, joinLost(r.Lost))
	}
	maxGen, maxEpoch := r.lostFrames(log, home, best)
	for _, c := range cands {
		maxGen, maxEpoch = max(maxGen, c.doc.Generation), max(maxEpoch, c.doc.Epoch)
	}
	doc := *best
	doc.Generation, doc.Epoch, doc.Log = max(maxGen, best.Generation)+1, max(maxEpoch, best.Epoch), nil
	if doc.Home = home; home == "" {
		if doc.Home, err = newHomeID(); err != nil {
			return nil, err
		}
	}
	r.Restored, r.Generation = best.Generation, doc.Generation
	r.Workflows, r.Runs, r.doc = len(doc.Workflows), len(doc.Runs), &doc
	r.unknownRuns(dir, &doc)
	return r, nil
}

// unknownRuns names the runs whose supervisor files (runs/<id>.spec.json, kept until the
// run's end is saved) are in the home but that the recovered document does not have:
// runs only the lost saves recorded. Their files are left; a supervisor may still run.
func (r *Recovery) unknownRuns(dir string, doc *Doc) {
	ents, _ := os.ReadDir(filepath.Join(dir, "runs"))
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".spec.json")
		if ok && doc.Run(id) == nil {
			r.Lost = append(r.Lost, fmt.Sprintf("run %s, recorded only in the lost saves: its files stay in %s (its supervisor may still be running)",
				id, filepath.Join(dir, "runs")))
		}
	}
}

// candidates reads the documents recovery may start from, naming those it cannot read.
func (r *Recovery) candidates(dir string, memory *Doc) []candidate {
	var out []candidate
	for _, name := range []string{FileName, PrevName} {
		data, err := ReadInHome(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		var d *Doc
		if err == nil {
			d, err = Decode(data)
		}
		if err != nil {
			r.Lost = append(r.Lost, fmt.Sprintf("%s cannot be read: %v", name, err))
			continue
		}
		out = append(out, candidate{name, d})
	}
	if memory != nil && memory.Generation > 0 {
		out = append(out, candidate{"the window's memory", memory})
	}
	return out
}

// homeOf decides which home the files are of: the id most of them carry (the log's
// header, workflows.json, workflows.prev.json), the first of those on a tie.
func homeOf(log walImage, cands []candidate) string {
	var ids []string
	if log.ok && log.head.home != "" {
		ids = append(ids, log.head.home)
	}
	for _, c := range cands {
		if c.doc.Home != "" {
			ids = append(ids, c.doc.Home)
		}
	}
	best, votes := "", 0
	for _, id := range ids {
		n := 0
		for _, other := range ids {
			if other == id {
				n++
			}
		}
		if n > votes {
			best, votes = id, n
		}
	}
	return best
}

// replay applies to base every frame of the log's cycle that chains onto it.
func replay(base *Doc, log walImage, home string) (*Doc, int) {
	h := log.head
	if !log.ok || h.home != home && h.version >= 2 || h.base != base.Generation || int64(len(log.b)) < h.size() {
		return base, 0
	}
	key, b, cur, n := h.key(), log.b[h.size():], base, 0
	for {
		g, e, payload, size, ok := nextFrame(key, b)
		if !ok || g != cur.Generation+1 {
			return cur, n
		}
		doc, err := decodeFrame(cur, g, e, payload)
		if err != nil {
			return cur, n
		}
		cur, n, b = doc, n+1, b[size:]
	}
}

// lostFrames names what of the log could not be restored onto best, and returns the
// highest generation and epoch of the good frames of its cycle (restored or not).
func (r *Recovery) lostFrames(log walImage, home string, best *Doc) (maxGen, maxEpoch uint64) {
	h := log.head
	switch {
	case !log.exists:
		if best.Log != nil {
			r.Lost = append(r.Lost, fmt.Sprintf("%s is missing: saves after generation %d that only it held are lost", WALName, best.Generation))
		}
		return 0, 0
	case log.err != nil:
		r.Lost = append(r.Lost, fmt.Sprintf("%s cannot be used (%v): saves after generation %d that only it held are lost", WALName, log.err, best.Generation))
		return 0, 0
	case !log.ok:
		r.Lost = append(r.Lost, fmt.Sprintf("%s holds no cycle (zeros): saves after generation %d that only it held are lost", WALName, best.Generation))
		return 0, 0
	case h.version >= 2 && h.home != home:
		r.Lost = append(r.Lost, fmt.Sprintf("%s belongs to home %s, not to this home (%s): none of its frames were used", WALName, h.home, home))
		return 0, 0
	case int64(len(log.b)) != walSize:
		r.Lost = append(r.Lost, fmt.Sprintf("%s is %d bytes, not %d: frames in its missing part are lost", WALName, len(log.b), walSize))
	}
	key, b := h.key(), log.b[min(int64(len(log.b)), h.size()):]
	var n int
	var first, last uint64
	for at := 0; at < len(b); {
		i, g, ok := findFrame(b[at:], key, h.base, h.base+walSize/walFrameHead)
		if !ok {
			break
		}
		_, e, _, size, _ := nextFrame(key, b[at+i:])
		maxGen, maxEpoch = max(maxGen, g), max(maxEpoch, e)
		if g > best.Generation {
			if n == 0 || g < first {
				first = g
			}
			n, last = n+1, max(last, g)
		}
		at += i + size
	}
	if n > 0 {
		r.Lost = append(r.Lost, fmt.Sprintf("%d good frame(s) of %s (generations %d to %d) could not be replayed: a damaged or missing save comes before them",
			n, WALName, first, last))
	}
	return maxGen, maxEpoch
}

func joinLost(lost []string) string {
	if len(lost) == 0 {
		return "neither exists"
	}
	out := lost[0]
	for _, l := range lost[1:] {
		out += "; " + l
	}
	return out
}

// Recover restores the home dir as PlanRecovery finds it can: it moves the damaged files
// aside into DamagedPrefix+time (inside dir, never deleting), writes the recovered
// document durably with a new log, and records the Recovery in the audit log. The caller
// must hold state.lock (no window writes). It blocks for the moves and the saves; on an
// error after the moves the files stay in the folder it names, and the home reads as
// missing its document (damage), so nothing is taken for a new home.
//
// The record goes to audit, the caller's audit log of dir (one per process, so that its
// entries are written in order and never contend with each other for the log's lock).
// When audit cannot write it at once (another process holds the log's lock, the disk
// refuses), the home is restored all the same and the error wraps ErrAuditHeld: the
// entry is held by audit, which writes it later (see Audit.CloseWithin for a process
// about to exit).
func Recover(dir string, memory *Doc, now time.Time, audit *Audit) (*Recovery, error) {
	r, err := PlanRecovery(dir, memory)
	if err != nil {
		return nil, err
	}
	aside, err := makeAside(dir, now)
	if err != nil {
		return nil, err
	}
	r.MovedTo = aside
	for _, name := range r.damagedFiles(dir) {
		if err := rename(filepath.Join(dir, name), filepath.Join(aside, name)); err != nil {
			return r, fmt.Errorf("recover: move %s aside to %s: %w", name, aside, err)
		}
		r.Moved = append(r.Moved, name)
	}
	if err := SyncDirAt(SyncRecover, aside); err == nil {
		err = SyncDirAt(SyncRecover, dir)
	}
	if err != nil {
		return r, fmt.Errorf("recover: fsync after moving files to %s: %w", aside, err)
	}
	st := New(dir, Options{})
	st.mu.Lock()
	st.cur = r.doc
	_, err = st.saveWholeLocked(r.doc)
	if st.wal.f != nil {
		st.wal.f.Close()
	}
	st.mu.Unlock()
	if err != nil {
		return r, fmt.Errorf("recover: write the recovered %s: %w (the damaged files are in %s)", FileName, err, aside)
	}
	if err := audit.Append(*r); err != nil {
		return r, fmt.Errorf("recover: the home is restored, but the audit log could not record it yet: %w", err)
	}
	return r, nil
}

// damagedFiles lists the files Recover moves aside: the document and the log (both are
// replaced), and a previous document that cannot be read or is of another home (it would
// otherwise never be replaced).
func (r *Recovery) damagedFiles(dir string) []string {
	var out []string
	for _, name := range []string{FileName, WALName} {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			out = append(out, name)
		}
	}
	if prev, ok, err := prevDoc(dir); ok && (err != nil || prev.Home != "" && prev.Home != r.doc.Home) {
		out = append(out, PrevName)
	}
	return out
}

// makeAside creates the dated folder damaged files go to.
func makeAside(dir string, now time.Time) (string, error) {
	base := filepath.Join(dir, DamagedPrefix+now.UTC().Format("20060102T150405Z"))
	for i := 0; ; i++ {
		p := base
		if i > 0 {
			p = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(p, 0o700)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, os.ErrExist) || i > 100 {
			return "", fmt.Errorf("recover: create %s: %w", p, err)
		}
	}
}
