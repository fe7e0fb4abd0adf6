package store

import (
	"os"
	"syscall"
)

// ctimeOf returns the inode change time of st in nanoseconds.
func ctimeOf(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }

// fdatasync makes f's data durable, and its size if that changed, but not its times.
func fdatasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
