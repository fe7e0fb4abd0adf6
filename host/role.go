package host

import "fmt"

// Role is what a window may do. A window opens as RoleOpening, takes RoleReader or goes
// straight to RolePromoting when Start finds state.lock free; BecomeWriter is the only
// road to RoleWriter, through RolePromoting. Every change goes through Core.move, which
// checks the transition table. A window keeps no role field: its role is read from its
// life (opening, reader, closed) and its term (see Term and Core.roleLocked).
type Role int

// Roles. The order of the first four is part of no contract; use the names.
const (
	RoleReader Role = iota
	RolePromoting
	RoleWriter
	RoleClosed
	RoleOpening // opened, not started: no role event has been sent yet
)

// String returns the role's name as the control channel spells it.
func (r Role) String() string {
	switch r {
	case RoleReader:
		return "reader"
	case RolePromoting:
		return "promoting"
	case RoleWriter:
		return "writer"
	case RoleClosed:
		return "closed"
	case RoleOpening:
		return "opening"
	}
	return "unknown"
}

// MarshalText spells the role as the control channel does ("writer", ...).
func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a role as MarshalText spells it.
func (r *Role) UnmarshalText(b []byte) error {
	for _, x := range []Role{RoleReader, RolePromoting, RoleWriter, RoleClosed, RoleOpening} {
		if x.String() == string(b) {
			*r = x
			return nil
		}
	}
	return fmt.Errorf("unknown role %q", b)
}

// allowed lists the legal transitions of the role state machine.
var allowed = map[Role][]Role{
	RoleOpening:   {RoleReader, RolePromoting, RoleClosed},
	RoleReader:    {RolePromoting, RoleClosed},
	RolePromoting: {RoleWriter, RoleReader, RoleClosed},
	RoleWriter:    {RoleReader, RoleClosed},
	RoleClosed:    {},
}

// canMove reports whether from → to is a legal transition.
func canMove(from, to Role) bool {
	for _, r := range allowed[from] {
		if r == to {
			return true
		}
	}
	return false
}

// roleLocked is the window's role, read from its life and its term (see Term). Call it
// under w.mu.
func (w *Core) roleLocked() Role {
	if w.life != RoleClosed && w.term != nil {
		switch w.term.phase {
		case phasePromoting:
			return RolePromoting
		case phaseWriting:
			return RoleWriter
		}
	}
	return w.life
}

// move is the one road for a role change. Under w.mu it checks the transition table and,
// if guard is not nil, guard; if both allow it, it makes the role to: promoting and writer
// are phases of the window's term (there must be one), reader and closed are the window's
// life. Then it runs apply (which may set what changes with the role: the problem, the
// term forgotten or kept). It returns whether the move happened and the function that
// sends its role event: the caller calls emit once the subscribers may learn of it (a
// closed window, for example, says so only once its lock is gone). emit does nothing when
// the move was refused.
func (w *Core) move(to Role, guard func() bool, apply func()) (ok bool, emit func()) {
	w.mu.Lock()
	needTerm := to == RolePromoting || to == RoleWriter
	if !canMove(w.roleLocked(), to) || (needTerm && w.term == nil) || (guard != nil && !guard()) {
		w.mu.Unlock()
		return false, func() {}
	}
	switch to {
	case RolePromoting:
		w.term.phase = phasePromoting
	case RoleWriter:
		w.term.phase, w.life = phaseWriting, RoleReader // the life it goes back to
	default:
		w.life = to
	}
	if apply != nil {
		apply()
	}
	w.mu.Unlock()
	return true, func() { w.emitRoleEvent(to) }
}
