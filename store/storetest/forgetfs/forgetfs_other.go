//go:build !linux

package forgetfs

import (
	"errors"
	"fmt"
	"runtime"
)

// ErrUnavailable is returned by Mount when FUSE cannot be used here; tests skip on it.
var ErrUnavailable = errors.New("forgetfs: FUSE unavailable (Linux only)")

// FS is one mount; see the Linux implementation.
type FS struct{ backing, mnt string }

// Available reports why FUSE cannot be used here: the forgetting file system is Linux's.
func Available() error { return fmt.Errorf("%w: this is %s", ErrUnavailable, runtime.GOOS) }

// Mount is not available here.
func Mount(backing, mnt string) (*FS, error) { return nil, Available() }

// Dir returns the mount point.
func (f *FS) Dir() string { return f.mnt }

// Unmount does nothing here.
func (f *FS) Unmount() error { return nil }

// PowerCut is not available here.
func (f *FS) PowerCut(stop func()) error { return Available() }
