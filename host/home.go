package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
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

// PrepareHome creates the home folder (0700) if missing and refuses one that is a
// symlink, owned by another user, or writable by others. It returns the absolute path.
func PrepareHome(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("home %q: %w", dir, err)
	}
	fi, err := os.Lstat(abs)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(abs, 0o700); err != nil {
			return "", fmt.Errorf("create home %s: %w", abs, err)
		}
		fi, err = os.Lstat(abs)
	}
	if err != nil {
		return "", fmt.Errorf("home %s: %w", abs, err)
	}
	if err := checkOwned(abs, fi, true); err != nil {
		return "", err
	}
	return abs, nil
}

// checkOwned refuses a path that is a symlink, not owned by this user, or writable by
// group or others.
func checkOwned(path string, fi os.FileInfo, wantDir bool) error {
	if fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s is a symlink; point --home at the real folder", ErrUnsafeHome, path)
	}
	if wantDir && !fi.IsDir() {
		return fmt.Errorf("%w: %s is not a folder", ErrUnsafeHome, path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: %s is owned by uid %d, not by you (uid %d)", ErrUnsafeHome, path, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s is writable by others (mode %04o); run: chmod go-w %s", ErrUnsafeHome, path, fi.Mode().Perm(), path)
	}
	return nil
}
