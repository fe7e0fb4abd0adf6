package host

import (
	"encoding/json"
	"sync"
	"time"
)

// EventKind names what an event is about.
type EventKind string

// Event kinds, as the control channel spells them.
const (
	// EventRole says the window's role (and who writes, the epoch, a problem) changed.
	EventRole EventKind = "role"
	// EventChanged says the document this window knows changed (generation, epoch).
	EventChanged EventKind = "changed"
	// EventRun says a run's status changed.
	EventRun EventKind = "run"
)

// Event is something a window tells its UI or its control channel. The fields other than
// Kind belong to one kind and are empty otherwise.
type Event struct {
	Kind       EventKind `json:"event"`
	Role       Role      `json:"role,omitempty"`
	WriterPID  int       `json:"writer_pid,omitempty"`
	Epoch      uint64    `json:"epoch,omitempty"`
	Generation uint64    `json:"generation,omitempty"`
	Reaped     []string  `json:"reaped,omitempty"`
	Adopted    []string  `json:"adopted,omitempty"`
	TS         time.Time `json:"-"` // when the window emitted it (written as "ts", unix µs)
	TookMS     float64   `json:"took_ms,omitempty"`
	Problem    string    `json:"problem,omitempty"`
	Run        string    `json:"run,omitempty"`
	Workflow   string    `json:"workflow,omitempty"`
	Status     string    `json:"status,omitempty"`
	Error      string    `json:"error,omitempty"`
}

// MarshalJSON writes the fields of the event's kind, as the control channel documents.
func (e Event) MarshalJSON() ([]byte, error) {
	m := map[string]any{"event": e.Kind}
	if !e.TS.IsZero() {
		m["ts"] = e.TS.UnixMicro()
	}
	switch e.Kind {
	case EventRole:
		m["role"], m["writer_pid"], m["epoch"] = e.Role, e.WriterPID, e.Epoch
		if e.Role == RoleWriter {
			m["reaped"], m["adopted"], m["took_ms"] = nonNil(e.Reaped), nonNil(e.Adopted), e.TookMS
		}
		if e.Problem != "" {
			m["problem"] = e.Problem
		}
	case EventChanged:
		m["generation"], m["epoch"] = e.Generation, e.Epoch
	case EventRun:
		m["run"], m["workflow"], m["status"] = e.Run, e.Workflow, e.Status
		if e.Error != "" {
			m["error"] = e.Error
		}
	}
	return json.Marshal(m)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Sub is a subscription to a window's events. Events are never dropped: each Sub has an
// unbounded queue, so a slow reader costs memory, not correctness.
type Sub struct {
	C <-chan Event

	mu     sync.Mutex // guards q and done
	q      []Event
	done   bool
	wake   chan struct{}
	out    chan Event
	closed chan struct{}
	once   sync.Once // closes closed exactly once, however many Close calls race
}

func newSub() *Sub {
	s := &Sub{wake: make(chan struct{}, 1), out: make(chan Event), closed: make(chan struct{})}
	s.C = s.out
	go s.pump()
	return s
}

func (s *Sub) push(e Event) {
	s.mu.Lock()
	if !s.done {
		s.q = append(s.q, e)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// pump moves queued events to C; it ends, closing C, after Close.
func (s *Sub) pump() {
	defer close(s.out)
	for {
		s.mu.Lock()
		if len(s.q) == 0 {
			done := s.done
			s.mu.Unlock()
			if done {
				return
			}
			select {
			case <-s.wake:
			case <-s.closed:
			}
			continue
		}
		e := s.q[0]
		s.q[0] = Event{}
		if s.q = s.q[1:]; len(s.q) == 0 {
			s.q = nil // a burst's backing array goes with it
		}
		s.mu.Unlock()
		select {
		case s.out <- e:
		case <-s.closed:
			return
		}
	}
}

// finish lets the pump deliver what is queued and then close C.
func (s *Sub) finish() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Close stops the subscription at once; C is closed soon after. It may be called any number
// of times, from any goroutines at once.
func (s *Sub) Close() {
	s.mu.Lock()
	s.done = true
	s.mu.Unlock()
	s.once.Do(func() { close(s.closed) })
}

// hub fans events out to subscribers in one order.
type hub struct {
	mu   sync.Mutex // guards subs and serialises emits
	subs map[*Sub]bool
}

func (h *hub) subscribe() *Sub {
	s := newSub()
	h.mu.Lock()
	if h.subs == nil {
		h.subs = map[*Sub]bool{}
	}
	h.subs[s] = true
	h.mu.Unlock()
	return s
}

func (h *hub) unsubscribe(s *Sub) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
	s.Close()
}

func (h *hub) emit(es ...Event) {
	now := time.Now()
	for i := range es {
		if es[i].TS.IsZero() {
			es[i].TS = now
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		for _, e := range es {
			s.push(e)
		}
	}
}

func (h *hub) finishAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		s.finish()
	}
}
