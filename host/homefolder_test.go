package host

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"baton/store"
	"baton/store/storetest/contract"
)

// TestFolderHomeContract holds the folder to the contract of the seams of a home
// (store/storetest/contract): the document through store.New, the writer lock through
// folderLock, a holder killed with SIGKILL being a real headless window.
func TestFolderHomeContract(t *testing.T) {
	t.Parallel()
	contract.Run(t, func(t *testing.T) contract.Home {
		home := t.TempDir()
		lockPath := filepath.Join(home, LockName)
		return contract.Home{
			Open: func(t *testing.T, beforeSave func() error) *store.Store {
				return store.New(home, store.Options{BeforeSave: beforeSave})
			},
			Lock: func(t *testing.T) store.WriterLock { return folderLock{path: lockPath} },
			Gap: func(t *testing.T, writer *store.Store) {
				// workflows.json whole and a new log cycle: the frames a follower did
				// not read are no longer in the log.
				if err := writer.Checkpoint(); err != nil {
					t.Fatal(err)
				}
			},
			Steal: func(t *testing.T, hold store.LockHold) {
				if err := os.Remove(lockPath); err != nil {
					t.Fatal(err)
				}
			},
			HoldInChild: func(t *testing.T) func() {
				c := startChild(t, home)
				c.waitWriter(time.Minute)
				return c.kill9
			},
		}
	})
}
