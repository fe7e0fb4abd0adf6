package etcdhome

import (
	"errors"
	"fmt"

	"baton/store"
)

// Errors of a writer's term.
var (
	// ErrFenced is returned by a commit or a supervisor's write when the lease it was made
	// under is gone (its election or alive key no longer exists with the revision it had):
	// nothing was written. The writer must drop to read-only; a supervisor must stop.
	// It wraps store.ErrFenced.
	ErrFenced = fmt.Errorf("%w: this writer's lease is gone, nothing was written", store.ErrFenced)
	// errFencedUnsure is ErrFenced after a save whose outcome is unknown (see settle): the
	// lease is gone, but that save may have been written before it went. It is ErrFenced
	// (errors.Is) without saying "nothing was written".
	errFencedUnsure error = fencedUnsure{}
	// ErrConflict is returned by Commit when the document changed since the term last read
	// or wrote it: nothing was written. Update refreshes and retries once on it.
	ErrConflict = errors.New("the document changed since this writer read it, nothing was written")
	// ErrNoWriter is returned by Writer when no window holds the writer election.
	ErrNoWriter = errors.New("no writer holds the home")
	// ErrOutcomeUnknown is wrapped in a commit's error when etcd did not say whether the
	// save took effect (a timeout, a lost connection): the save is not acknowledged, and
	// the writer fences itself (see DocHome.settle) rather than trust either answer.
	ErrOutcomeUnknown = errors.New("the outcome of the save is unknown")
	// ErrNotLoaded is returned by Commit and Update before the term's Load.
	ErrNotLoaded = errors.New("the writer has not read the document yet: call Load first")
)

// Errors of the document.
var (
	// ErrDamaged is returned when the keys under the prefix do not make a valid document
	// (a value that does not decode, a key the meta names that is missing): nothing is
	// written over it. It wraps store.ErrUnreadable and store.ErrDamaged.
	ErrDamaged = fmt.Errorf("%w: %w: the document under the etcd prefix", store.ErrUnreadable, store.ErrDamaged)
	// ErrTooLarge is returned by Commit when a save does not fit the cluster's limits: one
	// value alone is larger than a request may be, or the cluster's --max-txn-ops or
	// --max-request-bytes are lower than Options says. Nothing was written.
	ErrTooLarge = errors.New("the save does not fit the etcd cluster's request limits")
)

// Errors of run supervisors.
var (
	// ErrSupervised is returned by Supervise when the run already has a live supervisor.
	ErrSupervised = errors.New("the run already has a live supervisor")
	// ErrReaped is returned by Supervise when a writer has already reaped the run (its
	// tombstone is there: see Term.MarkReaped): the late supervisor must run no step.
	ErrReaped = errors.New("the run was reaped before its supervisor started: no step may start")
)

// fencedUnsure is errFencedUnsure's type.
type fencedUnsure struct{}

func (fencedUnsure) Error() string {
	return store.ErrFenced.Error() + ": this writer's lease is gone; the save whose answer was lost may or may not have been written"
}

func (fencedUnsure) Is(target error) bool { return target == ErrFenced || target == store.ErrFenced }
