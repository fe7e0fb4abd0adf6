package store

// KindUnsafe: an entry of the home that another user could read, write or own, or a
// symbolic link or odd file where Baton expects its own file, and what Baton did about it
// (Unsafe).
const KindUnsafe = "unsafe"

// Unsafe is the audit record of an unsafe entry of the home: its path, what is wrong with
// it, and what Baton did (took read access away; refused it and stays read-only; left a
// request file in place and never applied it).
type Unsafe struct {
	Path    string `json:"path"`
	Problem string `json:"problem"`
	Action  string `json:"action"`
}

// AuditKind implements Record.
func (Unsafe) AuditKind() string { return KindUnsafe }
