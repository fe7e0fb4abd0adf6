package host

// Role is what a window may do. A window starts as RoleReader; BecomeWriter is the only
// road to RoleWriter, through RolePromoting.
type Role int

// Roles.
const (
	RoleReader Role = iota
	RolePromoting
	RoleWriter
	RoleClosed
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
	}
	return "unknown"
}

// allowed lists the legal transitions of the role state machine.
var allowed = map[Role][]Role{
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
