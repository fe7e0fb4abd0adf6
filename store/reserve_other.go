//go:build !linux

package store

import "os"

// Reserve is a no-op where fallocate is not known: appends take their chance.
func Reserve(f *os.File, n int64) error { return nil }
