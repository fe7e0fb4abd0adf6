package etcdhome

import (
	"context"
	"sync"
	"time"
)

// LogTailSize is how much of a run's log is kept under the prefix.
const LogTailSize = 64 << 10

// LogTailEvery is the least time between two puts of a run's log tail.
const LogTailEvery = time.Second

// LogTail keeps the last LogTailSize bytes of a run's log in <prefix>/runs/<id>/logtail,
// put at most once per LogTailEvery, so a window on another machine can show it. It is
// an io.Writer beside the log file (the whole log stays on the machine that ran the
// run). Write never blocks on etcd: a goroutine puts the tail. Safe for concurrent use.
type LogTail struct {
	s     *Supervisor
	every time.Duration

	mu     sync.Mutex // guards buf, dirty, err
	buf    []byte     // the last LogTailSize bytes written
	dirty  bool
	err    error // the last put's error, kept until the next put succeeds
	kick   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	closed sync.Once
}

// LogTail starts the run's log tail writer. The caller must Close it (before the
// supervisor's Close) to put the final tail.
func (s *Supervisor) LogTail() *LogTail {
	t := &LogTail{s: s, every: LogTailEvery, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go t.loop()
	return t
}

// Write keeps the last LogTailSize bytes of what was written so far. It never fails.
func (t *LogTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	if len(p) >= LogTailSize {
		t.buf = append(t.buf[:0], p[len(p)-LogTailSize:]...)
	} else {
		if over := len(t.buf) + len(p) - LogTailSize; over > 0 {
			t.buf = append(t.buf[:0], t.buf[over:]...)
		}
		t.buf = append(t.buf, p...)
	}
	t.dirty = true
	t.mu.Unlock()
	select {
	case t.kick <- struct{}{}:
	default:
	}
	return len(p), nil
}

// loop puts the tail when it changed, at most once per t.every.
func (t *LogTail) loop() {
	defer close(t.done)
	var last time.Time
	for {
		select {
		case <-t.kick:
		case <-t.stop:
			t.put()
			return
		}
		if wait := time.Until(last.Add(t.every)); wait > 0 {
			select {
			case <-time.After(wait):
			case <-t.stop:
				t.put()
				return
			}
		}
		last = time.Now()
		t.put()
	}
}

// put writes the tail if it changed since the last put.
func (t *LogTail) put() {
	t.mu.Lock()
	if !t.dirty {
		t.mu.Unlock()
		return
	}
	b := append([]byte(nil), t.buf...)
	t.dirty = false
	t.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), t.s.ttl)
	err := t.s.guardedPut(ctx, t.s.h.logTailKey(t.s.run), b)
	cancel()
	t.mu.Lock()
	t.err = err
	if err != nil {
		t.dirty = true // try again with the next write or at Close
	}
	t.mu.Unlock()
}

// Close puts the final tail and stops. It returns the last put's error, if it failed.
// Idempotent.
func (t *LogTail) Close() error {
	t.closed.Do(func() { close(t.stop) })
	<-t.done
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}
