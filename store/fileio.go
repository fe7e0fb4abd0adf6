package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrNotOurs is returned when a file under the home is not one Baton may trust: a
// symbolic link, not a regular file, not owned by this user, or writable by group or
// others. Its content is never read or applied; the error names the file and what is
// wrong with it.
var ErrNotOurs = errors.New("file in the home is not this user's own")

// OpenInHome opens a file under the home like os.OpenFile, close-on-exec, and only if it
// is this user's own: a symbolic link is never followed (O_NOFOLLOW: ELOOP, wrapped in
// ErrNotOurs), and what is opened is checked on the descriptor (fstat), so no rename or
// swap between a check and the open can slip another file in: it must be a regular file
// (a folder when flag holds O_DIRECTORY), owned by this user and not writable by group
// or others, or the file is closed again and ErrNotOurs returned. A FIFO or device never
// blocks the open (it is opened non-blocking, then refused).
//
// Unlike os.OpenFile it does not offer the descriptor to the runtime's poller. os.OpenFile
// tries every file there, and for a regular file or a folder that costs four wasted
// system calls (set non-blocking, epoll_ctl refused, read the flags, set blocking again);
// os.NewFile of a blocking descriptor asks once. Reads, writes and fsyncs through the
// returned file block their thread as they would anyway for a regular file.
func OpenInHome(path string, flag int, perm os.FileMode) (*os.File, error) {
	var fd int
	for {
		var err error
		fd, err = syscall.Open(path, flag|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, uint32(perm.Perm()))
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.ENOTDIR && flag&syscall.O_DIRECTORY != 0 { // a symlink too, with O_NOFOLLOW
			if fi, lerr := os.Lstat(path); lerr == nil {
				what := fmt.Sprintf("it is not a folder (mode %s)", fi.Mode())
				if fi.Mode()&os.ModeSymlink != 0 {
					what = "it is a symbolic link, which Baton never follows inside the home"
				}
				return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: %s", ErrNotOurs, what)}
			}
		}
		if err == syscall.ELOOP {
			return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w: it is a symbolic link, which Baton never follows inside the home", ErrNotOurs)}
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		break
	}
	if err := checkOurs(fd, flag&syscall.O_DIRECTORY != 0); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if flag&syscall.O_NONBLOCK == 0 {
		// Blocking again, as asked (a no-op for a regular file, but os.NewFile asks).
		if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFL, uintptr(flag&^syscall.O_NONBLOCK)); e != 0 {
			syscall.Close(fd)
			return nil, &os.PathError{Op: "fcntl", Path: path, Err: e}
		}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// checkOurs refuses the open descriptor fd unless it is a regular file (a folder when
// dir), owned by this user, and not writable by group or others.
func checkOurs(fd int, dir bool) error {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return err
	}
	mode := uint32(st.Mode)
	want, what := uint32(syscall.S_IFREG), "a regular file"
	if dir {
		want, what = syscall.S_IFDIR, "a folder"
	}
	switch {
	case mode&syscall.S_IFMT != want:
		return fmt.Errorf("%w: it is not %s (mode %06o)", ErrNotOurs, what, mode)
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%w: it belongs to uid %d, not to you (uid %d)", ErrNotOurs, st.Uid, os.Geteuid())
	case mode&0o022 != 0:
		return fmt.Errorf("%w: it is writable by group or others (mode %04o)", ErrNotOurs, mode&0o7777)
	}
	return nil
}

// openFile opens a file of the store's under the home: see OpenInHome.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return OpenInHome(path, flag, perm)
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

// ReadInHome reads the whole file at path under the home, opened by OpenInHome: never
// through a symbolic link, and only a regular file of this user's that others cannot
// write (ErrNotOurs otherwise).
func ReadInHome(path string) ([]byte, error) {
	f, err := OpenInHome(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// FlockFile applies how (syscall.LOCK_*) to f with flock(2), again when interrupted by a
// signal; with LOCK_NB a lock held elsewhere is syscall.EWOULDBLOCK, else it blocks as
// flock does. The descriptor stays open for the whole call even if f is closed meanwhile,
// so a blocked call can never end up locking a reused descriptor number. The store's
// audit and workflow's run locks both take theirs through it.
func FlockFile(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			if ferr = syscall.Flock(int(fd), how); ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}
