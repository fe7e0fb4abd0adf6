package workflow

import "errors"

var (
	// ErrNotFound is returned when a workflow or run named in a request does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict is returned when a request clashes with the document: a duplicate
	// workflow name, cancelling a finished run, deleting a workflow with active runs.
	ErrConflict = errors.New("conflict")
	// ErrInvalid is returned when a definition fails validation; the message names the field.
	ErrInvalid = errors.New("invalid")
)
