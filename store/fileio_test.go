package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenInHomeRefusesWhatIsNotOurs: a symbolic link (to a file, or dangling, for
// reading and for creating), a FIFO (without blocking), another user's file and a file
// others may write are refused with ErrNotOurs naming the path; this user's own file and
// a new file are opened.
func TestOpenInHomeRefusesWhatIsNotOurs(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, make func(p string) error) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := make(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	own := mk("own", func(p string) error { return os.WriteFile(p, []byte("mine"), 0o644) })
	refused := map[string]string{
		mk("link", func(p string) error { return os.Symlink(outside, p) }):             "symbolic link",
		mk("dangling", func(p string) error { return os.Symlink(outside+".none", p) }): "symbolic link",
		mk("fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }):           "not a regular file",
		mk("group-writable", func(p string) error { return writeMode(p, 0o620) }):      "writable by group or others",
		mk("world-writable", func(p string) error { return writeMode(p, 0o606) }):      "writable by group or others",
		mk("folder", func(p string) error { return os.Mkdir(p, 0o700) }):               "not a regular file",
	}
	if os.Geteuid() == 0 {
		refused[mk("foreign", func(p string) error {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				return err
			}
			return os.Chown(p, 54321, 54321)
		})] = "belongs to uid 54321"
	}
	for p, want := range refused {
		for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_APPEND | os.O_CREATE, os.O_RDWR | os.O_CREATE} {
			f, err := OpenInHome(p, flag, 0o600)
			if err == nil {
				f.Close()
			}
			if err != nil && flag != os.O_RDONLY && !errors.Is(err, ErrNotOurs) && (want == "not a regular file") {
				continue // the kernel refuses it first (ENXIO for a FIFO nobody reads, EISDIR)
			}
			if !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
				t.Errorf("%s (flag %#x): %v, want ErrNotOurs saying %q", filepath.Base(p), flag, err, want)
			}
		}
		if _, err := ReadInHome(p); !errors.Is(err, ErrNotOurs) {
			t.Errorf("ReadInHome %s: %v", filepath.Base(p), err)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious" {
		t.Fatal("written through a symlink")
	}
	if _, err := os.Stat(outside + ".none"); err == nil {
		t.Fatal("a file was created through a dangling symlink")
	}
	if b, err := ReadInHome(own); err != nil || string(b) != "mine" {
		t.Fatalf("own file: %q %v", b, err)
	}
	f, err := OpenInHome(filepath.Join(dir, "new"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	d, err := OpenInHome(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		t.Fatalf("own folder: %v", err)
	}
	d.Close()
	linked := filepath.Join(dir, "linked-folder")
	if err := os.Symlink(t.TempDir(), linked); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenInHome(linked, os.O_RDONLY|syscall.O_DIRECTORY, 0); !errors.Is(err, ErrNotOurs) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("folder through a symlink: %v", err)
	}
}

func writeMode(p string, mode os.FileMode) error {
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		return err
	}
	return os.Chmod(p, mode)
}

// TestArchiveAndAuditNeverFollowSymlinks: the archive file of this month and the audit
// log made symbolic links: appending to them is refused with ErrNotOurs and the files
// they point to are untouched; reading the audit log skips it.
func TestArchiveAndAuditNeverFollowSymlinks(t *testing.T) {
	home := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := NewArchive(home, 0)
	if err := os.Mkdir(a.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(a.Dir(), archiveName(a.now().UTC().Format("2006-01"), 0))); err != nil {
		t.Fatal(err)
	}
	if err := a.Append([]Run{{ID: "r1-0000abcd", Workflow: "w", Status: StatusSucceeded}}); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("archive append through a symlink: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(home, AuditName)); err != nil {
		t.Fatal(err)
	}
	au := NewAudit(home)
	if err := au.Append(Clean{}); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("audit append through a symlink: %v", err)
	}
	if entries, _ := au.Read(0); len(entries) != 0 {
		t.Fatalf("audit read through a symlink: %v", entries)
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious\n" {
		t.Fatalf("written through a symlink: %q", b)
	}
}
