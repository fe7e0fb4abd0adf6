//go:build darwin || freebsd || netbsd || openbsd

package store

import (
	"os"
	"syscall"
)

// ctimeOf returns the inode change time of st in nanoseconds.
func ctimeOf(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }

// fdatasync is File.Sync here (on macOS F_FULLFSYNC, which is what makes data durable).
func fdatasync(f *os.File) error { return f.Sync() }
