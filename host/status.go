package host

import (
	"baton/store"
)

// Status is what a window says about itself.
type Status struct {
	Role       Role   `json:"role"`
	PID        int    `json:"pid"`
	Instance   string `json:"instance"`
	Epoch      uint64 `json:"epoch"`
	Generation uint64 `json:"generation"`
	WriterPID  int    `json:"writer_pid"`
	// WriterMachine is the machine whose window writes, on an etcd home ("" on a folder
	// home, or while no writer is known).
	WriterMachine string `json:"writer_machine,omitempty"`
	Home          string `json:"home"`
	Problem       string `json:"problem,omitempty"` // why it cannot write: workflows.json unreadable, or a home it cannot write
}

// Status returns the window's role and what it knows of the document. Never blocks on I/O.
func (w *Core) Status() Status {
	doc, _ := w.st.View()
	w.mu.Lock()
	defer w.mu.Unlock()
	s := Status{Role: w.roleLocked(), PID: w.self.PID, Instance: w.self.Instance, Epoch: doc.Epoch,
		Generation: doc.Generation, Home: w.home}
	switch {
	case s.Role == RoleWriter:
		s.WriterPID = w.self.PID
	case doc.HandoverTo != nil: // handed over: the named window is taking over
		s.WriterPID = doc.HandoverTo.PID
	case doc.Writer != nil:
		s.WriterPID = doc.Writer.PID
	}
	if w.problem != nil {
		s.Problem = w.problem.Error()
	} else if w.readOnly != "" {
		s.Problem = w.readOnly
	}
	if w.unsafe != nil { // first: it is why nothing is written
		s.Problem = w.unsafe.Error()
	}
	if w.etcd != nil {
		m, pid := w.etcd.writerMachine()
		switch {
		case s.Role == RoleWriter:
			s.WriterMachine = w.etcd.machine
		case m != "": // the election is fresher than the document's Writer
			s.WriterMachine, s.WriterPID = m, pid
		}
		if why := w.etcd.down(); why != "" { // first of all: nothing can be written anywhere
			s.Problem = why
		}
	}
	return s
}

// Unreadable returns why workflows.json cannot be read, or nil (a window that only reads
// because its home cannot be written reads all the same).
func (w *Core) Unreadable() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.problem
}

func (w *Core) writerPID() int { return w.Status().WriterPID }

// Snapshot returns the newest document this window knows. Do not modify it.
func (w *Core) Snapshot() *store.Doc {
	d, _ := w.st.View()
	return d
}

func (w *Core) holdsLockNow() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.term != nil
}

func gen(d *store.Doc) uint64 {
	if d == nil {
		return 0
	}
	return d.Generation
}

// HoldsLock reports whether this window holds state.lock now: on a damaged home only the
// window that does may recover it (Intents.Recover), and the window's Recover… says so.
func (s *Intents) HoldsLock() bool { return s.w.holdsLockNow() }
