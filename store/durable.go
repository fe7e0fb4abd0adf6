package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Durability points. Every fsync and fdatasync Baton relies on has a name, so that a
// reverse control can switch off exactly that one (BATON_SKIP_SYNC, test builds only:
// hooks_on.go) and show that a test on the forgetting file system (store/storetest/forgetfs)
// then fails. store/README.md, "Durability points and power cuts", lists each point with
// the test that catches it.
const (
	SyncReplaceFile   = "replace.file"      // an atomic replace's temp file
	SyncReplaceFolder = "replace.folder"    // the folder after an atomic replace's rename
	SyncWALCreate     = "wal.create"        // the log's zero fill (for speed, see store/README.md)
	SyncWALCreateDir  = "wal.create.folder" // the log's name when it is made
	SyncWALFrame      = "wal.frame"         // a save's frame: the acknowledgement
	SyncWALCycle      = "wal.cycle"         // a new cycle's header (see store/README.md)
	SyncWALHeader     = "wal.header"        // a new log's first header, before a document names it
	SyncRecover       = "recover.folder"    // the folder damaged files were moved into, and the home
	SyncArchiveFile   = "archive.file"      // runs appended to the archive
	SyncArchiveFolder = "archive.folder"    // a new archive file's name, or one removed
	SyncAudit         = "audit.file"        // an audit record
	SyncAuditFolder   = "audit.folder"      // the audit log's name, made or rotated
	SyncMkdir         = "mkdir.parent"      // a folder Baton made, in its parent
	SyncJournal       = "journal.record"    // a run journal's record (package workflow)
	SyncJournalFolder = "journal.folder"    // a run journal's name
)

// FsyncAt fsyncs f, durability point name.
func FsyncAt(name string, f *os.File) error {
	if skipSync(name) {
		return nil
	}
	if err := syncFault(name); err != nil {
		return err
	}
	return f.Sync()
}

// DatasyncAt fdatasyncs f, durability point name.
func DatasyncAt(name string, f *os.File) error {
	if skipSync(name) {
		return nil
	}
	return Datasync(f)
}

// SyncDirAt fsyncs folder dir, durability point name: the names created, renamed or
// removed in it are durable once it returns.
func SyncDirAt(name, dir string) error {
	if skipSync(name) {
		return nil
	}
	if err := syncFault(name); err != nil {
		return err
	}
	return syncDir(dir)
}

// durableDirs holds the folders this process has made durable (MkdirDurable).
var durableDirs sync.Map

// MkdirDurable makes folder path (0700) and any missing parents, and fsyncs the parent of
// each folder it made, and of path itself, so that path is durable when it returns: a
// folder's name is durable only once its parent is synced, and until then a power cut
// takes the folder and all it holds. The parent of path is synced even when path was
// there already (once per process): a process that died between the mkdir and the sync
// may have made it; for such a folder a parent this user may not open or sync (or a
// read-only file system) is not an error. Any goroutine may call it.
func MkdirDurable(path string) error {
	return mkdirDurable(filepath.Clean(path), true)
}

// mkdirDurable is MkdirDurable; a parent that is there already (leaf false) is left alone.
// Something there that is not a folder (a symbolic link, a file) is left to the caller's
// own checks, which say what is wrong with it.
func mkdirDurable(path string, leaf bool) error {
	fi, err := os.Lstat(path)
	made := false
	switch {
	case err == nil && (!fi.IsDir() || !leaf):
		return nil
	case err == nil:
		if _, ok := durableDirs.Load(path); ok {
			return nil
		}
	case errors.Is(err, os.ErrNotExist):
		made = true
		if parent := filepath.Dir(path); parent != path {
			if err := mkdirDurable(parent, false); err != nil {
				return err
			}
		}
		if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("make folder %s: %w", path, err)
		}
	case err != nil:
		return fmt.Errorf("make folder %s: %w", path, err)
	}
	if err := SyncDirAt(SyncMkdir, filepath.Dir(path)); err != nil {
		if !made && (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EINVAL)) {
			return nil // a folder that was there, in a parent this user may not open or sync
		}
		return fmt.Errorf("make folder %s: %w: fsync its parent: %w", path, ErrNotDurable, err)
	}
	durableDirs.Store(path, true)
	return nil
}
