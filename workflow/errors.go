package workflow

import "errors"

var (
	// ErrNotFound is returned when a workflow or run named in a request does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict is returned when a request clashes with the document: a duplicate
	// workflow name, cancelling a finished run, deleting a workflow with active runs. A
	// taken name wraps a store.FieldErrors for the field "name".
	ErrConflict = errors.New("conflict")
	// ErrInvalid is returned when a definition fails validation. When the rules broken are
	// rules of fields, it wraps a store.FieldErrors naming each field (find it with
	// errors.As); the message names them too.
	ErrInvalid = errors.New("invalid")
)
