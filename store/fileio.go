package store

import (
	"os"
	"syscall"
)

// openFile opens path like os.OpenFile, close-on-exec, but without offering the
// descriptor to the runtime's poller. os.OpenFile tries every file there, and for a
// regular file or a folder that costs four wasted system calls (set non-blocking,
// epoll_ctl refused, read the flags, set blocking again); os.NewFile of a blocking
// descriptor asks once. A save opens two files and a load one, so the takeover's re-read
// and save, which wait for nothing else, skip a dozen calls. Reads, writes and fsyncs
// through the returned file block their thread as they would anyway for a regular file.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// rename renames oldpath over newpath. Unlike os.Rename it does not first stat newpath
// (to refuse replacing a folder with a clear error): rename(2) refuses that itself, and
// the save's target is never a folder it means to replace.
func rename(oldpath, newpath string) error {
	if err := syscall.Rename(oldpath, newpath); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}
