package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// FileName is the document's name inside the home folder.
const FileName = "workflows.json"

// PrevName keeps a previous good generation, for restoring by hand: the one a writer
// started or ended its term with, or the newest one a lock holder still had in memory
// when it found workflows.json unreadable.
const PrevName = "workflows.prev.json"

// DefaultMaxSize is the default cap on the size of workflows.json.
const DefaultMaxSize = 64 << 20

// Options configure a Store. The zero value is safe.
type Options struct {
	// MaxSize caps the size of workflows.json; a larger file is refused before it is read.
	MaxSize int64
	// BeforeSave, if set, runs inside Update just before the file is replaced, and in a
	// checkpoint (timed, or Checkpoint) before workflows.json is rewritten; an error aborts
	// the save. The host uses it to check that it still holds the writer lock.
	BeforeSave func() error

	// KeepFinished is how many finished runs per workflow the document keeps; older ones
	// move to the archive (see Archive) in batches, once a workflow has KeepFinished/5
	// more. 0 means DefaultKeepFinished; a negative value never archives.
	KeepFinished int
	// MaxFinished caps the finished runs the document keeps in all workflows together
	// (DefaultMaxFinished when 0), so a home with many workflows stays small too.
	MaxFinished int
	// ArchiveMaxSize is the size at which an archive file is rotated
	// (DefaultArchiveMaxSize when 0).
	ArchiveMaxSize int64
	// CheckpointAfter is how long after a change recorded only in workflows.wal the
	// document is saved whole to workflows.json (DefaultCheckpointAfter when 0).
	CheckpointAfter time.Duration
}

// Store is the on-disk document of one home folder. It is safe for concurrent use.
type Store struct {
	dir, path string
	opts      Options
	arch      *Archive
	home      DocHome // where the document is kept: the folder (folderDoc) unless NewOn

	turn  chan struct{} // one token: the Update that holds it commits the queue
	qmu   sync.Mutex    // guards queue
	queue []*pending    // updates waiting for a commit turn

	view    atomic.Pointer[viewState] // what View returns: cur and broken as the last unlock left them
	mu      sync.Mutex                // guards the fields below and serialises every load and save
	cur     *Doc                      // newest good document read or written; never mutated
	stamp   fileStamp                 // identity of the file cur came from
	epoch   uint64                    // writer epoch this store saves with; 0 when not writing
	broken  error                     // why the file on disk is unusable, or nil
	archErr error                     // why the last archive append failed, or nil
	codec   codec                     // caches of encoded and decoded runs
	fileGen uint64                    // generation of the workflows.json cur is (or follows from)
	wal     walState                  // what this store knows of workflows.wal

	watchWG sync.WaitGroup // the goroutines of Watch (WaitWatches)

	noRefresh bool // set only by tests (export_test.go): saves skip refresh-before-write
}

// fileStamp identifies one version of the file without reading it.
type fileStamp struct {
	ino, size    int64
	mtime, ctime int64
	exists       bool
}

func stampOf(fi os.FileInfo) fileStamp {
	st, _ := fi.Sys().(*syscall.Stat_t)
	s := fileStamp{size: fi.Size(), mtime: fi.ModTime().UnixNano(), exists: true}
	if st != nil {
		s.ino = int64(st.Ino)
		s.ctime = ctimeOf(st)
	}
	return s
}

// New returns a store for dir. It does not touch the disk; call Reload to read.
func New(dir string, opts Options) *Store {
	if opts.MaxSize <= 0 {
		opts.MaxSize = DefaultMaxSize
	}
	if opts.MaxFinished <= 0 {
		opts.MaxFinished = DefaultMaxFinished
	}
	if opts.KeepFinished == 0 {
		opts.KeepFinished = DefaultKeepFinished
	}
	if opts.CheckpointAfter <= 0 {
		opts.CheckpointAfter = DefaultCheckpointAfter
	}
	s := &Store{dir: dir, path: filepath.Join(dir, FileName), opts: opts, cur: emptyDoc(), turn: make(chan struct{}, 1),
		arch: NewArchive(dir, opts.ArchiveMaxSize)}
	s.home = &folderDoc{s: s}
	s.view.Store(&viewState{doc: s.cur})
	return s
}

// NewOn returns a store whose document is kept by home, a second kind of home (see
// DocHome), instead of the folder's workflows.json and workflows.wal. dir is a local
// folder for what is still kept in files: the run archive and the previous document. It
// does not touch the home; call Reload to read.
func NewOn(dir string, home DocHome, opts Options) *Store {
	s := New(dir, opts)
	s.home = home
	return s
}

func emptyDoc() *Doc {
	return &Doc{Schema: SchemaVersion, Workflows: []Workflow{}, Runs: []Run{}, Schedules: []Schedule{}}
}

// Path returns the path of workflows.json.
func (s *Store) Path() string { return s.path }

// Dir returns the home folder.
func (s *Store) Dir() string { return s.dir }

// View returns the newest good document this store knows (a snapshot: do not modify it)
// and the reason the file on disk is unusable, if it is. It does not touch the disk.
//
// It never waits for a load or save under way (an etcd home's read may wait for a cut
// network): it returns what the last one to end left.
func (s *Store) View() (*Doc, error) {
	v := s.view.Load()
	return v.doc, v.broken
}

// viewState is what View returns, published by unlock.
type viewState struct {
	doc    *Doc
	broken error
}

// unlock publishes the document and the problem for View, and unlocks s.mu. It always
// publishes: a caller of View after any unlock sees what that unlock left.
func (s *Store) unlock() {
	s.view.Store(&viewState{s.cur, s.broken})
	s.mu.Unlock()
}

// Reload re-reads workflows.json from disk unconditionally. On failure the previous good
// document is kept in memory and the error (wrapping ErrUnreadable) is returned and
// remembered, so Update refuses to write until the file is fixed.
func (s *Store) Reload() (*Doc, error) {
	s.mu.Lock()
	defer s.unlock()
	err := s.loadLocked(true)
	return s.cur, err
}

// loadLocked reads the document from the home (DocHome.Load), in full if full is set,
// and keeps why it cannot be used, if it cannot: Update refuses to write until it can.
func (s *Store) loadLocked(full bool) error {
	doc, err := s.home.Load(s.cur, full)
	if doc != nil {
		s.cur = doc
	}
	s.broken = err
	return err
}

// Refresh re-reads workflows.json only if it changed since it was last read or written.
// It reports whether the document in memory changed.
func (s *Store) Refresh() (doc *Doc, changed bool, err error) {
	s.mu.Lock()
	defer s.unlock()
	before := s.cur
	err = s.loadLocked(false)
	return s.cur, s.cur != before, err
}

// folderLoadLocked reads workflows.json if forced or if its stamp changed, and the frames of
// workflows.wal that follow the document in memory. A log that turns out to follow a
// newer file than the one read (the file was saved whole meanwhile) makes it read the
// file again. A writer reads the log too: frames of another writer carry a higher epoch,
// which fences it (see writableLocked).
//
// A forced read also looks past the last frame applied for good frames that could not be
// applied (walCheckTailLocked): a takeover reads forced, so no writer appends after a
// damaged frame.
//
// On damage the document in memory stays the newest good one it had (Reload's promise),
// not what the damaged files give: a window goes on showing it, and Recover may use it.
func (s *Store) folderLoadLocked(force bool) error {
	kept := s.cur
	err := s.loadTriesLocked(force)
	if errors.Is(err, ErrDamaged) && kept.Generation > 0 && s.cur != kept {
		// Forget what was read of the files (so that the next read starts over) and keep
		// the document this store had.
		s.cur, s.codec.file, s.fileGen = kept, nil, kept.Generation
		s.walForgetLocked()
	}
	return err
}

func (s *Store) loadTriesLocked(force bool) error {
	var last fileStamp
	wasBroken := s.broken != nil
	for try := 0; ; try++ {
		err := s.loadOnceLocked(force)
		if err == nil && (force || wasBroken) {
			err = s.walFailLocked(s.walCheckTailLocked())
		}
		if !errors.Is(err, errWALAhead) {
			return err
		}
		if try > 0 && s.stamp == last || try == 10 {
			// The log follows a newer file than the one read whole twice now: an older
			// copy of workflows.json was put back, and the saves after it are in the log
			// only as frames of a workflows.json that is gone.
			s.broken = walDamage("%s follows a newer %s than the one there (generation %d): an older copy was put back",
				WALName, FileName, s.cur.Generation)
			return s.broken
		}
		last = s.stamp
		s.codec.file, force = nil, true // read the file whole and the log from its start
		s.walForgetLocked()
	}
}

func (s *Store) loadOnceLocked(force bool) error {
	fi, err := os.Stat(s.path)
	if errors.Is(err, os.ErrNotExist) {
		if force || s.stamp.exists || s.broken != nil {
			s.stamp = fileStamp{}
			// Memory is kept; a missing file is a new home only when nothing else is there.
			s.broken = s.checkMissingLocked()
		}
		return s.broken
	}
	if err != nil {
		s.broken = fmt.Errorf("%w: %v", ErrUnreadable, err)
		return s.broken
	}
	st := stampOf(fi)
	if !force && st == s.stamp && s.broken == nil {
		return s.walLoadLocked(false)
	}
	data, err := readFile(s.path, fi, s.opts.MaxSize)
	if err == nil && s.codec.same(data) {
		// The very bytes of the document in memory, as at a takeover after following the
		// last save: the file was read whole and compared, so there is nothing to decode,
		// and of the log only what follows the frames already applied (if the log still
		// holds them).
		s.broken, s.stamp = nil, st
		if s.wal.salt == 0 {
			return s.walLoadLocked(true)
		}
		if ok, err := s.walVerifyLocked(); ok || err != nil {
			return s.walFailLocked(err)
		}
	}
	var doc *Doc
	if err == nil {
		doc, err = decodeFile(s.path, data, &s.codec)
	}
	if err == nil {
		err = s.checkSameHomeLocked(doc)
	} else {
		err = withRestoreHint(s.dir, err)
	}
	if err != nil {
		s.broken = err
		s.stamp = st
		return err
	}
	s.broken = nil
	s.stamp = st
	s.codec.file = data
	s.cur = doc // the file changed: even a hand edit that kept the generation is taken
	s.fileGen = doc.Generation
	return s.walLoadLocked(true)
}

// walLoadLocked reads the log (see walReadLocked) and keeps a damaged log's error.
func (s *Store) walLoadLocked(from0 bool) error {
	return s.walFailLocked(s.walReadLocked(from0))
}

func (s *Store) walFailLocked(err error) error {
	if err != nil && !errors.Is(err, errWALAhead) {
		s.broken = err
	}
	return err
}

// readDoc reads and validates one file. Errors wrap ErrUnreadable and say what is wrong.
func readDoc(path string, fi os.FileInfo, max int64, c *codec) (*Doc, error) {
	data, err := readFile(path, fi, max)
	if err != nil {
		return nil, err
	}
	return decodeFile(path, data, c)
}

// readFile reads the whole file at path, whose stat is fi, refusing more than max bytes.
// It reads into a buffer of the size fi gives (one read, not a doubling series). Errors
// wrap ErrUnreadable.
func readFile(path string, fi os.FileInfo, max int64) ([]byte, error) {
	if fi.Size() > max {
		return nil, fmt.Errorf("%w: %s is %d bytes, over the cap of %d: %w", ErrUnreadable, path, fi.Size(), max, ErrTooLarge)
	}
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	defer f.Close()
	// One byte more than the stat said, so a file that grew since shows at once.
	data := make([]byte, 0, fi.Size()+1)
	for int64(len(data)) <= max {
		if len(data) == cap(data) {
			data = slices.Grow(data, min(len(data), int(max+1)-len(data)))
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUnreadable, path, err)
		}
	}
	return nil, fmt.Errorf("%w: %s grew past the cap of %d bytes: %w", ErrUnreadable, path, max, ErrTooLarge)
}

// decodeFile decodes the bytes read from path. Errors wrap ErrUnreadable.
func decodeFile(path string, data []byte, c *codec) (*Doc, error) {
	doc, err := strictDecode(c, data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrUnreadable, path, err)
	}
	return doc, nil
}

// Decode parses and validates a document. Unknown fields, trailing data, a missing or
// newer schema and structural errors are refused with a message naming the problem.
func Decode(data []byte) (*Doc, error) { return strictDecode(nil, data) }

// BeginEpoch makes this store a writer with the epoch after the one in memory, and returns
// it. Call it right after Reload, in the takeover; the next Update saves with it.
func (s *Store) BeginEpoch() uint64 {
	s.mu.Lock()
	defer s.unlock()
	s.epoch = s.cur.Epoch + 1
	return s.epoch
}

// EndEpoch stops this store from writing.
func (s *Store) EndEpoch() {
	s.mu.Lock()
	s.epoch = 0
	s.home.StopWriting()
	s.unlock()
}

// Update is the only way to change the document. It refreshes from disk first if the file
// changed, refuses if the file is unreadable or carries a higher epoch (fencing), passes a
// private copy to fn, and saves it atomically with the next generation if fn returns nil.
// It blocks for the save, including two fsyncs, and returns the saved document.
//
// Concurrent calls are committed together (group commit): whoever holds the commit turn
// applies every queued fn in order to one copy and saves once, so N writers pay for one
// save, not N. Each fn is called exactly once; a fn that fails (or leaves the document
// invalid) is rolled back alone and its caller gets its error; the others are saved.
func (s *Store) Update(fn func(*Doc) error) (*Doc, error) {
	p := &pending{fn: fn, done: make(chan struct{})}
	s.qmu.Lock()
	s.queue = append(s.queue, p)
	s.qmu.Unlock()
	select {
	case <-p.done: // an earlier turn committed it
	case s.turn <- struct{}{}:
		s.qmu.Lock()
		batch := s.queue
		s.queue = nil
		s.qmu.Unlock()
		if len(batch) > 0 {
			s.commit(batch)
		}
		<-s.turn
		<-p.done
	}
	return p.doc, p.err
}

// pending is one Update waiting for its commit.
type pending struct {
	fn   func(*Doc) error
	doc  *Doc
	err  error
	done chan struct{}
	ok   bool // fn changed the document and the change is in the batch
}

// commit applies a batch of updates to one copy of the newest document and saves it once.
func (s *Store) commit(batch []*pending) {
	s.mu.Lock()
	defer s.unlock()
	// finish answers every caller: with err if it had changes in the batch (or all is
	// set), else with its own error or the document.
	finish := func(doc *Doc, err error, all bool) {
		for _, p := range batch {
			switch {
			case err != nil && (p.ok || all):
				p.doc, p.err = nil, err
			case p.err == nil && p.ok:
				p.doc = doc
			case p.err == nil:
				p.doc = s.cur
			}
			close(p.done)
		}
	}
	if err := s.writableLocked(); err != nil {
		finish(nil, err, true)
		return
	}
	doc := s.cur.cloneForUpdate()
	var shared []runPointees
	if checkShared {
		shared = pointeesOf(s.cur.Runs)
	}
	changed := false
	for _, p := range batch {
		changed = s.apply(doc, p, len(batch) > 1) || changed
	}
	if checkShared && !slices.Equal(shared, pointeesOf(s.cur.Runs)) {
		panic("store: an update wrote through a run's owner or exit code, which its copy shares with the document in memory: replace the pointer instead")
	}
	if !changed {
		finish(s.cur, nil, false)
		return
	}
	doc.Schema = SchemaVersion
	doc.Generation = s.cur.Generation + 1
	doc.Epoch = s.epoch
	// The home's identity is the store's, never an update's: kept, or made at the first
	// save of a home that has none (which is then saved whole, see walAppendLocked).
	doc.Home, doc.Log = s.cur.Home, s.cur.Log
	if doc.Home == "" {
		id, err := newHomeID()
		if err != nil {
			finish(nil, fmt.Errorf("make the home id: %w", err), false)
			return
		}
		doc.Home = id
	}
	if err := s.beforeSaveLocked(); err != nil {
		finish(nil, err, false)
		return
	}
	s.archiveLocked(doc)
	saved, err := s.home.Commit(s.cur, doc)
	if saved != nil { // committed, or in place but not durable (ErrNotDurable)
		s.cur = saved
	}
	if err != nil {
		if errors.Is(err, ErrFenced) { // refused by the home itself: a newer writer
			s.epoch = 0
			s.home.StopWriting() // as EndEpoch: nothing of this store writes any more
		}
		finish(nil, err, false)
		return
	}
	finish(saved, nil, false)
}

// saveWholeLocked saves doc to workflows.json, linked to the log's cycles (see
// walLinkLocked), and makes it the document in memory; the log's cycle ends and the one
// the link names begins. It returns the document saved: doc with its link.
func (s *Store) saveWholeLocked(doc *Doc) (*Doc, error) {
	link, err := s.walLinkLocked(doc.Home)
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", s.path, err)
	}
	linked := *doc
	linked.Log = link
	doc = &linked
	st, err := s.save(doc)
	if errors.Is(err, ErrNotDurable) {
		// The new file is in place: memory follows the disk, and callers are told the
		// save may not survive a crash.
		s.cur, s.fileGen = doc, doc.Generation
		s.walForgetLocked()
		if fi, serr := os.Stat(s.path); serr == nil {
			s.stamp = stampOf(fi)
		}
	}
	if err != nil {
		return nil, err
	}
	s.cur, s.stamp, s.fileGen = doc, st, doc.Generation
	s.walForgetLocked()
	s.walNewCycleLocked()
	return doc, nil
}

// beforeSaveLocked runs Options.BeforeSave (the host's check that it still holds the
// writer lock) before anything is written: a commit's frame or save, and a checkpoint.
func (s *Store) beforeSaveLocked() error {
	if s.opts.BeforeSave == nil {
		return nil
	}
	return s.opts.BeforeSave()
}

// writableLocked refreshes from disk (refresh-before-write) and says why this store may
// not write now, if it may not.
func (s *Store) writableLocked() error {
	if s.epoch == 0 {
		return ErrNotWriter
	}
	if !s.noRefresh {
		if err := s.loadLocked(false); err != nil {
			return err
		}
	}
	if s.broken != nil {
		return s.broken
	}
	if s.cur.Epoch > s.epoch {
		s.epoch = 0
		return fmt.Errorf("%w: disk has epoch %d, ours is lower", ErrFenced, s.cur.Epoch)
	}
	return nil
}

// apply runs one update's fn on doc and reports whether it changed doc. A fn that fails,
// or leaves doc invalid, is undone: in a batch from a copy taken before it, alone from
// the caller's fresh copy (the caller discards doc).
func (s *Store) apply(doc *Doc, p *pending, batched bool) bool {
	var before *Doc
	if batched {
		before = doc.cloneForUpdate()
	}
	err := p.fn(doc)
	if err == nil {
		err = doc.Validate()
	}
	switch {
	case err == nil:
		p.ok = true
		return true
	case errors.Is(err, ErrNoChange):
		p.err = nil
	default:
		p.err = err
	}
	if before != nil {
		*doc = *before
	} else {
		*doc = *s.cur.cloneForUpdate()
	}
	return false
}

// archiveLocked moves the finished runs beyond the recent window out of doc, after writing
// them durably to the archive. If the archive cannot be written, doc keeps them (it only
// grows) and the reason is kept for ArchiveProblem; the save goes on.
func (s *Store) archiveLocked(doc *Doc) {
	all := doc.Runs
	moved := trimFinished(doc, s.opts.KeepFinished, s.opts.MaxFinished)
	if len(moved) == 0 {
		return
	}
	if err := s.arch.Append(moved); err != nil {
		doc.Runs = all
		s.archErr = err
		return
	}
	s.archErr = nil
	Failpoint("save.after-archive")
}

// ArchiveProblem returns why the last attempt to archive finished runs failed, or nil.
func (s *Store) ArchiveProblem() error {
	s.mu.Lock()
	defer s.unlock()
	return s.archErr
}

// History returns one page of runs, newest first: the runs in the document this store
// knows (as View returns it) and the archived ones, each once. Any window may call it; it
// reads the archive files (only what was appended since its last call) and blocks for that.
func (s *Store) History(q HistoryQuery) (HistoryPage, error) {
	doc, _ := s.View()
	return s.arch.page(doc, q)
}

// Archive returns the run archive of this store's home folder.
func (s *Store) Archive() *Archive { return s.arch }

// save writes doc atomically and durably: a temp file in the same folder (O_EXCL, 0600,
// created while doc is encoded), write, fsync, rename over, fsync the folder.
func (s *Store) save(doc *Doc) (fileStamp, error) {
	tmp := startTemp(s.path)
	data, err := s.codec.encode(doc)
	if err != nil {
		tmp.discard()
		return fileStamp{}, fmt.Errorf("encode %s: %w", s.path, err)
	}
	err = tmp.replace(data, nil)
	if err == nil || errors.Is(err, ErrNotDurable) { // the new file is in place
		s.codec.file = data
	}
	if err != nil {
		return fileStamp{}, err
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return fileStamp{}, fmt.Errorf("stat after save: %w", err)
	}
	return stampOf(fi), nil
}

// KeepPrevious writes a copy of the newest good document to PrevName. Only the writer
// calls it, at the start and the end of its term, not on every save (it costs a save). It
// is a copy, never a hard link: a link would share the inode, so an editor writing
// workflows.json in place would spoil both.
func (s *Store) KeepPrevious() error {
	s.mu.Lock()
	defer s.unlock()
	if s.broken != nil || s.cur.Generation == 0 {
		return nil
	}
	return s.writePrevLocked()
}

// SaveLastGood writes the newest good document this store knows to PrevName, when the
// file on disk is unreadable and that document is newer than what PrevName holds. The
// lock holder calls it; workflows.json itself is never touched.
func (s *Store) SaveLastGood() error {
	s.mu.Lock()
	defer s.unlock()
	if s.broken == nil || errors.Is(s.broken, ErrDamaged) || s.cur.Generation == 0 {
		return nil // a damaged home changes no file, this one neither
	}
	return s.writePrevLocked()
}

// writePrevLocked writes the document in memory to PrevName, only if it is a good
// generation newer than the one there: a PrevName that cannot be read, or that holds
// another home's document or a newer one, is left as it is.
func (s *Store) writePrevLocked() error {
	prev, ok, err := prevDoc(s.dir)
	switch {
	case err != nil:
		return fmt.Errorf("keep the previous generation: %w: left as it is", err)
	case ok && prev.Home != "" && prev.Home != s.cur.Home:
		return fmt.Errorf("keep the previous generation: %s belongs to home %s, not this one (%s): left as it is", PrevName, prev.Home, s.cur.Home)
	case ok && !prev.Before(s.cur):
		return nil
	}
	data, err := json.MarshalIndent(s.cur, "", "  ")
	if err != nil {
		return fmt.Errorf("keep the previous generation: %w", err)
	}
	if err := WriteFileAtomic(filepath.Join(s.dir, PrevName), append(data, '\n'), nil); err != nil {
		return fmt.Errorf("keep the previous generation: %w", err)
	}
	return nil
}

// tempPrefix starts the name of every temp file a save creates.
const tempPrefix = ".baton-tmp-"

// WriteFileAtomic replaces path with data durably. Readers see the old or the new file,
// never a mix. beforeRename, if not nil, runs after the temp file is durable.
func WriteFileAtomic(path string, data []byte, beforeRename func()) error {
	t := &tempFile{path: path}
	t.create()
	return t.replace(data, beforeRename)
}

// WriteFileAtomicVolatile replaces path with data atomically but not durably: readers see
// the old or the new file, never a mix, but a machine crash may leave either, or an empty
// or partial new one. For messages between live processes that nobody needs after a crash
// (a forwarded request and its reply: the requester does not survive one), it saves two
// fsyncs, each a journal commit on a busy disk.
func WriteFileAtomicVolatile(path string, data []byte) error {
	t := &tempFile{path: path, volatile: true}
	t.create()
	return t.replace(data, nil)
}

// tempFile is the temp file of one atomic replace of path: created in path's folder
// (O_EXCL, 0600), written, fsynced, renamed over path.
type tempFile struct {
	path      string
	volatile  bool          // no fsync of the file or the folder (WriteFileAtomicVolatile)
	crashable bool          // the crash points save.* are armed (a save of workflows.json)
	done      chan struct{} // closed once create returned, when created in the background
	f         *os.File
	name      string
	err       error
}

// startTemp begins creating the temp file that will replace path (workflows.json) and returns at once,
// so the caller can encode meanwhile: creating a file (its inode, the folder's entry, a
// journal handle) takes about as long as encoding the document on a quiet disk, 0.1 ms,
// and a millisecond and more on a busy one. The caller must end it with replace or
// discard.
func startTemp(path string) *tempFile {
	t := &tempFile{path: path, done: make(chan struct{}), crashable: true}
	go func() {
		defer close(t.done)
		t.create()
	}()
	return t
}

func (t *tempFile) create() {
	t.f, t.name, t.err = createTemp(filepath.Dir(t.path), filepath.Base(t.path))
}

func (t *tempFile) wait() {
	if t.done != nil {
		<-t.done
	}
}

// discard removes the temp file of a replace given up before it began.
func (t *tempFile) discard() {
	t.wait()
	if t.err == nil {
		t.f.Close()
		os.Remove(t.name)
	}
}

// replace writes data to the temp file, fsyncs it, renames it over the path and fsyncs
// the folder; beforeRename, if not nil, runs after the temp file is durable.
func (t *tempFile) replace(data []byte, beforeRename func()) error {
	t.wait()
	path, f, tmp := t.path, t.f, t.name
	if t.err != nil {
		return fmt.Errorf("save %s: %w", path, t.err)
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("save %s: write: %w", path, err)
	}
	t.failpoint("save.after-temp-write")
	if !t.volatile {
		if err := FsyncAt(SyncReplaceFile, f); err != nil {
			return fmt.Errorf("save %s: fsync: %w", path, err)
		}
	}
	t.failpoint("save.after-fsync")
	if err := f.Close(); err != nil {
		return fmt.Errorf("save %s: close: %w", path, err)
	}
	if beforeRename != nil {
		beforeRename()
	}
	if err := rename(tmp, path); err != nil {
		return fmt.Errorf("save %s: rename: %w", path, err)
	}
	ok = true
	t.failpoint("save.after-rename")
	if t.volatile {
		return nil
	}
	if err := SyncDirAt(SyncReplaceFolder, filepath.Dir(path)); err != nil {
		return fmt.Errorf("save %s: %w: fsync folder: %w", path, ErrNotDurable, err)
	}
	return nil
}

// failpoint is Failpoint for a save of workflows.json only: the crash tests kill a
// window there, not in its copies of other files.
func (t *tempFile) failpoint(name string) {
	if t.crashable {
		Failpoint(name)
	}
}

func createTemp(dir, base string) (*os.File, string, error) {
	for i := 0; ; i++ {
		name := filepath.Join(dir, fmt.Sprintf("%s%s-%s-%d", tempPrefix, base, ProcessTag(), time.Now().UnixNano()))
		f, err := openFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil || !errors.Is(err, os.ErrExist) || i > 5 {
			return f, name, err
		}
	}
}

// processTag names this process in the names of the temp files it creates, so that a
// cleaner can tell whether their creator still lives. See SetProcessTag.
var processTag atomic.Pointer[string]

// SetProcessTag sets the tag (no '-' in it) that names this process in the names of its
// temp files: the host sets its pid, start time and boot, once, before any save. Until
// then the pid alone is used.
func SetProcessTag(tag string) { processTag.Store(&tag) }

// ProcessTag returns the tag that names this process in its temp files' names.
func ProcessTag() string {
	if t := processTag.Load(); t != nil {
		return *t
	}
	return strconv.Itoa(os.Getpid())
}

// TempCreator returns the process tag in the name of a temp file of a save, and whether
// name is one.
func TempCreator(name string) (string, bool) {
	if !strings.HasPrefix(name, tempPrefix) {
		return "", false
	}
	rest := name[len(tempPrefix):] // <base>-<tag>-<nanos>
	i := strings.LastIndexByte(rest, '-')
	if i < 0 {
		return "", false
	}
	j := strings.LastIndexByte(rest[:i], '-')
	if j < 0 || j+1 == i {
		return "", false
	}
	return rest[j+1 : i], true
}

// syncDir fsyncs folder dir, making the names created, renamed or removed in it durable.
// It opens dir without the home's ownership checks (openFile): an fsync reads and writes
// nothing of the folder's own, and the folder synced may be the home's parent (MkdirDurable),
// which belongs to whoever made it (/tmp is everyone's).
func syncDir(dir string) error {
	d, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// CleanTemps removes the temp files of saves whose creator is proven gone, and returns
// their names. It never touches the live file.
//
// The deletion rule: a process deletes only a file it can prove is abandoned. A temp file
// is another process's work in progress until its creator is dead: that process may be
// about to write, fsync or rename it (a window that stopped writing may still finish a
// save it began, and a save that fails removes its own temp file). So CleanTemps asks
// creatorGone, with the process tag in the file's name (see SetProcessTag), and leaves
// every file whose creator is alive, cannot be named, or cannot be judged. Any process may
// call it; the writer does at its takeover and now and then after.
func CleanTemps(dir string, creatorGone func(tag string) bool) (removed []string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		tag, ok := TempCreator(e.Name())
		if !ok || !creatorGone(tag) {
			continue
		}
		if os.Remove(filepath.Join(dir, e.Name())) == nil {
			removed = append(removed, e.Name())
		}
	}
	return removed
}
