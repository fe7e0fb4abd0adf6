package workflow

import (
	"os"
	"syscall"
)

// datasync makes f's data durable (fdatasync: the size is metadata it flushes too).
func datasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
