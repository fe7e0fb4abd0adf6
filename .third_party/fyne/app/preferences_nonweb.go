//go:build !wasm

package app

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

func (p *preferences) storageWriter() (writeSyncCloser, error) {
	return p.storageWriterForPath(p.storagePath())
}

func (p *preferences) storageReader() (io.ReadCloser, error) {
	return p.storageReaderForPath(p.storagePath())
}

func (p *preferences) storageWriterForPath(path string) (writeSyncCloser, error) {
	err := os.MkdirAll(filepath.Dir(path), 0o700)
	if err != nil { // this is not an exists error according to docs
		return nil, err
	}
	// Baton's patch: upstream truncated the file in place and wrote it, so another window
	// of the app that loaded it meanwhile (its watcher fires on every change) read it
	// empty or cut short ("Preferences load error: Cause: EOF"). The file is now replaced
	// atomically: written whole to a temp file beside it, synced, renamed over it, and
	// the folder synced. A reader sees the old file or the new one, never part of one.
	return newAtomicFile(path)
}

// atomicFile is a writeSyncCloser that replaces path on Close with what was written,
// if every write and the Sync succeeded; otherwise Close drops the temp file and path
// is left as it was (Baton's patch).
type atomicFile struct {
	path   string
	tmp    *os.File
	err    error // the first failed write
	synced bool
}

func newAtomicFile(path string) (*atomicFile, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &atomicFile{path: path, tmp: tmp}, nil
}

func (f *atomicFile) Write(b []byte) (int, error) {
	n, err := f.tmp.Write(b)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

func (f *atomicFile) Sync() error {
	err := f.tmp.Sync()
	if err != nil && f.err == nil {
		f.err = err
	}
	f.synced = err == nil
	return err
}

func (f *atomicFile) Close() error {
	cerr := f.tmp.Close()
	if f.err == nil && !f.synced {
		f.err = errors.New("preferences not synced before close: not saved")
	}
	if f.err == nil {
		f.err = cerr
	}
	if f.err == nil {
		f.err = os.Rename(f.tmp.Name(), f.path)
	}
	if f.err != nil {
		_ = os.Remove(f.tmp.Name())
		return f.err
	}
	if dir, err := os.Open(filepath.Dir(f.path)); err == nil {
		err = dir.Sync() // the rename itself survives a crash
		_ = dir.Close()
		return err
	}
	return nil
}

func (p *preferences) storageReaderForPath(path string) (io.ReadCloser, error) {
	file, err := os.Open(path) // #nosec
	if err != nil {
		if os.IsNotExist(err) {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return nil, err
			}
			return nil, errEmptyPreferencesStore
		}
		return nil, err
	}
	return file, nil
}

// the following are only used in tests to save preferences to a tmp file

func (p *preferences) saveToFile(path string) error {
	file, err := p.storageWriterForPath(path)
	if err != nil {
		return err
	}
	return p.saveToStorage(file)
}

func (p *preferences) loadFromFile(path string) error {
	file, err := p.storageReaderForPath(path)
	if err != nil {
		return err
	}
	return p.loadFromStorage(file)
}
