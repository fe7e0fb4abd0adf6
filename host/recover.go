package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"baton/store"
)

// Recovery of a damaged home (store.Recover) is an explicit act, taken under state.lock
// so that no window writes meanwhile: by `baton recover` when no window holds the lock
// (RecoverHome), or by the window that holds it (Intents.Recover, the problem bar's
// button): a damaged home's lock holder stays read-only and says why, and only it may
// recover while it is open.

// ErrRecoverLocked is returned by RecoverHome when a window holds state.lock.
var ErrRecoverLocked = errors.New("a window holds state.lock")

// RecoverHome recovers the damaged home folder home (see store.Recover), holding
// state.lock while it does; it fails with ErrRecoverLocked, changing nothing, when a
// window holds it. It never creates a home. It blocks for the moves and saves.
func RecoverHome(home string, now time.Time) (*store.Recovery, error) {
	abs, err := existingHome(home, true)
	if err != nil {
		return nil, err
	}
	lock, err := TryFolderLock(abs, true)
	var busy *FolderBusyError
	if errors.As(err, &busy) {
		who := ""
		if busy.PID != 0 {
			who = fmt.Sprintf("; the home names window pid %d as its writer", busy.PID)
		}
		return nil, fmt.Errorf("%w (%s%s): recover from that window (its problem bar), or close every window on %s and run `baton recover` again",
			ErrRecoverLocked, busy.Path, who, abs)
	}
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	audit := store.NewAudit(abs)
	rec, err := store.Recover(abs, nil, now, audit)
	if errors.Is(err, store.ErrAuditHeld) {
		// This process ends soon, and its held entry with it: write it while it may.
		if cerr := audit.CloseWithin(5 * time.Second); cerr == nil {
			err = nil
		}
	}
	return rec, err
}

// PlanHomeRecovery says what RecoverHome would restore, changing nothing.
func PlanHomeRecovery(home string) (*store.Recovery, error) {
	abs, err := existingHome(home, false)
	if err != nil {
		return nil, err
	}
	return store.PlanRecovery(abs, nil)
}

// CannotWrite returns, and closes the window, when the window holds state.lock but cannot
// write (its home is damaged or unreadable): no other window can write then, so a command
// says why at once instead of forwarding to a writer that cannot exist.
func (w *Core) CannotWrite() error {
	w.mu.Lock()
	p, held := w.problem, w.term != nil
	w.mu.Unlock()
	if held && errors.Is(p, store.ErrUnreadable) {
		w.Close()
		return p
	}
	return nil
}

// existingHome checks home as PrepareHome does, without creating it; with change false
// it changes nothing either (a dry run: the folder's access is checked, not withdrawn).
func existingHome(home string, change bool) (string, error) {
	abs, err := filepath.Abs(home)
	if err != nil {
		return "", fmt.Errorf("home %q: %w", home, err)
	}
	if _, err := os.Lstat(abs); err != nil {
		return "", fmt.Errorf("no home at %s: %w", abs, err)
	}
	if !change {
		return checkHomeUnchanged(abs)
	}
	return PrepareHome(abs)
}

// PlanRecovery says what Recover would restore on the window's home, changing nothing:
// the document it would start from, the frames replayed, what is lost. The document the
// window holds in memory counts: it may be newer than any file left.
func (s *Intents) PlanRecovery() (*store.Recovery, error) {
	mem, _ := s.w.st.View()
	return store.PlanRecovery(s.w.home, mem)
}

// Recover recovers the window's damaged home (see store.Recover) and, the home readable
// again, makes the window the writer. Only the window that holds state.lock and does not
// write may: the would-be writer of a damaged home, which stays read-only until then.
// Others get a *ReadOnlyError naming the window that holds it. It blocks for the
// recovery and the takeover.
func (s *Intents) Recover() (*store.Recovery, error) {
	w := s.w
	w.mu.Lock()
	role, held := w.roleLocked(), w.term != nil
	w.mu.Unlock()
	switch {
	case role == RoleClosed:
		return nil, ErrClosed
	case role == RoleWriter:
		return nil, store.ErrNotDamaged
	case !held:
		return nil, &ReadOnlyError{Role: role, WriterPID: w.writerPID(),
			Problem: "only the window that holds state.lock may recover the home"}
	}
	mem, _ := w.st.View()
	rec, err := store.Recover(w.home, mem, w.opts.Now(), w.audit)
	if err != nil && !errors.Is(err, store.ErrAuditHeld) {
		return rec, err
	}
	// Restored (its record perhaps held by the window's audit log, which writes it once
	// the log's lock is free, as any entry of the window's).
	doc, err := w.st.Reload()
	w.onFileChange(doc, err) // readable again: the held lock's takeover is retried
	return rec, nil
}
