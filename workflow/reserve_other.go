//go:build !linux

package workflow

import "os"

// reserve is a no-op where fallocate is not known: appends take their chance.
func reserve(f *os.File, n int64) error { return nil }
