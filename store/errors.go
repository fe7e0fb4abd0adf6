package store

import "errors"

// Errors returned when loading workflows.json.
var (
	// ErrUnreadable is returned when workflows.json exists but cannot be used: it is not
	// valid JSON, is truncated, fails validation or has a newer schema. Errors that wrap it
	// say which. The file is kept untouched and the store refuses to write until it is fixed.
	ErrUnreadable = errors.New("workflows.json is unreadable")
	// ErrTooLarge is returned (wrapped with ErrUnreadable) when the file exceeds MaxSize.
	ErrTooLarge = errors.New("file is larger than the size cap")
	// ErrNewerSchema is returned (wrapped with ErrUnreadable) when the file was written by
	// a newer Baton; it is never overwritten.
	ErrNewerSchema = errors.New("schema is newer than this Baton understands")
	// ErrDamaged is returned (wrapped with ErrUnreadable) when the home's files show that
	// saves that were acknowledged could be missing: workflows.json gone beside Baton's
	// other files, a log of the wrong size, cycle or home, a frame that fails its check
	// with good frames after it. Nothing is written, not even workflows.prev.json; Recover
	// (`baton recover`) restores what can be, moving the damaged files aside.
	ErrDamaged = errors.New("the home is damaged")
	// ErrForeign is returned (wrapped with ErrDamaged) when workflows.json and
	// workflows.wal belong to different homes (their home ids differ).
	ErrForeign = errors.New("files of another home")
)

// Errors returned by Update.
var (
	// ErrNotWriter is returned by Update when the store has no writer epoch (BeginEpoch
	// was not called, or the store was fenced).
	ErrNotWriter = errors.New("store is not open for writing")
	// ErrFenced is returned by Update when the file on disk carries a higher writer epoch
	// than ours: another window took over. The store drops its epoch; the caller must drop
	// to read-only.
	ErrFenced = errors.New("fenced: another window has a higher writer epoch")
	// ErrNoChange may be returned by the function passed to Update to say that nothing
	// changed: Update then saves nothing and returns the current document and no error.
	ErrNoChange = errors.New("no change")
	// ErrNotDurable is returned (wrapped) by Update when the new file is in place but the
	// folder fsync failed: the change is visible but may not survive a crash.
	ErrNotDurable = errors.New("saved, but not confirmed durable")
	// ErrInvalid is returned (wrapped) when a document fails validation.
	ErrInvalid = errors.New("invalid document")
)
