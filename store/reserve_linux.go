package store

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// Reserve allocates room for f's first n bytes without changing its size (fallocate with
// FALLOC_FL_KEEP_SIZE), so that appends up to n bytes never need a block the disk no
// longer has: a run's journal and the audit log keep their room for a full disk. A file
// system that cannot reserve (no fallocate) is not an error: appends then take their
// chance; a full disk is (ENOSPC).
func Reserve(f *os.File, n int64) error {
	for {
		err := unix.Fallocate(int(f.Fd()), unix.FALLOC_FL_KEEP_SIZE, 0, n)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENOSYS):
			return nil
		default:
			return err
		}
	}
}
