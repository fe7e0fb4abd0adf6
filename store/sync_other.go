//go:build !linux

package store

import "os"

// Datasync is File.Sync where there is no fdatasync (on macOS F_FULLFSYNC, which is what
// makes data durable).
func Datasync(f *os.File) error { return f.Sync() }
