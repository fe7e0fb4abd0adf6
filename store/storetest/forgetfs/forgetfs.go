//go:build linux

package forgetfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// ErrUnavailable is returned by Mount when FUSE cannot be used here (not root, or no
// /dev/fuse); tests skip on it.
var ErrUnavailable = errors.New("forgetfs: FUSE unavailable (needs root and /dev/fuse)")

// ident names a file or folder of the backing file system: inode numbers are reused,
// inode and birth time together are not.
type ident struct {
	ino   uint64
	btime int64
}

// entry is one name of a folder as its last fsync saw it.
type entry struct {
	id     ident
	mode   uint32 // type and permission bits
	target string // a symbolic link's target
}

// FS is one mount. All methods may be called from any goroutine.
type FS struct {
	backing, mnt string
	server       *fuse.Server
	dev          uint64 // the mount's device: its FUSE connection's number is its minor
	detachOnce   sync.Once
	detachErr    error

	mu    sync.Mutex // guards the fields below
	cut   bool       // a power cut happened: no sync counts any more
	root  ident
	dirs  map[ident]map[string]entry // durable entries of each folder
	files map[ident][]byte           // durable content of each file
	syncs int                        // fsyncs recorded, for tests of the instrument
}

// Available reports why FUSE cannot be used here, or nil.
func Available() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: not root", ErrUnavailable)
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	return nil
}

// Mount mounts a forgetting view of backing at mnt (an empty folder). What backing holds
// now is durable. The caller must end it with PowerCut or Unmount.
func Mount(backing, mnt string) (*FS, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	f := &FS{backing: backing, mnt: mnt, dirs: map[ident]map[string]entry{}, files: map[ident][]byte{}}
	if err := f.snapshot(); err != nil {
		return nil, fmt.Errorf("forgetfs: read %s: %w", backing, err)
	}
	lr, err := fs.NewLoopbackRoot(backing)
	if err != nil {
		return nil, fmt.Errorf("forgetfs: %s: %w", backing, err)
	}
	root := &node{LoopbackNode: lr.(*fs.LoopbackNode), fs: f}
	zero := time.Duration(0)
	f.server, err = fs.Mount(mnt, root, &fs.Options{
		EntryTimeout: &zero, AttrTimeout: &zero, NegativeTimeout: &zero,
		MountOptions: fuse.MountOptions{DirectMount: true, FsName: "forgetfs", Name: "forgetfs",
			Logger: log.New(io.Discard, "", 0)}, // replies refused after a cut are expected
	})
	if err != nil {
		return nil, fmt.Errorf("forgetfs: mount %s on %s: %w", backing, mnt, err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(mnt, &st); err != nil {
		f.server.Unmount()
		return nil, fmt.Errorf("forgetfs: mount %s on %s: %w", backing, mnt, err)
	}
	f.dev = st.Dev
	return f, nil
}

// Dir returns the mount point.
func (f *FS) Dir() string { return f.mnt }

// Syncs returns how many fsyncs of files and folders were recorded.
func (f *FS) Syncs() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.syncs
}

// Unmount ends the mount without a power cut: the backing folder keeps everything.
func (f *FS) Unmount() error {
	f.mu.Lock()
	f.cut = true
	f.mu.Unlock()
	return f.detach()
}

// PowerCut simulates a power cut: from this instant no sync counts; stop (if not nil) must
// stop every process using the mount (kill -9 and wait); then the connection is cut, so
// anything still trying gets an error, the mount is removed, and the backing folder is put
// back to the durable state.
func (f *FS) PowerCut(stop func()) error {
	f.mu.Lock()
	f.cut = true
	f.mu.Unlock()
	if stop != nil {
		stop()
	}
	if err := f.detach(); err != nil {
		return err
	}
	return f.restore()
}

// detach aborts the FUSE connection (every pending and later operation fails), lazily
// unmounts and waits for the server to end. Only the first call does anything.
func (f *FS) detach() error {
	f.detachOnce.Do(func() { f.detachErr = f.detachNow() })
	return f.detachErr
}

func (f *FS) detachNow() error {
	var st syscall.Stat_t
	if err := syscall.Stat(f.mnt, &st); err == nil && st.Dev == f.dev {
		abortConnection(unix.Minor(st.Dev))
	}
	if err := syscall.Unmount(f.mnt, syscall.MNT_DETACH); err != nil && err != syscall.EINVAL {
		return fmt.Errorf("forgetfs: unmount %s: %w", f.mnt, err)
	}
	done := make(chan struct{})
	go func() { f.server.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		return fmt.Errorf("forgetfs: the server of %s did not end within a minute", f.mnt)
	}
	return nil
}

// fusectl is where the kernel's FUSE connections can be aborted.
const fusectl = "/sys/fs/fuse/connections"

// abortConnection aborts FUSE connection n: every pending and later request fails at once,
// even on files still open. fusectl is mounted first if it is not (root may).
func abortConnection(n uint32) {
	abort := fmt.Sprintf("%s/%d/abort", fusectl, n)
	if _, err := os.Stat(abort); err != nil {
		_ = syscall.Mount("fusectl", fusectl, "fusectl", 0, "")
	}
	_ = os.WriteFile(abort, []byte("1"), 0)
}

// snapshot records everything under the backing folder as durable.
func (f *FS) snapshot() error {
	id, err := identOf(f.backing)
	if err != nil {
		return err
	}
	f.root = id
	return f.snapshotDir(f.backing, id)
}

func (f *FS) snapshotDir(dir string, id ident) error {
	ents, err := readEntries(dir)
	if err != nil {
		return err
	}
	f.dirs[id] = ents
	for name, e := range ents {
		p := filepath.Join(dir, name)
		switch e.mode & syscall.S_IFMT {
		case syscall.S_IFDIR:
			err = f.snapshotDir(p, e.id)
		case syscall.S_IFREG:
			f.files[e.id], err = os.ReadFile(p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// syncFile records fd's content as the durable content of its file.
func (f *FS) syncFile(wfd int) syscall.Errno {
	// The handle may be write-only: read through a new descriptor of the same file.
	fd, err := syscall.Open(fmt.Sprintf("/proc/self/fd/%d", wfd), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fs.ToErrno(err)
	}
	defer syscall.Close(fd)
	var x unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_INO|unix.STATX_BTIME|unix.STATX_SIZE, &x); err != nil {
		return fs.ToErrno(err)
	}
	data := make([]byte, x.Size)
	for off := 0; off < len(data); {
		n, err := syscall.Pread(fd, data[off:], int64(off))
		if err != nil {
			return fs.ToErrno(err)
		}
		if n == 0 {
			data = data[:off]
			break
		}
		off += n
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cut {
		return syscall.EIO
	}
	f.files[identOfStatx(&x)] = data
	f.syncs++
	return 0
}

// syncDir records the entries of the backing folder dir as its durable entries.
func (f *FS) syncDir(dir string) syscall.Errno {
	id, err := identOf(dir)
	if err != nil {
		return fs.ToErrno(err)
	}
	ents, err := readEntries(dir)
	if err != nil {
		return fs.ToErrno(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cut {
		return syscall.EIO
	}
	f.dirs[id] = ents
	f.syncs++
	return 0
}

// restore empties the backing folder and builds the durable tree in it.
func (f *FS) restore() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	names, err := os.ReadDir(f.backing)
	if err != nil {
		return fmt.Errorf("forgetfs: restore %s: %w", f.backing, err)
	}
	for _, n := range names {
		if err := os.RemoveAll(filepath.Join(f.backing, n.Name())); err != nil {
			return fmt.Errorf("forgetfs: restore %s: %w", f.backing, err)
		}
	}
	if err := f.build(f.backing, f.root, map[ident]bool{}); err != nil {
		return fmt.Errorf("forgetfs: restore %s: %w", f.backing, err)
	}
	return nil
}

func (f *FS) build(dir string, id ident, above map[ident]bool) error {
	if above[id] {
		return nil // a folder inside itself (two durable names across a move): once is enough
	}
	above[id] = true
	defer delete(above, id)
	for name, e := range f.dirs[id] {
		p := filepath.Join(dir, name)
		perm := os.FileMode(e.mode & 0o7777)
		var err error
		switch e.mode & syscall.S_IFMT {
		case syscall.S_IFDIR:
			if err = os.Mkdir(p, perm); err == nil {
				err = f.build(p, e.id, above)
			}
		case syscall.S_IFREG:
			err = os.WriteFile(p, f.files[e.id], perm)
		case syscall.S_IFLNK:
			err = os.Symlink(e.target, p)
		}
		if err != nil {
			return err
		}
		if e.mode&syscall.S_IFMT != syscall.S_IFLNK {
			if err := os.Chmod(p, perm); err != nil { // not narrowed by the umask
				return err
			}
		}
	}
	return nil
}

// readEntries lists dir's entries with their identities.
func readEntries(dir string) (map[string]entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make(map[string]entry, len(des))
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		var x unix.Statx_t
		if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &x); err != nil {
			if errors.Is(err, syscall.ENOENT) {
				continue // removed since the listing: not there now either
			}
			return nil, err
		}
		e := entry{id: identOfStatx(&x), mode: uint32(x.Mode)}
		if e.mode&syscall.S_IFMT == syscall.S_IFLNK {
			if e.target, err = os.Readlink(p); err != nil {
				return nil, err
			}
		}
		out[de.Name()] = e
	}
	return out, nil
}

func identOf(path string) (ident, error) {
	var x unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME, &x); err != nil {
		return ident{}, err
	}
	return identOfStatx(&x), nil
}

func identOfStatx(x *unix.Statx_t) ident {
	return ident{ino: x.Ino, btime: x.Btime.Sec*1e9 + int64(x.Btime.Nsec)}
}

// node is a loopback node whose fsyncs are recorded.
type node struct {
	*fs.LoopbackNode
	fs *FS
}

var (
	_ fs.NodeWrapChilder    = (*node)(nil)
	_ fs.NodeFsyncer        = (*node)(nil)
	_ fs.NodeOpendirHandler = (*node)(nil)
)

// WrapChild makes every node of the mount a node.
func (n *node) WrapChild(ctx context.Context, ops fs.InodeEmbedder) fs.InodeEmbedder {
	return &node{LoopbackNode: ops.(*fs.LoopbackNode), fs: n.fs}
}

// backingPath is the node's path in the backing folder.
func (n *node) backingPath() string {
	return filepath.Join(n.RootData.Path, n.Path(n.RootData.RootNode.EmbeddedInode()))
}

// Fsync records the file's content as durable (fsync and fdatasync alike).
func (n *node) Fsync(ctx context.Context, fh fs.FileHandle, flags uint32) syscall.Errno {
	if pf, ok := fh.(fs.FilePassthroughFder); ok {
		if fd, ok := pf.PassthroughFd(); ok {
			return n.fs.syncFile(fd)
		}
	}
	fd, err := syscall.Open(n.backingPath(), syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return fs.ToErrno(err)
	}
	defer syscall.Close(fd)
	return n.fs.syncFile(fd)
}

// OpendirHandle opens the folder with a handle whose fsync is recorded.
func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	fh, fuseFlags, errno := n.LoopbackNode.OpendirHandle(ctx, flags)
	if errno != 0 {
		return nil, 0, errno
	}
	return &dirHandle{inner: fh, n: n}, fuseFlags, 0
}

// dirHandle is an open folder: the loopback's, but its fsync records its entries.
type dirHandle struct {
	inner fs.FileHandle
	n     *node
}

var (
	_ fs.FileReaddirenter = (*dirHandle)(nil)
	_ fs.FileSeekdirer    = (*dirHandle)(nil)
	_ fs.FileReleasedirer = (*dirHandle)(nil)
	_ fs.FileFsyncdirer   = (*dirHandle)(nil)
)

func (d *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	return d.inner.(fs.FileReaddirenter).Readdirent(ctx)
}

func (d *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	return d.inner.(fs.FileSeekdirer).Seekdir(ctx, off)
}

func (d *dirHandle) Releasedir(ctx context.Context, flags uint32) {
	d.inner.(fs.FileReleasedirer).Releasedir(ctx, flags)
}

func (d *dirHandle) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	return d.n.fs.syncDir(d.n.backingPath())
}
