package workflow

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"baton/store"
)

// The run log as the supervisor writes it. Steps do not write the log themselves: their
// output comes through a pipe the supervisor copies into the log, so that a write the disk
// refuses (a full disk) is seen by Baton, not by the step (which would die of it, or go on
// without a word). The first refused write cuts the log: what was written stays, the rest
// of the run's output is read and dropped (the step never blocks on it), and the run
// records how much was kept and why (store.LogCut).

// runLog is the run's log. Safe for concurrent use.
type runLog struct {
	mu   sync.Mutex
	f    *os.File
	kept int64         // bytes the log holds
	cut  *store.LogCut // set at the first write the log refused
}

// openRunLog opens (or creates) the run log at path for appending (openRunLogFile).
func openRunLog(path string) (*runLog, error) {
	f, err := openRunLogFile(path)
	if err != nil {
		return nil, err
	}
	l := &runLog{f: f}
	if fi, err := f.Stat(); err == nil {
		l.kept = fi.Size()
	}
	return l, nil
}

// Write appends p to the log, or drops it once the log is cut. It always reports p
// written: the output of a step is never refused back to it.
func (l *runLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut != nil {
		return len(p), nil
	}
	n, err := l.f.Write(p)
	l.kept += int64(n)
	if err != nil {
		l.cut = &store.LogCut{Kept: l.kept, Reason: reasonOf(err)}
	}
	return len(p), nil
}

// Cut returns why the log was cut, or nil if it holds everything written to it.
func (l *runLog) Cut() *store.LogCut {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cut == nil {
		return nil
	}
	c := *l.cut
	return &c
}

func (l *runLog) Close() error { return l.f.Close() }

// reasonOf is the bare reason of a failed write: "no space left on device", not the
// path and operation around it.
func reasonOf(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// outputPipe is a step's standard output and error: the write end goes to the step, the
// read end is copied into w until every writer has closed it.
type outputPipe struct {
	r, w    *os.File
	done    chan struct{}
	started bool
}

// newOutputPipe returns a pipe whose read end is copied into w in the background once
// start is called.
func newOutputPipe() (*outputPipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &outputPipe{r: r, w: w, done: make(chan struct{})}, nil
}

// start copies what the step writes into w. Call it once the step started: this
// process's write end is closed, so the copy ends when the step's processes close theirs.
func (p *outputPipe) start(w io.Writer) {
	_ = p.w.Close()
	p.started = true
	go func() {
		defer close(p.done)
		_, _ = io.Copy(w, p.r)
	}()
}

// finish waits, up to grace, for the copy to reach the end of the output (a process that
// left the step's group may hold the pipe open), then stops it and closes the pipe. Call
// it once the step's group is gone. A pipe never started is closed at once.
func (p *outputPipe) finish(grace time.Duration) {
	_ = p.w.Close()
	if !p.started {
		_ = p.r.Close()
		return
	}
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.r.SetReadDeadline(time.Now())
		<-p.done
	}
	_ = p.r.Close()
}

// openRunLogFile opens run log path for appending, never through a symbolic link: a log that
// is new is created exclusively (O_CREAT|O_EXCL, which also refuses any link at the
// name), and one that exists (a later step, a supervisor taking over from its launcher, a
// re-queued run) is opened only if it is this user's own regular file that others cannot
// write (store.OpenInHome). Anything else at the name is refused with an error wrapping
// store.ErrNotOurs that names it: the run's output never lands outside the home.
func openRunLogFile(path string) (*os.File, error) { return openRunLogAs(path, os.O_WRONLY) }

// openRunLogAs is openRunLogFile opening the log with access (os.O_WRONLY or os.O_RDWR).
func openRunLogAs(path string, access int) (*os.File, error) {
	f, err := store.OpenInHome(path, access|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return f, err
	}
	return store.OpenInHome(path, access|os.O_APPEND, 0)
}

// openLockFile opens run lock path for flock, never through a symbolic link.
func openLockFile(path string) (*os.File, error) {
	return store.OpenInHome(path, os.O_RDONLY, 0)
}
