package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/gofrs/flock"

	"baton/host/forward"
	"baton/store"
)

// Hand-over on request. A reader that wants to write asks (RequestWrite): it drops
// handover-<its instance>.json in the home folder. The writer sees it (a watch of the home
// folder), finishes what it is saving, records the hand-over to that window in
// workflows.json (HandoverTo) in one more save, stops following its runs without
// cancelling any, retires its identity (so its runs' owner is gone), lets state.lock go
// and stays open as a reader. Other windows that win the lock first read HandoverTo at
// their takeover and give way while the named window lives. The requester's BecomeWriter
// adopts every running run whatever its policy, since nobody died, and clears HandoverTo.

// HandoverTimeout bounds RequestWrite's wait when its context has no deadline.
const HandoverTimeout = 10 * time.Second

const handoverPrefix = "handover-"

// ErrHandedOver ends a writer term that handed over to the window that asked.
var ErrHandedOver = errors.New("handed over to the window that asked to write")

// ErrNoHandover is returned (wrapped, with the reason) by RequestWrite when this window
// did not become the writer in time.
var ErrNoHandover = errors.New("the hand-over did not happen")

// RequestWrite asks the writer to hand over to this window and blocks until this window
// is the writer (it returns the new epoch), ctx ends, or HandoverTimeout passed: then the
// error wraps ErrNoHandover and says why, and the request is withdrawn. A writer returns
// its epoch at once.
func (w *Core) RequestWrite(ctx context.Context) (uint64, error) {
	if t := w.currentTerm(); t != nil {
		return t.epoch, nil
	}
	if w.readOnly != "" {
		return 0, &ReadOnlyError{Role: w.Role(), Problem: w.readOnly}
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, HandoverTimeout)
		defer cancel()
	}
	sub := w.Subscribe()
	defer w.Unsubscribe(sub)
	self := w.Self()
	b, err := json.Marshal(self)
	if err != nil {
		return 0, err
	}
	path := filepath.Join(w.home, handoverPrefix+self.Instance+".json")
	if err := store.WriteFileAtomic(path, b, nil); err != nil {
		return 0, fmt.Errorf("ask the writer to hand over: %w", err)
	}
	defer os.Remove(path) // this window's own request, answered or withdrawn
	for {
		if t := w.currentTerm(); t != nil {
			return t.epoch, nil
		}
		select {
		case _, ok := <-sub.C:
			if !ok {
				return 0, fmt.Errorf("%w: %w", ErrNoHandover, ErrClosed)
			}
		case <-ctx.Done():
			why := "no writer answered"
			if pid := w.writerPID(); pid > 0 {
				why = fmt.Sprintf("the writer (pid %d) did not hand over", pid)
			}
			return 0, fmt.Errorf("%w within %s: %s", ErrNoHandover, HandoverTimeout, why)
		}
	}
}

// watchRequests follows the home folder for hand-over requests and requests/ for
// forwarded ones until the window closes; the writer answers them (forwarded ones in
// serveForwarded). It creates requests/ and replies/ and returns once the watch is set up.
func (w *Core) watchRequests() error {
	reqDir := filepath.Join(w.home, forward.RequestsDir)
	for _, dir := range []string{reqDir, filepath.Join(w.home, forward.RepliesDir)} {
		if err := store.MkdirDurable(dir); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", w.home, err)
	}
	for _, dir := range []string{w.home, reqDir} {
		if err := fw.Add(dir); err != nil {
			fw.Close()
			return fmt.Errorf("watch %s: %w", dir, err)
		}
	}
	kick := make(chan struct{}, 1)
	poke := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	go w.serveForwarded(kick)
	go func() {
		defer fw.Close()
		for {
			select {
			case <-w.ctx.Done():
				return
			case ev, ok := <-fw.Events:
				if !ok {
					return
				}
				name := filepath.Base(ev.Name)
				if ev.Has(fsnotify.Chmod) || ev.Has(fsnotify.Create|fsnotify.Remove) && filepath.Dir(ev.Name) == w.home {
					w.pokeHomeCheck() // modes changed, or an entry came or went: look at the home now
				}
				switch {
				case filepath.Dir(ev.Name) == reqDir:
					if n, ok := forward.ParseName(name); ok && n.Suffix == ".json" && ev.Has(fsnotify.Create) {
						poke()
					}
				case strings.HasPrefix(name, handoverPrefix) && strings.HasSuffix(name, ".json") && ev.Has(fsnotify.Create):
					w.considerHandover(ev.Name)
				}
			case _, ok := <-fw.Errors:
				if !ok {
					return
				}
				poke() // events may be lost (overflow): look at requests/ in full
			}
		}
	}()
	return nil
}

// considerHandover answers the request in path if this window writes and the requester
// is another window that lives.
func (w *Core) considerHandover(path string) {
	t := w.currentTerm()
	if t == nil {
		return
	}
	data, err := store.ReadInHome(path)
	if err != nil {
		return // withdrawn already
	}
	var to store.Owner
	if json.Unmarshal(data, &to) != nil || to.Instance == "" || to.Instance == t.self.Instance {
		return
	}
	if alive, _ := ownerAlive(w.home, t.self, to); !alive {
		return
	}
	if err := t.Resign(t.ctx, to); err != nil {
		w.opts.Logf("hand over to pid %d: %v", to.PID, err)
	}
}

// giveWay waits, in its own goroutine, until window to has taken over (workflows.json no
// longer names it in HandoverTo) or is gone, then waits for state.lock again.
func (w *Core) giveWay(to store.Owner) {
	gone := instanceGone(w.home, to)
	go func() {
		sub := w.Subscribe()
		defer w.Unsubscribe(sub)
		for {
			if d := w.Snapshot(); d.HandoverTo == nil || d.HandoverTo.Instance != to.Instance {
				break
			}
			select {
			case <-sub.C:
				continue
			case <-gone:
			case <-w.ctx.Done():
				return
			}
			break
		}
		w.waitForLock()
	}()
}

// instanceGone returns a channel closed once window o is gone: a blocking wait on its
// instance lock (or no instance file). The goroutine lives until then.
func instanceGone(home string, o store.Owner) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		fl := flock.New(instancePath(home, o.Instance), flock.SetFlag(os.O_RDONLY|syscall.O_NOFOLLOW))
		_ = fl.Lock() // an error (no such file) means gone too
		_ = fl.Close()
		close(ch)
	}()
	return ch
}
