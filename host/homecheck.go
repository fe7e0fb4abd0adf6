package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"baton/host/forward"
	"baton/store"
)

// Other users and the home (host/README.md, "Other users and the file system"): the home and
// every entry of it that Baton reads or writes belong to the user; nothing is writable by
// group or others, and nothing is readable by them.
//
//   - Read access is Baton's to withdraw: withdrawing it changes no content and grants
//     nothing, so Baton does it at once, wherever it finds it (the home folder and its
//     entries), and audits it. From then on another user cannot open anything the home
//     holds, whatever the modes inside it.
//   - Anything else (an entry another user owns or may write, a symbolic link, a FIFO or
//     other odd file where Baton expects a file or folder) may already have been used: a
//     request file put there, the document changed. Baton does not repair that: the window
//     is read-only (a writer steps down) and applies no request until the home is safe,
//     and it says which entry is wrong and the one command that makes the whole home
//     safe (safeCommand). It looks at open, before every takeover, before every pass over
//     forwarded requests, when the home's modes change, and every homeCheckEvery.
//   - Each file Baton opens under the home is checked again on its descriptor
//     (store.OpenInHome): never through a symlink, only this user's own regular file that
//     others cannot write. A request file that fails that is ignored and audited, never
//     applied.

// homeEntries are the names in the home folder Baton opens or writes: each, if present,
// must be a plain file (or folder) of this user's that others can neither write nor read.
var homeEntries = []struct {
	name string
	dir  bool
}{
	{store.FileName, false}, {store.PrevName, false}, {store.WALName, false}, {LockName, false},
	{store.AuditName, false}, {store.AuditName + ".1", false},
	{InstancesDir, true}, {"runs", true}, {store.ArchiveDir, true}, {forward.RequestsDir, true}, {forward.RepliesDir, true},
}

// entryFault is what makes an entry of the home unsafe.
type entryFault struct {
	path    string
	why     string
	odd     bool // a symlink, or not a regular file or folder as expected
	foreign bool // another user owns it
}

func ownerOf(fi os.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return os.Geteuid()
}

// withdrawAccess takes read and search access of group and others away from path (whose
// Lstat is fi), if it is this user's own file or folder that grants any, and returns what
// it did ("" if nothing). Write access is left: that is the person's to look at.
func withdrawAccess(path string, fi os.FileInfo) string {
	mode := fi.Mode()
	if mode&os.ModeSymlink != 0 || (!mode.IsRegular() && !mode.IsDir()) || ownerOf(fi) != os.Geteuid() {
		return ""
	}
	perm := mode.Perm()
	if perm&0o055 == 0 {
		return ""
	}
	next := perm &^ 0o055
	if err := os.Chmod(path, next|mode&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky)); err != nil {
		return ""
	}
	return fmt.Sprintf("took read access away from group and others (mode %04o, now %04o)", perm, next)
}

// inspectHome looks at the home folder and each entry Baton reads or writes. It
// withdraws read access of group and others wherever it finds it (withdrawn says where
// and how) and returns what it cannot make safe itself.
func inspectHome(home string) (faults []entryFault, withdrawn map[string]string) {
	withdrawn = map[string]string{}
	check := func(p string, dir bool) {
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			return
		}
		if err != nil {
			faults = append(faults, entryFault{path: p, why: err.Error()})
			return
		}
		if did := withdrawAccess(p, fi); did != "" {
			withdrawn[p] = did
			if fi, err = os.Lstat(p); err != nil {
				faults = append(faults, entryFault{path: p, why: err.Error()})
				return
			}
		}
		if f, bad := entryFaultOf(p, fi, dir); bad {
			faults = append(faults, f)
		}
	}
	check(home, true)
	for _, e := range homeEntries {
		check(filepath.Join(home, e.name), e.dir)
	}
	if len(withdrawn) > 0 {
		// The home was opened up: what its folders hold may be open too, to a process
		// that went in while it could (its working folder there, say).
		for _, e := range homeEntries {
			if e.dir {
				withdrawInside(filepath.Join(home, e.name), withdrawn)
			}
		}
	}
	if p := filepath.Join(home, makingSafe); exists(p) {
		faults = append(faults, entryFault{path: p, why: "is there: the command that makes the home safe is under way, or stopped before its end"})
	}
	return faults, withdrawn
}

// withdrawInside takes read access of group and others away from everything folder dir
// holds, at any depth, never following a symbolic link, and adds a line to withdrawn for
// dir saying how many entries it changed. Only called when the home was found opened up:
// runs/ may hold a great many files.
func withdrawInside(dir string, withdrawn map[string]string) {
	n := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil
		}
		if fi, err := d.Info(); err == nil && withdrawAccess(p, fi) != "" {
			n++
		}
		return nil
	})
	if n > 0 {
		withdrawn[dir+string(filepath.Separator)] = fmt.Sprintf("took read access away from group and others on %d entries inside it", n)
	}
}

// entryFaultOf says what is unsafe about entry path (Lstat fi), expected a folder when
// dir, if anything.
func entryFaultOf(path string, fi os.FileInfo, dir bool) (entryFault, bool) {
	mode := fi.Mode()
	switch {
	case mode&os.ModeSymlink != 0:
		return entryFault{path: path, why: "is a symbolic link, which Baton never follows inside the home", odd: true}, true
	case dir && !mode.IsDir():
		return entryFault{path: path, why: fmt.Sprintf("is not a folder (mode %s)", mode), odd: true}, true
	case !dir && !mode.IsRegular():
		return entryFault{path: path, why: fmt.Sprintf("is not a regular file (mode %s)", mode), odd: true}, true
	case ownerOf(fi) != os.Geteuid():
		return entryFault{path: path, why: fmt.Sprintf("belongs to uid %d, not to you (uid %d)", ownerOf(fi), os.Geteuid()), foreign: true}, true
	case mode.Perm()&0o022 != 0:
		return entryFault{path: path, why: fmt.Sprintf("is writable by group or others (mode %04o)", mode.Perm())}, true
	case mode.Perm()&0o044 != 0:
		return entryFault{path: path, why: fmt.Sprintf("is readable by group or others (mode %04o) and Baton could not take that away", mode.Perm())}, true
	}
	return entryFault{}, false
}

// homeFaultError is the window's problem for an unsafe home: the first entry wrong (and
// how many more), that another user may have used it, and the one command that makes the
// whole home safe.
func homeFaultError(home string, faults []entryFault) error {
	f := faults[0]
	more := ""
	if n := len(faults) - 1; n > 0 {
		more = fmt.Sprintf(" (and %d more entr%s)", n, map[bool]string{true: "y", false: "ies"}[n == 1])
	}
	return fmt.Errorf("%w: %s %s%s; another user may have changed or put files there, so this window stays read-only "+
		"and applies no request: look at what the home holds, then make it safe with: %s",
		ErrUnsafeHome, f.path, f.why, more, safeCommand(home, faults))
}

// makingSafe is the folder safeCommand makes first and removes last: while it is there
// the home is unsafe, so no window writes (and no file comes and goes under the command)
// until the command has finished.
const makingSafe = ".baton-making-safe"

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// safeCommand is one shell command that makes the whole home safe, whatever the faults:
// it removes what Baton never follows or opens (symbolic links and odd files anywhere in
// the home) and the request and reply files another user put there (they are never
// applied, and once owned by the user they would be), gives everything to the user and
// takes every access of group and others away. Its first step makes the makingSafe folder
// and its last removes it, so that no window takes the home while the command runs. It is
// run and checked by the tests. It needs root (sudo) only when another user owns
// something.
func safeCommand(home string, faults []entryFault) string {
	uid := strconv.Itoa(os.Geteuid())
	name := uid
	if u, err := user.LookupId(uid); err == nil && u.Username != "" {
		name = u.Username
	}
	sudo := ""
	for _, f := range faults {
		if f.foreign && os.Geteuid() != 0 {
			sudo = "sudo "
		}
	}
	q := shellQuote(home)
	pat := func(sub string) string { return shellQuote(globEscape(filepath.Join(home, sub)) + "/*") }
	mark := shellQuote(filepath.Join(home, makingSafe))
	return fmt.Sprintf("rm -rf %s && mkdir %s && "+
		"find %s -mindepth 1 \\( ! -type f ! -type d -o \\( -path %s -o -path %s \\) ! -user %s \\) -delete && "+
		"%schown -R %s %s && chmod -R go-rwx %s && rmdir %s",
		mark, mark, q, pat(forward.RequestsDir), pat(forward.RepliesDir), uid, sudo, name, q, q, mark)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// globEscape escapes the characters find's -path treats as a pattern.
func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// checkHome looks at the home (inspectHome), audits what it withdrew and each new fault
// once, and returns the home's problem (nil when safe). It records the answer for
// Status and emits a role event when it changes. Safe for concurrent use.
func (w *Core) checkHome() error {
	faults, withdrawn := inspectHome(w.home)
	for p, did := range withdrawn {
		w.auditOnce(p+"\x00"+did, store.Unsafe{Path: p, Problem: "readable by group or others", Action: did})
	}
	var err error
	if len(faults) > 0 {
		for _, f := range faults {
			w.auditOnce(f.path+"\x00"+f.why, store.Unsafe{Path: f.path, Problem: f.why, Action: "the window is read-only and applies no request until the home is safe"})
		}
		err = homeFaultError(w.home, faults)
	}
	w.mu.Lock()
	was := w.unsafe
	w.unsafe = err
	if err == nil && errors.Is(w.problem, ErrUnsafeHome) { // a writer that stepped down for it
		w.problem = nil
	}
	opening := w.roleLocked() == RoleOpening
	w.mu.Unlock()
	if !opening && ((was == nil) != (err == nil) || (was != nil && was.Error() != err.Error())) {
		if err != nil {
			w.opts.Logf("%v", err)
		}
		w.emitRole()
	}
	return err
}

// unsafeHome is the home's problem the last look found, or nil.
func (w *Core) unsafeHome() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unsafe
}

// auditOnce appends rec to the audit log unless this window already did for key, and
// reports whether it was the first time.
func (w *Core) auditOnce(key string, rec store.Record) bool {
	w.auditedMu.Lock()
	if w.audited == nil {
		w.audited = map[string]bool{}
	}
	seen := w.audited[key]
	w.audited[key] = true
	w.auditedMu.Unlock()
	if !seen && w.readOnly == "" { // a home on a read-only file system takes no entry
		if err := w.audit.Append(rec); err != nil {
			w.opts.Logf("audit: %v", err)
		}
	}
	return !seen
}

// homeCheckEvery is how often a window looks at its home's modes (besides at open, at
// each takeover, before each pass over forwarded requests and when the home watch sees a
// mode change).
var homeCheckEvery = 2 * time.Second

// guardHome looks at the home every homeCheckEvery and when poked, until the window
// closes: a writer whose home became unsafe stops writing (endTerm: it applies nothing
// more, and no window takes over while the home stays unsafe); a window whose home
// became safe again waits for the lock as usual.
func (w *Core) guardHome(poke <-chan struct{}) {
	tick := time.NewTicker(homeCheckEvery)
	defer tick.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-tick.C:
		case <-poke:
		}
		was := w.unsafeHome()
		err := w.checkHome()
		switch {
		case err != nil:
			if t := w.currentTerm(); t != nil {
				w.endTerm(t, err)
			}
		case was != nil && !w.opts.NoWait:
			w.mu.Lock()
			idle := w.roleLocked() == RoleReader && w.term == nil
			w.mu.Unlock()
			if idle {
				w.waitForLock()
			}
		}
	}
}

// trustedRequest reports whether the forwarded request file at path may be applied: it
// is this user's own regular file that others cannot write, checked on the opened
// descriptor. Any other is left in place, never applied, and audited once.
func (w *Core) trustedRequest(path string) bool {
	f, err := store.OpenInHome(path, os.O_RDONLY, 0)
	if err == nil {
		f.Close()
		return true
	}
	if errors.Is(err, store.ErrNotOurs) {
		if w.auditOnce(path+"\x00request", store.Unsafe{Path: path, Problem: err.Error(), Action: "ignored: left in place and never applied"}) {
			w.opts.Logf("forwarded request ignored: %v", err)
		}
	}
	return false
}

// pokeHomeCheck wakes guardHome for a look at the home now.
func (w *Core) pokeHomeCheck() {
	select {
	case w.homePoke <- struct{}{}:
	default:
	}
}

// refuseOddFolders refuses a home whose folders that every window creates files in
// (instances/, requests/, replies/) are symbolic links or not folders: not even a
// read-only window can live there without following them. The error names the entry and
// gives the command that makes the home safe.
func refuseOddFolders(home string) error {
	var faults []entryFault
	for _, name := range []string{InstancesDir, forward.RequestsDir, forward.RepliesDir} {
		p := filepath.Join(home, name)
		if fi, err := os.Lstat(p); err == nil {
			if f, bad := entryFaultOf(p, fi, true); bad && f.odd {
				faults = append(faults, f)
			}
		}
	}
	if len(faults) == 0 {
		return nil
	}
	return homeFaultError(home, faults)
}

// auditRefusedLog audits, once, a run that failed because its log is not Baton's own (a
// symbolic link, another user's file): its output went nowhere rather than through it.
func (w *Core) auditRefusedLog(r *store.Run) {
	if r.Status != store.StatusFailed || !strings.Contains(r.Error, store.ErrNotOurs.Error()) {
		return
	}
	p := RunLogPath(r, w.home)
	w.auditOnce(p+"\x00log", store.Unsafe{Path: p, Problem: r.Error, Action: "refused: the run failed, and nothing was written through it"})
}
