package store

import (
	"os"
	"syscall"
)

// Datasync makes f's data durable, and its size if that changed, but not its times
// (fdatasync). The log's frames and the runs' journals use it.
func Datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
