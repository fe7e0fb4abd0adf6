package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"baton/store"
)

// DefaultHome returns $BATON_HOME, else os.UserConfigDir()/baton.
func DefaultHome() (string, error) {
	if h := os.Getenv("BATON_HOME"); h != "" {
		return h, nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no home folder: set --home or BATON_HOME: %w", err)
	}
	return filepath.Join(d, "baton"), nil
}

// PrepareHome creates the home folder (0700, made durable in its parent) if missing and
// refuses one that is a symlink, not a folder, or owned by another user. It refuses a
// system folder (/, /dev, /proc, /sys) and an existing folder that holds other things but
// nothing of Baton's (ErrNotHome); an empty folder becomes a new home. It withdraws any
// read or search access of group and others from the folder (see withdrawAccess). It
// returns the absolute path. What the folder holds is checked by checkHome: an unsafe entry
// makes the window read-only, not a refusal, so that it can still say what is wrong.
func PrepareHome(dir string) (string, error) { return prepareHome(dir, false) }

// prepareHome is PrepareHome; with mustExist it creates nothing, and a folder that is
// missing or holds nothing of Baton's is ErrNoHome.
func prepareHome(dir string, mustExist bool) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("%w: the home folder is an empty path; name a folder", ErrNotHome)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("home %q: %w", dir, err)
	}
	if systemFolders[abs] {
		return "", fmt.Errorf("%w: %s is a system folder; point --home at a folder of your own", ErrNotHome, abs)
	}
	if _, err := os.Lstat(abs); errors.Is(err, os.ErrNotExist) && mustExist {
		return "", fmt.Errorf("%w at %s", ErrNoHome, abs)
	}
	// The home's name is made durable in its parent even when it is there already: a
	// process that died between the mkdir and that sync may have made it.
	if !mustExist {
		if err := store.MkdirDurable(abs); err != nil {
			return "", fmt.Errorf("create home %s: %w", abs, err)
		}
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return "", fmt.Errorf("home %s: %w", abs, err)
	}
	if err := checkOwned(abs, fi, true); err != nil {
		return "", err
	}
	if err := checkIsHome(abs, mustExist); err != nil {
		return "", err
	}
	withdrawAccess(abs, fi)
	return abs, nil
}

// checkHomeUnchanged checks existing home folder abs as prepareHome does, changing
// nothing: no folder made or synced, no access withdrawn (recover --dry-run).
func checkHomeUnchanged(abs string) (string, error) {
	if systemFolders[abs] {
		return "", fmt.Errorf("%w: %s is a system folder; point --home at a folder of your own", ErrNotHome, abs)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return "", fmt.Errorf("home %s: %w", abs, err)
	}
	if err := checkOwned(abs, fi, true); err != nil {
		return "", err
	}
	if err := checkIsHome(abs, true); err != nil {
		return "", err
	}
	return abs, nil
}

// systemFolders can never be a home: laying one out as a home (as root) would scatter
// Baton's files through the system.
var systemFolders = map[string]bool{"/": true, "/dev": true, "/proc": true, "/sys": true}

// checkIsHome refuses a folder that holds entries but none of Baton's (ErrNotHome: a
// mistyped --home must not turn someone's documents into a home); with mustExist, a
// folder without any of Baton's entries, empty or not, is ErrNoHome. A damaged home that
// lost workflows.json still holds others of Baton's entries, so recovery can reach it.
func checkIsHome(abs string, mustExist bool) error {
	f, err := os.Open(abs)
	if err != nil {
		return fmt.Errorf("home %s: %w", abs, err)
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return fmt.Errorf("home %s: %w", abs, err)
	}
	for _, n := range names {
		if batonEntry(n) {
			return nil
		}
	}
	switch {
	case mustExist:
		return fmt.Errorf("%w at %s", ErrNoHome, abs)
	case len(names) > 0:
		return fmt.Errorf("%w: %s is not empty and holds nothing of Baton's (such as %q); "+
			"point --home at an empty or new folder, or at an existing home", ErrNotHome, abs, names[0])
	}
	return nil
}

// batonEntry reports whether name is one of the entries Baton makes in a home.
func batonEntry(name string) bool {
	for _, e := range homeEntries {
		if e.name == name {
			return true
		}
	}
	return strings.HasPrefix(name, store.DamagedPrefix)
}

// checkOwned refuses a folder path (wantDir) or file that is a symlink, not owned by this
// user, or writable by group or others.
func checkOwned(path string, fi os.FileInfo, wantDir bool) error {
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symlink; point --home at the real folder", ErrUnsafeHome, path)
	case wantDir && !fi.IsDir():
		return fmt.Errorf("%w: %s is not a folder", ErrUnsafeHome, path)
	case ownerOf(fi) != os.Geteuid():
		return fmt.Errorf("%w: %s is owned by uid %d, not by you (uid %d)", ErrUnsafeHome, path, ownerOf(fi), os.Geteuid())
	}
	return nil
}

// networkFilesystems names the filesystems (by statfs magic number) on which flock does
// not make one writer among processes of several machines, or is emulated.
var networkFilesystems = map[int64]string{
	0x6969:     "NFS",
	0xFF534D42: "SMB/CIFS",
	0xFE534D42: "SMB2/3",
	0x517B:     "SMB",
	0x65735546: "FUSE",
	0x564C:     "NCP (NetWare)",
	0x5346414F: "AFS",
	0x6B414653: "kAFS",
	0x01021997: "9P",
	0x73757245: "Coda",
	0x00C36400: "Ceph",
	0x0BD00BD0: "Lustre",
	0x47504653: "GPFS",
	0x19830326: "BeeGFS",
	0xAAD7AAEA: "PanFS",
	0x013111A8: "IBRIX",
}

// networkFilesystem names the filesystem with statfs magic number magic if it is a
// network or user-space one ("", false otherwise).
func networkFilesystem(magic int64) (string, bool) {
	name, ok := networkFilesystems[magic]
	return name, ok
}

// statfs returns the statfs magic number of the filesystem holding path. Callers use
// statfsType, which a test may replace (hooks_on.go).
func statfs(path string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, err
	}
	return int64(st.Type), nil
}

// filesystemWarning returns a warning when home is on a network or FUSE filesystem, where
// Baton's single-writer guarantee does not hold, or "" otherwise.
func filesystemWarning(home string) string {
	magic, err := statfsType(home)
	if err != nil {
		return ""
	}
	name, ok := networkFilesystem(magic)
	if !ok {
		return ""
	}
	return fmt.Sprintf("the home folder %s is on a %s filesystem (magic 0x%X): file locks there do not keep "+
		"windows on other machines (or other mounts) from writing at once, so the single-writer guarantee "+
		"does not hold; use a local folder (--home)", home, name, magic)
}
