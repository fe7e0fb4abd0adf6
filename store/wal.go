package store

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
)

// The write-ahead log, workflows.wal: how a write becomes durable without rewriting
// workflows.json. A save that changes a few runs appends one frame (what changed) to the
// log and makes it durable with one fdatasync, as SQLite's WAL does; workflows.json is
// rewritten whole only now and then (a checkpoint: at most CheckpointAfter after the first
// frame it lacks, when the log is full, at a writer's first save and at a clean close).
// So workflows.json stays the complete human-readable document, at most a moment behind,
// and the document every window works from is workflows.json plus the frames that follow
// it. Readers follow the log through the same folder watch and apply each new frame.
//
// Layout. The file has a fixed size (walSize, written with zeros once, so an append
// overwrites blocks that exist and fdatasync writes no metadata). It holds one cycle: a
// header, then frames, then whatever an older cycle left. A cycle follows one version of
// workflows.json:
//
//	header: "BATONWAL" | version u32 | crc u32 | salt u64 | base u64 | home [16]  (48 bytes)
//	frame:  length u32 | crc u32 | generation u64 | epoch u64 | payload (length bytes, JSON)
//
// base is the generation of the workflows.json the cycle's frames follow; the frames carry
// base+1, base+2, ... in order. home is the home's id (Doc.Home). Each frame's crc
// (Castagnoli) covers the salt and the home id too, and every cycle has a new random
// salt, so a frame left by an older cycle, or by another home, (or torn by a crash
// mid-write) never passes for one of this cycle: a reader applies frames until the first
// that does not check out or does not carry the next generation. Integers are
// little-endian. Version 1 (before home ids: a 40-byte header without home, crcs without
// it) is still read; a version 1 cycle is never continued: the first save of a home
// without an id is whole, gives it one and starts a version 2 cycle.
//
// Identity and links. Each whole save of workflows.json records in its "log" field (see
// LogLink) the cycle it absorbed, whose header the log holds until the next cycle begins,
// and the salt of the cycle that will follow it, drawn before the save. The log is
// created (full size, a header) before the first workflows.json that names a cycle, so
// for a document with a link the log must exist, be walSize bytes, and hold one of those
// two cycles with this home's id; anything else means saves may be missing (ErrDamaged).
// Only the very last frame may fail its check (a crash mid-write): a frame that fails
// while a good frame of the cycle with a later generation lies after it is damage too.
//
// Durability. A frame is acknowledged only after its fdatasync. A new cycle begins only
// after workflows.json holds everything the old one had (the checkpoint's save is durable
// first), and its header is written in the same write as its first frame, at offset 0
// (within one page, so a kill cannot tear the header). The log is never deleted (Recover
// moves a damaged one aside).
//
// Takeover. A new writer goes on with the cycle it read (its first frame carries its new
// epoch and overwrites whatever a killed writer left half-written after the last whole
// frame), or starts a new one if it read none. Fencing: before each save a writer reads
// the log on from its own last frame as a reader does; a frame of another writer carries
// a higher epoch, which means another window took over, and it stops writing (ErrFenced),
// as it does for a workflows.json saved by another.

// WALName is the write-ahead log's name inside the home folder.
const WALName = "workflows.wal"

const (
	walMagic      = "BATONWAL"
	walVersion    = 2
	walHeaderV1   = 40 // a version 1 header: no home id
	walHeaderSize = 48
	walFrameHead  = 24
	// walSize is the log's fixed size: about 500 frames of a run's change.
	walSize = 1 << 20
	// walMaxFrame caps one frame; a bigger change is saved whole instead.
	walMaxFrame = 128 << 10
	// DefaultCheckpointAfter is how long workflows.json may lag the log at most.
	DefaultCheckpointAfter = time.Second
)

var walCRC = crc32.MakeTable(crc32.Castagnoli)

// ErrWAL is returned (wrapped with ErrUnreadable and ErrDamaged) when workflows.wal is
// damaged: a header that is not Baton's, a frame that checks out but does not decode or
// leaves an invalid document, a frame that fails its check with good ones after it, a
// cycle or size that does not fit workflows.json. Nothing is written until Recover.
var ErrWAL = errors.New("workflows.wal is damaged")

// errWALAhead says the log's cycle follows a newer workflows.json than the one read: the
// file was replaced meanwhile, so the caller reads it again.
var errWALAhead = errors.New("workflows.wal follows a newer workflows.json")

// walState is what a store knows of the log. Guarded by Store.mu.
type walState struct {
	f     *os.File
	rw    bool   // f was opened for writing (the writer's)
	salt  uint64 // the cycle whose frames are applied to cur; 0: none, cur is workflows.json's
	key   []byte // that cycle's checksum key (see walHead.key)
	off   int64  // where the next frame of that cycle goes
	seen  []byte // the log's bytes [0, off) as read or written, to check a forced re-read
	buf   []byte // for reading frames
	timer *time.Timer
}

// walRec is a frame's payload: what one save changed. Workflows (by name), schedules (by
// id) and runs (by id) that were added or changed are carried one by one, with the keys of
// those removed; the applied list whole when it changed; the small fields always.
type walRec struct {
	Seq           uint64     `json:"seq"`
	Writer        *Owner     `json:"writer"`
	HandoverTo    *Owner     `json:"handover_to"`
	Retention     *Retention `json:"retention"`
	Workflows     []Workflow `json:"workflows,omitempty"`
	WorkflowsGone []string   `json:"workflows_gone,omitempty"`
	Schedules     []Schedule `json:"schedules,omitempty"`
	SchedulesGone []string   `json:"schedules_gone,omitempty"`
	Runs          []Run      `json:"runs,omitempty"`
	RunsGone      []string   `json:"runs_gone,omitempty"`
	Applied       *[]Applied `json:"applied,omitempty"`
}

func workflowKey(w *Workflow) string { return w.Name }
func scheduleKey(s *Schedule) string { return s.ID }
func runKey(r *Run) string           { return r.ID }

// walDelta returns what changed from prev to next. Replayed on prev (see apply) it gives
// a document that encodes as next does.
func walDelta(prev, next *Doc) *walRec {
	rec := &walRec{Seq: next.Seq, Writer: next.Writer, HandoverTo: next.HandoverTo, Retention: next.Retention}
	rec.Workflows, rec.WorkflowsGone = listDelta(prev.Workflows, next.Workflows, workflowKey, workflowEqual)
	rec.Schedules, rec.SchedulesGone = listDelta(prev.Schedules, next.Schedules, scheduleKey, scheduleEqual)
	rec.Runs, rec.RunsGone = listDelta(prev.Runs, next.Runs, runKey, runEqual)
	if !slices.EqualFunc(prev.Applied, next.Applied, appliedEqual) {
		a := next.Applied
		if a == nil {
			a = []Applied{}
		}
		rec.Applied = &a
	}
	return rec
}

// listDelta returns what changed from prev to next, two lists whose items have unique
// keys: the items added or changed, in next's order, and the keys of the items removed.
// Items keep their order in a document: one is changed in place, removed, or added at
// the end; a walk of both lists side by side finds that, and anything else (an item moved
// or renamed) shows as removed and added again, which replays (see listApply) to next's
// order all the same.
func listDelta[T any](prev, next []T, key func(*T) string, equal func(*T, *T) bool) (set []T, gone []string) {
	i, j := 0, 0
	for i < len(prev) && j < len(next) {
		p, n := &prev[i], &next[j]
		if key(p) != key(n) {
			gone = append(gone, key(p))
			i++
			continue
		}
		if !equal(p, n) {
			set = append(set, *n)
		}
		i, j = i+1, j+1
	}
	for ; i < len(prev); i++ {
		gone = append(gone, key(&prev[i]))
	}
	return append(set, next[j:]...), gone
}

// listApply replays a listDelta on prev: the removed items go, then each item set
// replaces the one with its key or is added at the end. prev is not modified.
func listApply[T any](prev, set []T, gone []string, key func(*T) string) []T {
	if len(set) == 0 && len(gone) == 0 {
		return prev
	}
	drop := make(map[string]bool, len(gone))
	for _, k := range gone {
		drop[k] = true
	}
	out := make([]T, 0, len(prev)+len(set))
	at := make(map[string]int, len(prev))
	for i := range prev {
		if k := key(&prev[i]); !drop[k] {
			at[k] = len(out)
			out = append(out, prev[i])
		}
	}
	for i := range set {
		if k, ok := at[key(&set[i])]; ok {
			out[k] = set[i]
		} else {
			at[key(&set[i])] = len(out)
			out = append(out, set[i])
		}
	}
	return out
}

// The equalities of walDelta (reflect.DeepEqual took 4 ms on a home of 1,000 workflows).
// Each names every field of its struct; TestWALEqualitiesSeeEveryField changes each field
// of each struct, by reflection, and fails if an equality misses one, so a field added
// later cannot be left out unnoticed. A false "not equal" only makes a frame carry a list
// whole.

func workflowEqual(a, b *Workflow) bool {
	return a.Name == b.Name && a.MaxConcurrent == b.MaxConcurrent && a.OnOwnerLost == b.OnOwnerLost &&
		ptrEqual(a.Retention, b.Retention) && slices.EqualFunc(a.Steps, b.Steps, stepEqual)
}

func stepEqual(a, b Step) bool {
	return a.Name == b.Name && a.Timeout == b.Timeout && a.Dir == b.Dir &&
		slices.Equal(a.Argv, b.Argv) && maps.Equal(a.Env, b.Env)
}

func scheduleEqual(a, b *Schedule) bool {
	return a.ID == b.ID && a.Workflow == b.Workflow && a.Every == b.Every && a.Cron == b.Cron &&
		a.TZ == b.TZ && a.Paused == b.Paused && a.Overlap == b.Overlap && a.MaxRuntime == b.MaxRuntime &&
		a.OnOverrun == b.OnOverrun && a.CatchUp == b.CatchUp && a.CatchUpWindow == b.CatchUpWindow &&
		ptrEqual(a.Watermark, b.Watermark) && a.Created == b.Created && a.LastDue == b.LastDue &&
		a.NextDue == b.NextDue && ptrEqual(a.Lock, b.Lock) && slices.Equal(a.Pending, b.Pending) &&
		a.LastRun == b.LastRun && a.LastStatus == b.LastStatus && a.Ticked == b.Ticked && a.TickGap == b.TickGap
}

func appliedEqual(a, b Applied) bool {
	return a.ID == b.ID && a.At == b.At && bytes.Equal(a.Reply, b.Reply)
}

// apply returns prev with rec replayed, generation g and epoch e. prev is not modified;
// the result shares what did not change with it (documents are never modified).
func (rec *walRec) apply(prev *Doc, g, e uint64) *Doc {
	d := *prev
	d.Generation, d.Epoch = g, e
	d.Seq, d.Writer, d.HandoverTo, d.Retention = rec.Seq, rec.Writer, rec.HandoverTo, rec.Retention
	d.Workflows = listApply(prev.Workflows, rec.Workflows, rec.WorkflowsGone, workflowKey)
	d.Schedules = listApply(prev.Schedules, rec.Schedules, rec.SchedulesGone, scheduleKey)
	d.Runs = listApply(prev.Runs, rec.Runs, rec.RunsGone, runKey)
	if rec.Applied != nil {
		d.Applied = *rec.Applied
		if len(d.Applied) == 0 {
			d.Applied = nil
		}
	}
	return &d
}

// walHead is a cycle's header, decoded.
type walHead struct {
	version    uint32
	salt, base uint64
	home       string // the home id, hex; "" in a version 1 header
}

// size is where the cycle's frames begin.
func (h walHead) size() int64 {
	if h.version == 1 {
		return walHeaderV1
	}
	return walHeaderSize
}

// key is what each frame's checksum covers besides the frame: the salt, and from
// version 2 the home id.
func (h walHead) key() []byte {
	k := binary.LittleEndian.AppendUint64(nil, h.salt)
	if h.version >= 2 {
		id, _ := hex.DecodeString(h.home)
		k = append(k, id...)
	}
	return k
}

// walHeader encodes a cycle's header (version 2).
func walHeader(salt, base uint64, home string) []byte {
	h := make([]byte, walHeaderSize)
	copy(h, walMagic)
	binary.LittleEndian.PutUint32(h[8:], walVersion)
	binary.LittleEndian.PutUint64(h[16:], salt)
	binary.LittleEndian.PutUint64(h[24:], base)
	id, _ := hex.DecodeString(home)
	copy(h[32:], id)
	binary.LittleEndian.PutUint32(h[12:], crc32.Checksum(h[16:], walCRC))
	return h
}

// parseWALHeader decodes a header: ok false for a log with no cycle yet (all zeros), an
// error (ErrDamaged) for one that is not a Baton log or is damaged.
func parseWALHeader(h []byte) (head walHead, ok bool, err error) {
	if len(h) < walHeaderSize || allZero(h[:walHeaderSize]) {
		return walHead{}, false, nil
	}
	v := binary.LittleEndian.Uint32(h[8:])
	switch {
	case string(h[:8]) != walMagic:
		return walHead{}, false, walDamage("%s does not start with %q", WALName, walMagic)
	case v != 1 && v != walVersion:
		return walHead{}, false, walDamage("%s has version %d, this Baton reads 1 and %d", WALName, v, walVersion)
	}
	head = walHead{version: v, salt: binary.LittleEndian.Uint64(h[16:]), base: binary.LittleEndian.Uint64(h[24:])}
	if binary.LittleEndian.Uint32(h[12:]) != crc32.Checksum(h[16:head.size()], walCRC) {
		return walHead{}, false, walDamage("%s header checksum does not match", WALName)
	}
	if v >= 2 {
		head.home = hex.EncodeToString(h[32:48])
	}
	return head, true, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// walFrame encodes one frame of the cycle whose checksum key is key.
func walFrame(key []byte, g, e uint64, payload []byte) []byte {
	f := make([]byte, walFrameHead+len(payload))
	binary.LittleEndian.PutUint32(f, uint32(len(payload)))
	binary.LittleEndian.PutUint64(f[8:], g)
	binary.LittleEndian.PutUint64(f[16:], e)
	copy(f[walFrameHead:], payload)
	binary.LittleEndian.PutUint32(f[4:], frameCRC(key, f))
	return f
}

func frameCRC(key []byte, f []byte) uint32 {
	return crc32.Update(crc32.Checksum(key, walCRC), walCRC, f[8:])
}

// nextFrame parses the frame at the start of b, if a whole one of the cycle is there.
func nextFrame(key []byte, b []byte) (g, e uint64, payload []byte, n int, ok bool) {
	if len(b) < walFrameHead {
		return 0, 0, nil, 0, false
	}
	size := int(binary.LittleEndian.Uint32(b))
	if size == 0 || size > walMaxFrame || walFrameHead+size > len(b) {
		return 0, 0, nil, 0, false
	}
	f := b[:walFrameHead+size]
	if binary.LittleEndian.Uint32(f[4:]) != frameCRC(key, f) {
		return 0, 0, nil, 0, false
	}
	return binary.LittleEndian.Uint64(f[8:]), binary.LittleEndian.Uint64(f[16:]), f[walFrameHead:], len(f), true
}

// saltHex and hexSalt convert a cycle's salt to and from its form in LogLink.
func saltHex(salt uint64) string { return fmt.Sprintf("%016x", salt) }

func hexSalt(s string) uint64 {
	v, _ := strconv.ParseUint(s, 16, 64)
	return v
}

func (s *Store) walPath() string { return filepath.Join(s.dir, WALName) }

// walOpenLocked opens the log for reading (or, with write, for writing, creating it at its
// full size). It reports false when there is no log to read.
func (s *Store) walOpenLocked(write bool) (bool, error) {
	if s.wal.f != nil && (s.wal.rw || !write) {
		return true, nil
	}
	if !write {
		f, err := openFile(s.walPath(), os.O_RDONLY, 0)
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("%w: %s: %v", ErrUnreadable, WALName, err)
		}
		s.wal.f = f
		return true, nil
	}
	f, err := openFile(s.walPath(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return false, fmt.Errorf("open %s: %w", WALName, err)
	}
	fi, err := f.Stat()
	if err == nil && fi.Size() < walSize {
		// Written once with zeros (not a sparse or fallocated file), so that appends later
		// overwrite blocks that exist and their fdatasync has no metadata to write.
		if _, err = f.WriteAt(make([]byte, walSize-fi.Size()), fi.Size()); err == nil {
			if err = FsyncAt(SyncWALCreate, f); err == nil {
				err = SyncDirAt(SyncWALCreateDir, s.dir)
			}
		}
	}
	if err != nil {
		f.Close()
		return false, fmt.Errorf("create %s: %w", WALName, err)
	}
	if s.wal.f != nil {
		s.wal.f.Close()
	}
	s.wal.f, s.wal.rw = f, true
	return true, nil
}

// isFileAt reports whether open file f is the file at path now.
func isFileAt(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// walForgetLocked drops what the store knew of the log's frames: cur is workflows.json's.
func (s *Store) walForgetLocked() {
	s.wal.salt, s.wal.off, s.wal.seen = 0, 0, s.wal.seen[:0]
}

// walReadLocked applies the log's frames that follow the document in memory. from0 reads
// the cycle from its header (cur must then be workflows.json's document, as just read,
// and the header must be one that document links to: see walMatchLocked); otherwise it
// reads on from where the last read stopped, checking first that the cycle is still the
// one it read. It returns errWALAhead when the log follows a newer workflows.json than
// the one in memory.
func (s *Store) walReadLocked(from0 bool) error {
	if from0 {
		if s.wal.f != nil && (!s.wal.rw || !isFileAt(s.wal.f, filepath.Join(s.dir, WALName))) {
			// A reader re-opens the log at each full read, in case it was replaced; the
			// writer's handle too once the log at the name is another file (a recovery
			// moved the old one aside): its frames must never go to the file moved away.
			s.wal.f.Close()
			s.wal.f, s.wal.rw = nil, false
		}
		s.walForgetLocked()
	}
	ok, err := s.walOpenLocked(false)
	if err != nil {
		return err
	}
	if !ok {
		if s.cur.Log != nil {
			return walDamage("%s is missing, but %s (generation %d) was saved with one beside it", WALName, FileName, s.cur.Generation)
		}
		return nil
	}
	if from0 {
		if err := s.walCheckSizeLocked(); err != nil {
			return err
		}
	}
	var head [walHeaderSize]byte
	if _, err := s.wal.f.ReadAt(head[:], 0); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %s: %v", ErrUnreadable, WALName, err)
	}
	h, ok, err := parseWALHeader(head[:])
	switch {
	case err != nil:
		return err
	case !ok && s.wal.salt != 0:
		return walDamage("the header of %s was erased after frames of its cycle were read", WALName)
	case !ok && s.cur.Log != nil:
		return walDamage("%s holds no cycle (its header is zeros), but %s (generation %d) was saved after cycle %s", WALName, FileName, s.cur.Generation, s.cur.Log.After)
	case !ok:
		return nil
	case s.wal.salt != 0 && h.salt != s.wal.salt:
		return errWALAhead // a new cycle: workflows.json was saved whole meanwhile
	}
	if s.wal.salt == 0 {
		if h.base > s.cur.Generation {
			return errWALAhead
		}
		follows, err := s.walMatchLocked(h)
		if err != nil || !follows {
			return err // damage, or an old cycle, already in workflows.json
		}
		s.wal.salt, s.wal.key, s.wal.off = h.salt, h.key(), h.size()
		s.wal.seen = append(s.wal.seen[:0], head[:h.size()]...)
	}
	walHook() // tests only (hooks_on.go)
	if err := s.walApplyFromLocked(); err != nil {
		return err
	}
	// The frames read were the cycle's if the header still names it: a new cycle writes
	// its header before it overwrites any frame. A writer's cycle is its own (another's new
	// cycle shows in the header at its next save, before it writes).
	if s.epoch != 0 {
		return nil
	}
	if _, err := s.wal.f.ReadAt(head[:], 0); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: %s: %v", ErrUnreadable, WALName, err)
	}
	if binary.LittleEndian.Uint64(head[16:]) != s.wal.salt {
		return errWALAhead
	}
	return nil
}

// walMatchLocked checks a header against workflows.json's document (cur, with s.wal.salt
// 0): it reports whether the cycle follows the document, nil when it is the cycle the
// document absorbed, and ErrDamaged when it is neither or belongs to another home.
func (s *Store) walMatchLocked(h walHead) (follows bool, err error) {
	d := s.cur
	if h.version >= 2 && h.home != d.Home {
		return false, foreignDamage("%s belongs to home %s, but %s to home %s", WALName, h.home, FileName, orNoID(d.Home))
	}
	if d.Log == nil { // a document from before links: as it was
		return h.base == d.Generation, nil
	}
	switch {
	case h.salt == hexSalt(d.Log.Next) && h.base == d.Generation:
		return true, nil
	case h.salt == hexSalt(d.Log.After) && h.base < d.Generation:
		return false, nil
	}
	return false, walDamage("%s holds cycle %s, which follows generation %d, but %s (generation %d) absorbed cycle %s and is followed by cycle %s",
		WALName, saltHex(h.salt), h.base, FileName, d.Generation, d.Log.After, d.Log.Next)
}

func orNoID(id string) string {
	if id == "" {
		return "(none: saved before home ids)"
	}
	return id
}

// walCheckSizeLocked refuses a log that is not walSize bytes: cut short, or grown. Only a
// log whose creation was cut (all zeros) beside a document without a link is let be: the
// writer completes it.
func (s *Store) walCheckSizeLocked() error {
	fi, err := s.wal.f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnreadable, WALName, err)
	}
	if fi.Size() == walSize {
		return nil
	}
	if fi.Size() < walSize && s.cur.Log == nil {
		b := make([]byte, fi.Size())
		if n, _ := s.wal.f.ReadAt(b, 0); int64(n) == fi.Size() && allZero(b) {
			return nil
		}
	}
	return walDamage("%s is %d bytes, not %d: it was cut short or written by something else", WALName, fi.Size(), walSize)
}

// walCheckTailLocked looks, after the last frame applied, for a good frame of the cycle
// with a later generation: if one lies there, the frame where reading stopped was
// damaged, not torn by a crash, and the saves in between are lost (ErrDamaged). Frames a
// writer appends meanwhile are applied and the search made again.
func (s *Store) walCheckTailLocked() error {
	if s.wal.salt == 0 || s.wal.f == nil {
		return nil
	}
	buf := tailBufs.Get().(*[]byte)
	defer tailBufs.Put(buf)
	for {
		rest := (*buf)[:walSize-s.wal.off]
		n, err := s.wal.f.ReadAt(rest, s.wal.off)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: %s: %v", ErrUnreadable, WALName, err)
		}
		at, g, found := findFrame(rest[:n], s.wal.key, s.cur.Generation, s.cur.Generation+walSize/walFrameHead)
		if !found {
			return nil
		}
		before := s.wal.off
		if err := s.walApplyFromLocked(); err != nil {
			return err
		}
		if s.wal.off != before {
			continue // a writer appended: look again from the new end
		}
		var head [walHeaderSize]byte
		if _, err := s.wal.f.ReadAt(head[:], 0); err == nil && binary.LittleEndian.Uint64(head[16:]) != s.wal.salt {
			return errWALAhead // a new cycle overwrote the frames meanwhile: read again
		}
		return walDamage("the frame after generation %d, at offset %d of %s, fails its check, but a good frame of generation %d lies further on, at offset %d: the saves between them are lost",
			s.cur.Generation, s.wal.off, WALName, g, s.wal.off+int64(at))
	}
}

// tailBufs hold the buffers of walCheckTailLocked (a takeover's, walSize bytes each).
var tailBufs = sync.Pool{New: func() any { b := make([]byte, walSize); return &b }}

// zeroRun is compared with the tail a run at a time (see findFrame).
var zeroRun [4096]byte

// findFrame finds in b the first whole good frame of the cycle with key whose generation
// g is in (lo, hi], at any offset. It looks at the generation field first, so most
// offsets cost a compare. (A cycle has fewer than walSize/walFrameHead frames.)
func findFrame(b, key []byte, lo, hi uint64) (at int, g uint64, ok bool) {
	for i := 0; i+walFrameHead <= len(b); i++ {
		// A frame whose generation field lies in zeros has generation 0: none starts in
		// [i, i+len(zeroRun)-8] when b[i+8:] begins with a zero run (the zero fill).
		if b[i+8] == 0 {
			if end := i + 8 + len(zeroRun); end <= len(b) && bytes.Equal(b[i+8:end], zeroRun[:]) {
				i = end - 16 // the next offset to look at is end-15
				continue
			}
		}
		// A frame's length is at most walMaxFrame (< 2^24): its fourth byte is zero. Text
		// (an older cycle's payloads) has few zero bytes: jump to the next one.
		if b[i+3] != 0 {
			j := bytes.IndexByte(b[i+3:], 0)
			if j < 0 {
				break
			}
			i += j
			if i+walFrameHead > len(b) {
				break
			}
		}
		if i&7 == 0 && i+24 <= len(b) && binary.LittleEndian.Uint64(b[i+8:]) == 0 && binary.LittleEndian.Uint64(b[i+16:]) == 0 {
			i += 7 // a generation field starting in b[i+8:i+16] lies in 16 zero bytes: 0
			continue
		}
		g := binary.LittleEndian.Uint64(b[i+8:])
		if g <= lo || g > hi {
			continue
		}
		if fg, _, _, _, ok := nextFrame(key, b[i:]); ok && fg == g {
			return i, g, true
		}
	}
	return 0, 0, false
}

// walApplyFromLocked reads frames from the log's offset on and applies those that carry
// the next generations.
func (s *Store) walApplyFromLocked() error {
	if len(s.wal.buf) == 0 {
		s.wal.buf = make([]byte, 4<<10) // most reads find a frame or two, or none
	}
	for s.wal.off < walSize {
		buf := s.wal.buf[:min(int64(len(s.wal.buf)), walSize-s.wal.off)]
		n, err := s.wal.f.ReadAt(buf, s.wal.off)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%w: %s: %v", ErrUnreadable, WALName, err)
		}
		b := buf[:n]
		for {
			g, e, payload, size, ok := nextFrame(s.wal.key, b)
			if !ok || g != s.cur.Generation+1 {
				break
			}
			doc, err := decodeFrame(s.cur, g, e, payload)
			if err != nil {
				return walDamage("%s: frame of generation %d at offset %d: %w", WALName, g, s.wal.off, err)
			}
			s.cur = doc
			s.wal.seen = append(s.wal.seen, b[:size]...)
			s.wal.off += int64(size)
			b = b[size:]
		}
		// Read on only when this read ended inside what may be a frame of the cycle.
		if n < len(buf) {
			return nil
		}
		if len(b) >= 4 {
			size := int(binary.LittleEndian.Uint32(b))
			if size == 0 || size > walMaxFrame || walFrameHead+size <= len(b) {
				return nil // the end, a frame that does not check out, or not the next one
			}
			if walFrameHead+size > len(s.wal.buf) {
				s.wal.buf = make([]byte, walFrameHead+size)
			}
		}
	}
	return nil
}

// decodeFrame replays one frame's payload on prev and checks the result.
func decodeFrame(prev *Doc, g, e uint64, payload []byte) (*Doc, error) {
	var rec walRec
	if err := jsonv2.Unmarshal(payload, &rec, strictOpts); err != nil {
		msg, _ := loadError(err, payload, "$")
		return nil, msg
	}
	if e < prev.Epoch {
		return nil, fmt.Errorf("epoch %d is below the document's %d", e, prev.Epoch)
	}
	doc := rec.apply(prev, g, e)
	if err := doc.Validate(); err != nil {
		return nil, err
	}
	return doc, nil
}

// walVerifyLocked checks, for a forced re-read, that the log still holds the bytes the
// store applied, and reads on from there. It reports false when it does not (the caller
// then reads everything again).
func (s *Store) walVerifyLocked() (bool, error) {
	if s.wal.salt == 0 || s.wal.f == nil {
		return false, nil
	}
	got := make([]byte, len(s.wal.seen))
	if n, _ := s.wal.f.ReadAt(got, 0); n != len(got) || !bytes.Equal(got, s.wal.seen) {
		return false, nil
	}
	return true, s.walApplyFromLocked()
}

// walAppendLocked records next, the document after cur, as a frame of the log. It
// reports false, having written nothing that counts, when the change must be saved whole
// instead: the log cannot take it, cur is not what the log and workflows.json describe,
// or workflows.json has no link to a cycle or no home id yet (a home from before them).
func (s *Store) walAppendLocked(next *Doc) (bool, error) {
	if !s.stamp.exists || (s.wal.salt == 0 && s.cur.Generation != s.fileGen) || s.cur.Log == nil || next.Home != s.cur.Home {
		return false, nil // the log follows a workflows.json: the first save makes it
	}
	payload, err := json.Marshal(walDelta(s.cur, next))
	if err != nil || len(payload) > walMaxFrame {
		return false, nil
	}
	if ok, err := s.walOpenLocked(true); !ok {
		return false, err
	}
	salt, key, off := s.wal.salt, s.wal.key, s.wal.off
	var out []byte
	if salt == 0 { // a new cycle, the one workflows.json named: its header goes in the same write as its first frame
		h := walHead{version: walVersion, salt: hexSalt(s.cur.Log.Next), base: s.fileGen, home: s.cur.Home}
		salt, key, off = h.salt, h.key(), 0
		out = walHeader(h.salt, h.base, h.home)
	}
	out = append(out, walFrame(key, next.Generation, next.Epoch, payload)...)
	if off+int64(len(out)) > walSize {
		return false, nil
	}
	if _, err := s.wal.f.WriteAt(out, off); err != nil {
		return false, fmt.Errorf("append to %s: %w", WALName, err)
	}
	Failpoint("wal.after-write")
	if err := DatasyncAt(SyncWALFrame, s.wal.f); err != nil {
		return false, fmt.Errorf("append to %s: fdatasync: %w", WALName, err)
	}
	if s.wal.salt == 0 {
		s.wal.seen = s.wal.seen[:0]
	}
	s.wal.salt, s.wal.key, s.wal.off, s.wal.seen = salt, key, off+int64(len(out)), append(s.wal.seen, out...)
	s.cur = next
	if s.wal.timer == nil {
		s.wal.timer = time.AfterFunc(s.opts.CheckpointAfter, s.checkpointLater)
	}
	return true, nil
}

// walLinkLocked prepares the link of a whole save: the log must exist at its full size
// with a header before a workflows.json that names a cycle (so that a missing, short or
// zeroed log is damage); the link names the cycle whose header it holds, which the save
// absorbs, and a new salt for the cycle that follows. home is the saved document's id.
func (s *Store) walLinkLocked(home string) (*LogLink, error) {
	if _, err := s.walOpenLocked(true); err != nil {
		return nil, err
	}
	var head [walHeaderSize]byte
	if _, err := s.wal.f.ReadAt(head[:], 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", WALName, err)
	}
	h, ok, err := parseWALHeader(head[:])
	if err != nil {
		return nil, err
	}
	if !ok { // a new log: a first cycle without frames, so that a zeroed log shows
		salt, err := newSalt()
		if err != nil {
			return nil, err
		}
		h = walHead{version: walVersion, salt: salt, base: s.fileGen, home: home}
		if _, err := s.wal.f.WriteAt(walHeader(h.salt, h.base, h.home), 0); err != nil {
			return nil, fmt.Errorf("write %s: %w", WALName, err)
		}
		if err := DatasyncAt(SyncWALHeader, s.wal.f); err != nil {
			return nil, fmt.Errorf("write %s: fdatasync: %w", WALName, err)
		}
	}
	next, err := newSalt()
	if err != nil {
		return nil, err
	}
	return &LogLink{After: saltHex(h.salt), Next: saltHex(next)}, nil
}

// walNewCycleLocked starts the cycle that follows a whole save of workflows.json (the one
// its link names): the frames of the old cycle are all in the file now, and a new header
// keeps them from being replayed on a copy of an older file put back by hand. A failure
// only leaves the header to the next frame.
func (s *Store) walNewCycleLocked() {
	d := s.cur
	if d.Log == nil {
		return
	}
	if ok, err := s.walOpenLocked(true); !ok || err != nil {
		return
	}
	h := walHead{version: walVersion, salt: hexSalt(d.Log.Next), base: s.fileGen, home: d.Home}
	b := walHeader(h.salt, h.base, h.home)
	if _, err := s.wal.f.WriteAt(b, 0); err != nil || DatasyncAt(SyncWALCycle, s.wal.f) != nil {
		return
	}
	s.wal.salt, s.wal.key, s.wal.off, s.wal.seen = h.salt, h.key(), walHeaderSize, append(s.wal.seen[:0], b...)
}

func newSalt() (uint64, error) {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			return 0, err
		}
		if v := binary.LittleEndian.Uint64(b[:]); v != 0 {
			return v, nil
		}
	}
}

// Checkpoint saves the document whole to workflows.json if the log holds changes it
// lacks, so the file alone is complete. The writer calls it before it lets go of the
// writer role; it also runs by itself CheckpointAfter after a frame was appended.
func (s *Store) Checkpoint() error {
	s.turn <- struct{}{} // between commits, as a commit
	defer func() { <-s.turn }()
	s.mu.Lock()
	defer s.unlock()
	return s.home.Checkpoint(s.cur, s.checkpointCheckLocked)
}

// checkpointCheckLocked is the check a checkpoint runs before it writes, as a commit
// does: refresh-before-write, the epoch, and BeforeSave (the host's lock check).
func (s *Store) checkpointCheckLocked() error {
	if err := s.writableLocked(); err != nil {
		return err
	}
	return s.beforeSaveLocked()
}

// checkpointLater is the timed Checkpoint; a failure leaves the log as it is, and the
// next frame sets the timer again. Its crash point kills a writer whose acknowledged saves
// are all frames not yet in workflows.json.
func (s *Store) checkpointLater() {
	Failpoint("wal.before-checkpoint")
	_ = s.Checkpoint()
}

// checkpointLocked saves the document whole if the log holds frames workflows.json
// lacks; check runs first, with nothing written yet (the check every commit runs).
func (s *Store) checkpointLocked(check func() error) error {
	if s.wal.salt == 0 || s.cur.Generation == s.fileGen {
		return nil
	}
	if err := check(); err != nil {
		return err
	}
	_, err := s.saveWholeLocked(s.cur)
	return err
}

// stopCheckpointLocked cancels a pending checkpoint (the store stops writing).
func (s *Store) stopCheckpointLocked() {
	if s.wal.timer != nil {
		s.wal.timer.Stop()
		s.wal.timer = nil
	}
}

// ReadHome reads the document of the home folder dir as a window would: workflows.json
// and the frames of workflows.wal that follow it. It fails, saying why, when either
// cannot be used.
func ReadHome(dir string) (*Doc, error) {
	doc, err := New(dir, Options{}).Reload()
	if err != nil {
		return nil, err
	}
	return doc, nil
}
