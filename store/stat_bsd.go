//go:build darwin || freebsd || netbsd || openbsd

package store

import "syscall"

// ctimeOf returns the inode change time of st in nanoseconds.
func ctimeOf(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }
