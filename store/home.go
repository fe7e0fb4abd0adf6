package store

import (
	"context"
	"errors"
)

// The seams of a home: what the core needs from the place a home is kept, as interfaces,
// so that a second kind of home (etcd) is a second implementation, not a rewrite. Today's
// folder is the one implementation of each:
//
//   - DocHome, the document (read it, follow it, commit a change fenced by the writer's
//     epoch): the folder's workflows.json + workflows.wal (folderDoc, this package). A
//     Store keeps the logic (validation, the update queue and group commit, the fencing
//     rule, refresh-before-write, archiving) and keeps the document through its DocHome.
//   - WriterLock and LockHold, the writer lock: state.lock and flock(2) (package host,
//     which alone opens state.lock).
//   - Window and run liveness and the run files (logs, journals): package workflow
//     (workflow.Evidence, workflow.RunFiles), whose types they speak.
//
// The document and lock seams sit here, not in host, so that an implementation in a
// package of its own (store/etcdhome) and the contract suite (store/storetest/contract)
// can name them without importing host, which sits above them.

// ErrLockLost is returned by LockHold.Check when the hold is no longer the writer lock of
// the home: the folder's state.lock was removed or replaced, an etcd session's lease is
// gone. A writer that gets it stops writing at once.
var ErrLockLost = errors.New("the writer lock is no longer held")

// DocHome is where a home keeps its document. A Store calls it with its own lock held,
// one call at a time, so an implementation needs no lock for calls from its Store (Follow
// runs beside them: see there). Every method may block for I/O.
//
// Versions. A document's version is its Generation: every commit makes generation
// have.Generation+1, and every reader sees the generations in commit order, none skipped
// and none changed after it was committed. An implementation may keep its own version
// (etcd's revision) but never shows a Store anything but whole generations.
type DocHome interface {
	// Load returns the newest document the home holds. have is the document the Store
	// has (the last Load's or Commit's result; an empty document at first).
	//
	// With full false it may read only what changed since its last Load or Commit (the
	// folder: the log's frames after the last one applied; etcd: watch events after the
	// revision it read), and returns have itself, the same pointer, when nothing changed.
	// It reads in full by itself whenever it cannot prove it saw every change since: a
	// gap (a compacted revision, a log that follows a newer workflows.json, a missed
	// event). With full true it reads everything and checks it.
	//
	// When the home's document cannot be used (unreadable, damaged, another home's), it
	// returns the newest good document it had, never nil, and an error wrapping
	// ErrUnreadable (and ErrDamaged for damage) that says what is wrong and what to do;
	// the Store then refuses to write until a Load succeeds. It never repairs anything.
	Load(have *Doc, full bool) (*Doc, error)

	// Commit makes next, the document after have, durable and visible as one atomic
	// change, and returns it as saved (an implementation may set what it keeps in the
	// document: the folder's Log link). next.Generation is have.Generation+1 and
	// next.Epoch is the writer's epoch; have is the document the last Load or Commit
	// returned, with no Load failing since.
	//
	// A nil error is an acknowledgement: every Load after it, in any process, returns
	// next or a later generation, also after a crash or power cut. Any other error
	// means next was not committed and no Load ever sees it; except an error wrapping
	// ErrNotDurable: next is in place and readers may see it, but a power cut may take
	// it; Commit then returns the document in place with the error (the Store keeps it
	// as its document, and the caller is told the save failed). Otherwise the document
	// returned with an error is nil.
	//
	// Fencing. A commit is refused by the home, with an error wrapping ErrFenced and
	// nothing written, when the home holds a generation after have's or a document with
	// an epoch above next.Epoch: a writer whose term ended can never write, whatever
	// its own clock or scheduler did. The folder gets this from its order: the Store
	// Loads and compares the epochs right before each commit, under state.lock, whose
	// hold it checks (Options.BeforeSave) with nothing written yet. A home without such a
	// lock compares in the commit itself (etcd: one transaction comparing the election
	// key's revision and the generation it read).
	Commit(have, next *Doc) (*Doc, error)

	// Checkpoint makes the home's compact form hold every committed generation up to
	// cur, the Store's document (the folder: workflows.json rewritten whole, and a new log
	// cycle). It calls check, with nothing written yet, when there is something to write,
	// and writes nothing if check fails (check is the Store's writable check and
	// BeforeSave: a checkpoint is fenced as a commit is). A home with no compact form
	// returns nil. The folder also runs it by itself CheckpointAfter after a commit.
	Checkpoint(cur *Doc, check func() error) error

	// StopWriting says the Store stopped writing (EndEpoch): background work that
	// writes (the folder's timed checkpoint) stops.
	StopWriting()

	// Follow calls changed(false) after the home's document may have changed (a commit by
	// any writer, this process's included) and changed(true) when changes may have been
	// missed (an fsnotify overflow, a compacted revision, a broken watch): the Store then
	// Loads in full. It returns once following is set up (or why it cannot be), and
	// stopped, which is closed once its goroutines returned after ctx ended; no call of
	// changed begins after that. changed is called from one goroutine at a time and
	// returns at once (it posts to a one-slot signal); it never calls back into Load.
	Follow(ctx context.Context, changed func(full bool)) (stopped <-chan struct{}, err error)
}

// WriterLock is the writer lock of a home: at most one LockHold is held at a time across
// every process (and machine) on the home. Winning it makes a window a candidate; it
// writes only after its takeover (host.BecomeWriter), and only while the hold is the lock
// (LockHold.Check). Safe for concurrent use; each call makes a hold of its own.
type WriterLock interface {
	// TryLock takes the lock if it is free now. Busy is ok false with a nil error, not an
	// error (as gofrs/flock's TryLock). It does not block on the holder.
	TryLock() (hold LockHold, ok bool, err error)

	// Lock blocks until it wins the lock and returns the hold. It wakes as soon as the
	// holder lets go or is proven dead: the folder when the holder's descriptor closes
	// (exit, crash, kill -9: the kernel drops the flock), etcd when the holder's lease is
	// revoked or expires. It never decides from age. ctx ending makes it return ctx's
	// error holding nothing; an implementation that cannot interrupt its wait (flock(2))
	// returns once it won and lets the lock go at once.
	Lock(ctx context.Context) (LockHold, error)
}

// LockHold is one hold of the writer lock, won by TryLock or Lock.
type LockHold interface {
	// Check returns nil while this hold is still the writer lock of the home, and an
	// error wrapping ErrLockLost once it is not: the folder's state.lock was removed or
	// replaced (holding a lock on a file that is no longer at the path proves nothing),
	// an etcd session's lease is gone. A writer calls it before every save, with nothing
	// written yet. It may be stale the moment it returns; the fencing of DocHome.Commit
	// covers that.
	Check() error

	// Release lets the lock go so that a waiter wins it. It is idempotent.
	Release() error

	// Close lets the lock go and frees the hold's resources (a window closing). It is
	// idempotent.
	Close() error
}
