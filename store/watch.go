package store

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// Watch follows changes of the document made by other processes until ctx ends, through
// its home's Follow (the folder: a watch of the home folder, not the file, since saves
// replace the file, keeping only events that name workflows.json or workflows.wal), and
// calls onChange after each reload that changed the document or failed. The first event of a burst is handled at once; events that arrive while a
// reload runs collapse into one more reload. On an fsnotify overflow or error it reloads
// in full. onChange runs on the watch goroutine, one call at a time.
//
// Watch returns once the watch is set up; it returns an error if the folder cannot be
// watched. WaitWatches waits for the goroutines of every watch whose ctx ended: a caller
// that closes the home calls it so no onChange (which may write the previous document)
// runs after it is gone.
func (s *Store) Watch(ctx context.Context, onChange func(doc *Doc, err error)) error {
	kick := make(chan bool, 1) // true asks for a full reload
	stopped, err := s.home.Follow(ctx, func(full bool) { signal(kick, full) })
	if err != nil {
		return err
	}
	s.watchWG.Add(2)
	go func() { defer s.watchWG.Done(); <-stopped }()
	go func() { defer s.watchWG.Done(); s.reloadLoop(ctx, kick, onChange) }()
	return nil
}

// WaitWatches returns once the goroutines of every watch whose context has ended are gone,
// with any onChange they were running. Calling it while a watch's context is still live
// blocks until that context ends.
func (s *Store) WaitWatches() { s.watchWG.Wait() }

// watchEvents owns the fsnotify descriptor of a folder's Follow; changed never blocks,
// and ctx ending closes the descriptor.
func watchEvents(ctx context.Context, w *fsnotify.Watcher, changed func(full bool)) {
	defer w.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if n := filepath.Base(ev.Name); n != FileName && n != WALName {
				continue
			}
			changed(false)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			// Overflow or any other error: events may be lost, so reload in full.
			_ = errors.Is(err, fsnotify.ErrEventOverflow)
			changed(true)
		}
	}
}

// signal posts to a one-slot channel; a pending signal absorbs the new one, but a full
// reload request is never downgraded.
func signal(kick chan bool, full bool) {
	select {
	case kick <- full:
	default:
		if full {
			select {
			case <-kick:
			default:
			}
			select {
			case kick <- true:
			default:
			}
		}
	}
}

func (s *Store) reloadLoop(ctx context.Context, kick chan bool, onChange func(*Doc, error)) {
	for {
		select {
		case <-ctx.Done():
			return
		case full := <-kick:
			if ctx.Err() != nil { // both were ready: the watch is over
				return
			}
			if holdReloads() { // tests only (hooks_on.go)
				continue
			}
			var doc *Doc
			var changed bool
			var err error
			if full {
				doc, err = s.Reload()
				changed = true
			} else {
				doc, changed, err = s.Refresh()
			}
			if changed || err != nil {
				onChange(doc, err)
			}
		}
	}
}
