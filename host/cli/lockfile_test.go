package cli_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"baton/host"
	"baton/store/storetest/etcdtest"
)

// TestMigrateNeverFollowsALinkedLock: migrate takes a folder's state.lock as a window does
// (host.TryFolderLock): a state.lock that is a symbolic link is refused, with --dry-run or
// without, and nothing is made where it points nor in the target (an etcd home).
func TestMigrateNeverFollowsALinkedLock(t *testing.T) {
	c := etcdtest.StartCluster(t, 1)
	etcd := etcdtest.Client(t, c.Endpoints()...)
	url := etcdURL(c, "linked")
	for _, dry := range []bool{true, false} {
		src, outside := t.TempDir(), filepath.Join(t.TempDir(), "elsewhere.lock")
		if err := os.Symlink(outside, filepath.Join(src, host.LockName)); err != nil {
			t.Fatal(err)
		}
		local := filepath.Join(t.TempDir(), "local")
		args := []string{"--from", src, "--to", url, "--local", local}
		if dry {
			args = append(args, "--dry-run")
		}
		refused(t, migrate(t, args...), host.LockName, "too many levels of symbolic links")
		if _, err := os.Lstat(outside); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("dry run %v: migrate made the file state.lock points to: %v", dry, err)
		}
		if _, err := os.Lstat(local); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("dry run %v: migrate made the target's local folder: %v", dry, err)
		}
		if keys := prefixKeys(t, etcd, "linked"); len(keys) != 0 {
			t.Fatalf("dry run %v: keys under the target's prefix: %v", dry, keys)
		}
	}
}
