package forward

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"baton/store"
)

// Reply is the content of replies/<id>.json. Outcome is the writer's reply without id:
// {"ok": true, fields...} (OK) or {"ok": false, "code": ..., "error": ...} (Refused).
type Reply struct {
	ID        string          `json:"id"`
	Requester store.Owner     `json:"requester"`
	WriterPID int             `json:"writer_pid"`
	Outcome   json.RawMessage `json:"outcome"`
}

// WriteReply writes rep as replies/<rep.ID>.json. Atomic, not durable: the answer's
// durable copy is the request's entry in Doc.Applied.
func WriteReply(home string, rep *Reply) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	return store.WriteFileAtomicVolatile(ReplyPath(home, rep.ID), b)
}

// ReadReply reads replies/<id>.json strictly; an error wrapping os.ErrNotExist when there
// is none yet.
func ReadReply(home, id string, decode Decoder) (*Reply, error) {
	data, err := ReadCapped(ReplyPath(home, id))
	if err != nil {
		return nil, err
	}
	var rep Reply
	if err := decodeObject(decode, data, &rep); err != nil || rep.ID != id {
		return nil, fmt.Errorf("the writer's reply %s is unreadable: %v", ReplyPath(home, id), err)
	}
	return &rep, nil
}

// Refusal is a write the writer refused: the control channel's code and message.
type Refusal struct {
	Code, Msg string
}

// Result decodes the writer's outcome: the reply (numbers as json.Number, as the writer
// wrote them) without "ok" and with "forwarded_to" (the writer's pid), or the refusal.
func (r *Reply) Result() (reply map[string]any, refused *Refusal, err error) {
	dec := json.NewDecoder(bytes.NewReader(r.Outcome))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, nil, fmt.Errorf("the writer's reply to request %s has no outcome: %v", r.ID, err)
	}
	if ok, _ := m["ok"].(bool); !ok {
		code, _ := m["code"].(string)
		msg, _ := m["error"].(string)
		return nil, &Refusal{Code: code, Msg: msg}, nil
	}
	delete(m, "ok")
	m["forwarded_to"] = r.WriterPID
	return m, nil, nil
}

// AwaitReply waits for replies/<id>.json for Timeout at most, less if ctx ends sooner,
// reading it again whenever changed receives (see Watcher.Await). It returns nil, nil
// when the time is up.
func AwaitReply(ctx context.Context, changed <-chan struct{}, home, id string, decode Decoder) (*Reply, error) {
	timer := time.NewTimer(Timeout)
	defer timer.Stop()
	for {
		rep, err := ReadReply(home, id, decode)
		if err == nil || !errors.Is(err, os.ErrNotExist) {
			return rep, err
		}
		select { // its reply appeared, or the watch lost events: look again
		case <-changed:
		case <-timer.C:
			return nil, nil
		case <-ctx.Done():
			return nil, nil
		}
	}
}

// Watcher is a window's one watch of replies/, shared by its waiting requests: each
// registers the id it waits for and is woken when a file of that name appears (all are
// woken when the watch may have lost events). One per window, not one per request:
// closing an inotify instance waits for a kernel grace period (10–20 ms measured here),
// which a requester would pay on every request, and instances are few per user.
type Watcher struct {
	mu      sync.Mutex               // leaf
	waiting map[string]chan struct{} // by request id; buffered 1
}

// Watch starts the watch of replies/ in home; it ends with ctx.
func Watch(ctx context.Context, home string) (*Watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := fw.Add(filepath.Join(home, RepliesDir)); err != nil {
		fw.Close()
		return nil, err
	}
	rw := &Watcher{waiting: map[string]chan struct{}{}}
	go func() {
		defer fw.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-fw.Events:
				if id, _, _ := strings.Cut(filepath.Base(ev.Name), "."); id != "" { // not a temp file
					rw.wake(id)
				}
			case <-fw.Errors: // events may be lost (overflow): everyone looks again
				rw.wake("")
			}
		}
	}()
	return rw, nil
}

// Await registers a wait for the reply to request id: changed receives when a file of
// that name may have appeared. Call it before the request exists; call stop when done.
func (r *Watcher) Await(id string) (changed <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	r.mu.Lock()
	r.waiting[id] = ch
	r.mu.Unlock()
	return ch, func() {
		r.mu.Lock()
		delete(r.waiting, id)
		r.mu.Unlock()
	}
}

// wake tells the waiter for request id (every waiter when id is "") to look again.
func (r *Watcher) wake(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, ch := range r.waiting {
		if id == "" || k == id {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}
