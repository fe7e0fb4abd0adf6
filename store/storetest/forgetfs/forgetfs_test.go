//go:build linux

package forgetfs

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The instrument's own tests: each case does something through the mount, cuts the power
// and checks what the backing folder holds. Files that were there at the mount are durable.

func write(t *testing.T, path, data string, sync bool) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
	}
}

func syncDir(t *testing.T, dir string) {
	t.Helper()
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}

// content returns the file's content after the cut, or "<none>".
func content(t *testing.T, f *FS, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.Backing(), rel))
	if os.IsNotExist(err) {
		return "<none>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// seeded mounts a folder that holds "old" (content "v1") and the folder "d" before the
// mount, so both are durable.
func seeded(t *testing.T) *FS {
	f := Start(t)
	if err := f.Unmount(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.Backing(), "old"), []byte("v1"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(f.Backing(), "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	return f.Remount(t)
}

func cut(t *testing.T, f *FS) {
	t.Helper()
	if err := f.PowerCut(nil); err != nil {
		t.Fatal(err)
	}
}

func TestForgetCases(t *testing.T) {
	cases := []struct {
		name string
		do   func(t *testing.T, m string)
		want map[string]string // path -> content or <none>
	}{
		{"durable at the mount", func(t *testing.T, m string) {},
			map[string]string{"old": "v1"}},
		{"unsynced write forgotten", func(t *testing.T, m string) {
			write(t, filepath.Join(m, "old"), "v2", false)
		}, map[string]string{"old": "v1"}},
		{"synced write kept", func(t *testing.T, m string) {
			write(t, filepath.Join(m, "old"), "v2", true)
		}, map[string]string{"old": "v2"}},
		{"fdatasync counts", func(t *testing.T, m string) {
			f, err := os.OpenFile(filepath.Join(m, "old"), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.WriteAt([]byte("V"), 0)
			if err := syscall.Fdatasync(int(f.Fd())); err != nil {
				t.Fatal(err)
			}
		}, map[string]string{"old": "V1"}},
		{"write after the sync forgotten", func(t *testing.T, m string) {
			write(t, filepath.Join(m, "old"), "v2", true)
			write(t, filepath.Join(m, "old"), "v3-longer", false)
		}, map[string]string{"old": "v2"}},
		{"new file without folder sync vanishes", func(t *testing.T, m string) {
			write(t, filepath.Join(m, "new"), "n", true)
		}, map[string]string{"new": "<none>"}},
		{"new file with folder sync kept", func(t *testing.T, m string) {
			write(t, filepath.Join(m, "new"), "n", true)
			syncDir(t, m)
		}, map[string]string{"new": "n"}},
		{"named but never synced file is empty", func(t *testing.T, m string) {
			write(t, filepath.Join(m, "new"), "n", false)
			syncDir(t, m)
		}, map[string]string{"new": ""}},
		{"rename without folder sync undone", func(t *testing.T, m string) {
			write(t, filepath.Join(m, "tmp"), "v2", true)
			if err := os.Rename(filepath.Join(m, "tmp"), filepath.Join(m, "old")); err != nil {
				t.Fatal(err)
			}
		}, map[string]string{"old": "v1", "tmp": "<none>"}},
		{"rename with folder sync kept", func(t *testing.T, m string) {
			write(t, filepath.Join(m, "tmp"), "v2", true)
			if err := os.Rename(filepath.Join(m, "tmp"), filepath.Join(m, "old")); err != nil {
				t.Fatal(err)
			}
			syncDir(t, m)
		}, map[string]string{"old": "v2", "tmp": "<none>"}},
		{"move to another folder needs both syncs", func(t *testing.T, m string) {
			if err := os.Rename(filepath.Join(m, "old"), filepath.Join(m, "d", "moved")); err != nil {
				t.Fatal(err)
			}
			syncDir(t, filepath.Join(m, "d"))
		}, map[string]string{"old": "v1", "d/moved": "v1"}},
		{"remove without folder sync undone", func(t *testing.T, m string) {
			if err := os.Remove(filepath.Join(m, "old")); err != nil {
				t.Fatal(err)
			}
		}, map[string]string{"old": "v1"}},
		{"remove with folder sync kept", func(t *testing.T, m string) {
			if err := os.Remove(filepath.Join(m, "old")); err != nil {
				t.Fatal(err)
			}
			syncDir(t, m)
		}, map[string]string{"old": "<none>"}},
		{"mkdir without parent sync undone", func(t *testing.T, m string) {
			if err := os.Mkdir(filepath.Join(m, "n"), 0o700); err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(m, "n", "f"), "x", true)
			syncDir(t, filepath.Join(m, "n"))
		}, map[string]string{"n/f": "<none>", "n": "<none>"}},
		{"mkdir with parent sync kept", func(t *testing.T, m string) {
			if err := os.Mkdir(filepath.Join(m, "n"), 0o700); err != nil {
				t.Fatal(err)
			}
			syncDir(t, m)
			write(t, filepath.Join(m, "n", "f"), "x", true)
			syncDir(t, filepath.Join(m, "n"))
		}, map[string]string{"n/f": "x"}},
		{"mkdir synced but its entries not", func(t *testing.T, m string) {
			if err := os.Mkdir(filepath.Join(m, "n"), 0o700); err != nil {
				t.Fatal(err)
			}
			syncDir(t, m)
			write(t, filepath.Join(m, "n", "f"), "x", true)
		}, map[string]string{"n/f": "<none>"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := seeded(t)
			c.do(t, f.Dir())
			cut(t, f)
			for rel, want := range c.want {
				got := content(t, f, rel)
				if rel == "n" {
					if _, err := os.Stat(filepath.Join(f.Backing(), rel)); err == nil {
						got = "<there>"
					}
				}
				if got != want {
					t.Errorf("%s after the cut = %q, want %q", rel, got, want)
				}
			}
		})
	}
}

// TestCutRefusesAndStops shows that a power cut runs stop first, and that an open file on
// the mount can change nothing after it: its syncs fail and its writes reach no disk.
func TestCutRefusesAndStops(t *testing.T) {
	f := seeded(t)
	h, err := os.OpenFile(filepath.Join(f.Dir(), "old"), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	stopped := false
	err = f.PowerCut(func() {
		stopped = true
		if _, err := h.WriteAt([]byte("X"), 0); err == nil {
			if err := h.Sync(); err == nil {
				t.Error("an fsync after the cut succeeded")
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !stopped {
		t.Fatal("PowerCut did not call stop")
	}
	h.WriteAt([]byte("Y"), 0) // may land in the dead mount's page cache, never on the disk
	if err := h.Sync(); err == nil {
		t.Error("an fsync on the mount after the cut succeeded")
	}
	if got := content(t, f, "old"); got != "v1" {
		t.Errorf("old after the cut = %q, want v1", got)
	}
}

// TestPermissionsKept shows that a restored tree keeps the modes the syncs saw.
func TestPermissionsKept(t *testing.T) {
	f := seeded(t)
	m := f.Dir()
	if err := os.Mkdir(filepath.Join(m, "p"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(m, "p", "f"), "x", true)
	syncDir(t, filepath.Join(m, "p"))
	syncDir(t, m)
	cut(t, f)
	for rel, want := range map[string]os.FileMode{"p": 0o700 | os.ModeDir, "p/f": 0o600} {
		fi, err := os.Stat(filepath.Join(f.Backing(), rel))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s mode = %v, want %v", rel, fi.Mode(), want)
		}
	}
}
