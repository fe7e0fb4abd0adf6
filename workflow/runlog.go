package workflow

import (
	"errors"
	"io/fs"
	"os"

	"baton/store"
)

// openRunLog opens run log path for appending, never through a symbolic link: a log that
// is new is created exclusively (O_CREAT|O_EXCL, which also refuses any link at the
// name), and one that exists (a later step, a supervisor taking over from its launcher, a
// re-queued run) is opened only if it is this user's own regular file that others cannot
// write (store.OpenInHome). Anything else at the name is refused with an error wrapping
// store.ErrNotOurs that names it: the run's output never lands outside the home.
func openRunLog(path string) (*os.File, error) {
	f, err := store.OpenInHome(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return f, err
	}
	return store.OpenInHome(path, os.O_WRONLY|os.O_APPEND, 0)
}

// openLockFile opens run lock path for flock, never through a symbolic link.
func openLockFile(path string) (*os.File, error) {
	return store.OpenInHome(path, os.O_RDONLY, 0)
}
