package host

import (
	"errors"
	"fmt"
)

var (
	// ErrReadOnly is returned (as a *ReadOnlyError) when a write is asked of a window that
	// is not the writer, or whose takeover has not finished.
	ErrReadOnly = errors.New("read-only")
	// ErrUnsafeHome is returned by Open when the home folder is a symlink, owned by another
	// user or writable by others.
	ErrUnsafeHome = errors.New("unsafe home folder")
	// ErrNoHome is returned by Open with Options.MustExist when the folder holds no home
	// (it is missing, or holds nothing of Baton's): a command that only reads never makes one.
	ErrNoHome = errors.New("no home")
	// ErrNotHome is returned by Open when --home names a folder that cannot be a home: a
	// system folder (/, /dev, /proc, /sys) or a folder that holds other things but nothing
	// of Baton's.
	ErrNotHome = errors.New("not a Baton home")
	// ErrClosed is returned by every method after Close.
	ErrClosed = errors.New("window is closed")
	// ErrBusy is returned by BecomeWriter when the window is not a reader: a takeover is
	// under way, it writes already, or it closed.
	ErrBusy = errors.New("not a reader: a takeover is under way, this window writes, or it closed")
	// ErrLockLost is returned when state.lock was removed or replaced while held: the
	// window stops writing rather than run beside a second writer.
	ErrLockLost = errors.New("state.lock was removed or replaced while held")
)

// ReadOnlyError says why a write was refused and who the writer is.
type ReadOnlyError struct {
	Role      Role
	WriterPID int    // 0 when no writer is known
	Problem   string // set when this window holds the lock but cannot write (unreadable file)
	// WriterMachine is the writer's machine on an etcd home ("" on a folder home).
	WriterMachine string
}

func (e *ReadOnlyError) Error() string {
	switch {
	case e.Problem != "":
		return fmt.Sprintf("read-only: %s", e.Problem)
	case e.Role == RolePromoting:
		return "read-only: this window is taking over; try again in a moment"
	case e.WriterPID > 0 && e.WriterMachine != "":
		return fmt.Sprintf("read-only: machine %s, window pid %d, is the writer; make changes there", e.WriterMachine, e.WriterPID)
	case e.WriterPID > 0:
		return fmt.Sprintf("read-only: window pid %d is the writer; make changes there", e.WriterPID)
	default:
		return "read-only: this window is not the writer"
	}
}

// Unwrap lets errors.Is(err, ErrReadOnly) match.
func (e *ReadOnlyError) Unwrap() error { return ErrReadOnly }
