package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/fsnotify/fsnotify"
)

// folderDoc is DocHome on the home folder: workflows.json plus the frames of
// workflows.wal that follow it (see wal.go). Its state (the file's stamp, the log's
// cycle and offset, the codec's copy of the file) is kept in its Store's fields, guarded
// by Store.mu, which its Store holds for every call but Follow.
type folderDoc struct{ s *Store }

var _ DocHome = (*folderDoc)(nil)

// Load reads workflows.json if full or if its stamp changed, and the log's frames that
// follow the document in memory (folderLoadLocked).
func (f *folderDoc) Load(have *Doc, full bool) (*Doc, error) {
	err := f.s.folderLoadLocked(full)
	return f.s.cur, err
}

// Commit appends next to the log as one frame, acknowledged after its fdatasync; a change
// the log cannot take (too big, a full disk, an I/O error, a home from before the log) is
// saved whole to workflows.json, or refused saying why (and why the log could not take
// it). have is the Store's document, which the folder's state follows.
func (f *folderDoc) Commit(have, next *Doc) (*Doc, error) {
	s := f.s
	ok, walErr := s.walAppendLocked(next)
	if ok {
		return next, nil
	}
	saved, err := s.saveWholeLocked(next)
	if errors.Is(err, ErrNotDurable) {
		return s.cur, errors.Join(err, walErr) // in place: memory follows the disk
	}
	if err != nil {
		return nil, errors.Join(err, walErr)
	}
	return saved, nil
}

// Checkpoint stops the timed checkpoint and saves the document whole if the log holds
// frames workflows.json lacks.
func (f *folderDoc) Checkpoint(cur *Doc, check func() error) error {
	f.s.stopCheckpointLocked()
	return f.s.checkpointLocked(check)
}

func (f *folderDoc) StopWriting() { f.s.stopCheckpointLocked() }

// Follow watches the home folder, not the file (saves replace the file), and keeps only
// the events that name workflows.json or workflows.wal; an fsnotify overflow or error
// asks for a full read.
func (f *folderDoc) Follow(ctx context.Context, changed func(full bool)) (<-chan struct{}, error) {
	dir := f.s.dir
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return nil, fmt.Errorf("watch %s: %w", dir, err)
	}
	stopped := make(chan struct{})
	go func() { defer close(stopped); watchEvents(ctx, w, changed) }()
	return stopped, nil
}
