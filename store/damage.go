package store

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Damage: any state of a home's files in which saves that were acknowledged could be
// missing. It is refused, never repaired by overwriting: the store reports it (ErrDamaged,
// wrapped with ErrUnreadable, so a window stays read-only and says so), writes nothing,
// and Recover is the explicit act that restores what can be. What counts as damage:
//
//   - workflows.json missing while Baton's other files hold data (homeData);
//   - workflows.json disappearing, or replaced by a document of another home, after it
//     was read;
//   - a log whose size, header, cycle or home does not fit workflows.json (see the
//     format comment of wal.go), or that follows a newer workflows.json than the one on
//     disk;
//   - a frame that fails its check while a good frame of its cycle with a later
//     generation lies after it. Only the very last frame may be torn by a crash: a frame
//     is acknowledged after its fdatasync, and the next is written only then.

// recoverHint ends every damage message with what to do.
const recoverHint = "; saves that were acknowledged may be missing. Nothing was changed: close this home's windows and run `baton recover` to restore what can be (it moves the damaged files aside and deletes nothing)"

// damageError is damage: it is ErrUnreadable (so every window stays read-only) and
// ErrDamaged, and says "the home is damaged", what is wrong and what to do.
type damageError struct {
	cause error   // what is wrong
	kinds []error // ErrWAL, ErrForeign: what else it is
}

func (e *damageError) Error() string {
	return ErrDamaged.Error() + ": " + e.cause.Error() + recoverHint
}

func (e *damageError) Unwrap() []error {
	return append([]error{ErrUnreadable, ErrDamaged, e.cause}, e.kinds...)
}

// damage returns an ErrDamaged error that says what is wrong (format may wrap with %w).
func damage(format string, a ...any) error {
	return &damageError{cause: fmt.Errorf(format, a...)}
}

// walDamage is damage of workflows.wal (ErrWAL too).
func walDamage(format string, a ...any) error {
	return &damageError{cause: fmt.Errorf(format, a...), kinds: []error{ErrWAL}}
}

// foreignDamage is damage by files of another home (ErrForeign too).
func foreignDamage(format string, a ...any) error {
	return &damageError{cause: fmt.Errorf("files of another home: "+format, a...), kinds: []error{ErrForeign}}
}

// newHomeID returns a new random home id: 16 bytes, in hex.
func newHomeID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// homeData names a file of Baton's in dir that holds data, or returns "" when there is
// none: then a missing workflows.json means a new home. A log holds data when it has a
// cycle with frames or one that follows a saved document; state.lock, instances/,
// requests/ and replies/ hold none that a save acknowledged.
//
// The audit log counts only once it records a takeover, which a writer appends after its
// first save: a reader of a new home appends entries too (an unsafe entry it found, a
// request it refused) before any save, and those prove nothing was saved.
func homeData(dir string) string {
	if _, err := os.Lstat(filepath.Join(dir, PrevName)); err == nil {
		return PrevName
	}
	for _, name := range []string{AuditName, AuditName + ".1"} {
		if auditSawWriter(filepath.Join(dir, name)) {
			return name
		}
	}
	for _, name := range []string{ArchiveDir, "runs"} {
		if ents, err := os.ReadDir(filepath.Join(dir, name)); err == nil && len(ents) > 0 {
			return name + "/"
		}
	}
	if walHoldsData(filepath.Join(dir, WALName)) {
		return WALName
	}
	return ""
}

// auditSawWriter reports whether the audit log at path may record a writer's saves: it
// holds a takeover record, or it exists and cannot be read as this user's own file.
func auditSawWriter(path string) bool {
	data, err := ReadInHome(path)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true // it exists and cannot be read: it may record anything
	}
	return bytes.Contains(data, []byte(`"kind":"`+KindTakeover+`"`))
}

// walHoldsData reports whether the log at path could hold saves: anything but a log of
// zeros (a creation cut short) or the frameless first cycle of a new home (base 0, made
// before its first workflows.json).
func walHoldsData(path string) bool {
	f, err := openFile(path, os.O_RDONLY, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		return true // it exists and cannot be read: it may hold anything
	}
	defer f.Close()
	b := make([]byte, walSize+1)
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return true
	}
	b = b[:n]
	if allZero(b) {
		return false
	}
	h, ok, err := parseWALHeader(b)
	if err != nil || !ok || n != walSize || h.base != 0 {
		return true
	}
	_, _, _, _, frame := nextFrame(h.key(), b[h.size():])
	return frame
}

// checkMissingLocked says why a workflows.json found missing is damage, if it is: it
// vanished after it was read, or Baton's other files hold data.
func (s *Store) checkMissingLocked() error {
	if s.cur.Generation != 0 {
		return damage("%s disappeared after generation %d was read", s.path, s.cur.Generation)
	}
	if what := homeData(s.dir); what != "" {
		return damage("%s is missing, but %s holds Baton's data: this is not a new home", s.path, filepath.Join(s.dir, what))
	}
	return nil
}

// checkSameHomeLocked refuses a workflows.json of another home than the one read before.
func (s *Store) checkSameHomeLocked(doc *Doc) error {
	if s.cur.Home != "" && doc.Home != s.cur.Home {
		return foreignDamage("%s now belongs to home %s, but this home is %s", s.path, orNoID(doc.Home), s.cur.Home)
	}
	return nil
}

// prevDoc reads workflows.prev.json: its document, or ok false when it is missing.
// An error says it exists but cannot be read (it is then never overwritten).
func prevDoc(dir string) (d *Doc, ok bool, err error) {
	data, err := ReadInHome(filepath.Join(dir, PrevName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err == nil {
		d, err = Decode(data)
	}
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", PrevName, err)
	}
	return d, true, nil
}
