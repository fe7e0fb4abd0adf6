package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"baton/store/storetest/tmpfs"
)

// Audit entries on a full disk, on a real one: a small tmpfs the test fills.

// bigClean is an audit record of about 8 KiB numbered n.
func bigClean(n int) Clean {
	return Clean{Removed: []string{fmt.Sprintf("entry-%04d", n), strings.Repeat("x", 8<<10)}}
}

// auditNumbers returns the numbers of the bigClean entries the log holds, in its order,
// and its gap entries.
func auditNumbers(t *testing.T, a *Audit) (nums []int, gaps []AuditGap) {
	t.Helper()
	entries, err := a.Read(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		switch e.Kind {
		case KindClean:
			var c Clean
			if err := e.Decode(&c); err != nil {
				t.Fatal(err)
			}
			var n int
			fmt.Sscanf(c.Removed[0], "entry-%d", &n)
			nums = append(nums, n)
		case KindAuditGap:
			var g AuditGap
			if err := e.Decode(&g); err != nil {
				t.Fatal(err)
			}
			gaps = append(gaps, g)
		}
	}
	return nums, gaps
}

// fullAudit returns the audit log of a home on a small tmpfs holding one entry, and the
// tmpfs, filled.
func fullAudit(t *testing.T) (*Audit, string, string) {
	dir := tmpfs.Mount(t, 1<<20)
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	a := NewAudit(home)
	t.Cleanup(func() { _ = a.Close() })
	if err := a.Append(bigClean(0)); err != nil {
		t.Fatal(err)
	}
	return a, dir, tmpfs.Fill(t, dir, "fill")
}

// TestAuditOnAFullDiskLosesNothing: entries appended while the disk is full are written
// first into the room the log keeps reserved, then held in memory; once space is freed,
// the next append writes every one of them, in order, before itself. Nothing is lost.
func TestAuditOnAFullDiskLosesNothing(t *testing.T) {
	a, _, fill := fullAudit(t)
	n, intoReserve, held := 1, 0, 0
	for ; held < 5; n++ {
		if err := a.Append(bigClean(n)); err != nil {
			if !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "held in memory") {
				t.Fatalf("append %d: %v", n, err)
			}
			held++
		} else if held == 0 {
			intoReserve++
		} else {
			t.Fatalf("append %d succeeded after an entry was held: the order would change", n)
		}
	}
	if intoReserve < (AuditReserve-(16<<10))/(9<<10) {
		t.Errorf("only %d entries fit on the full disk; the log's reserve of %d bytes should hold more", intoReserve, AuditReserve)
	}
	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	if err := a.Append(bigClean(n)); err != nil {
		t.Fatalf("append once space is free: %v", err)
	}
	nums, gaps := auditNumbers(t, a)
	if len(gaps) != 0 || len(nums) != n+1 {
		t.Fatalf("the log holds %d entries and gaps %v, want all %d: %v", len(nums), gaps, n+1, nums)
	}
	for i, got := range nums {
		if got != i {
			t.Fatalf("entry %d of the log is number %d: the order changed: %v", i, got, nums)
		}
	}
}

// TestAuditHeldEntriesWrittenInTheBackground: entries held while the disk was full are
// written once space returns, without another append.
func TestAuditHeldEntriesWrittenInTheBackground(t *testing.T) {
	a, _, fill := fullAudit(t)
	n := 1
	for ; ; n++ {
		if err := a.Append(bigClean(n)); err != nil {
			break // this one is held
		}
	}
	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		nums, _ := auditNumbers(t, a)
		if len(nums) == n+1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the held entry %d was not written within 60 s of space freed: log holds %v", n, nums)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAuditGapIsRecorded: past the entries an Audit may hold, the oldest held are
// dropped, and the log says how many were lost, when, and why, before the entries kept.
func TestAuditGapIsRecorded(t *testing.T) {
	defer func(m int) { auditHeldMax = m }(auditHeldMax)
	auditHeldMax = 3
	a, _, fill := fullAudit(t)
	n, held := 1, 0
	for ; held < 10; n++ {
		if a.Append(bigClean(n)) != nil {
			held++
		}
	}
	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	if err := a.Append(bigClean(n)); err != nil {
		t.Fatal(err)
	}
	nums, gaps := auditNumbers(t, a)
	// A gap record is small: the disk may take one while it refuses the next entry, so
	// the loss may be told in several records; together they count every entry lost.
	lost := 0
	for _, g := range gaps {
		lost += g.Lost
		if g.Reason != "no space left on device" || g.From.IsZero() || g.To.Before(g.From) {
			t.Errorf("gap %+v does not say when and why", g)
		}
	}
	if lost != 7 {
		t.Fatalf("gaps %v count %d entries lost, want 7", gaps, lost)
	}
	if g := (AuditGap{Lost: 7, Reason: "no space left on device"}).String(); g != "7 audit entries lost while the disk was full (no space left on device)" {
		t.Errorf("a gap says %q", g)
	}
	if want := n + 1 - 7; len(nums) != want || nums[len(nums)-4] != n-3 {
		t.Fatalf("the log holds %v; want %d entries, the last 3 held and the new one at the end", nums, want)
	}
}

// TestAuditFailedFsyncIsToldInTheLog: entries written whose fsync then failed may be
// missing after a crash (the kernel may not report the failure twice): the log says how
// many, when and why, in a gap record written once the disk syncs again.
func TestAuditFailedFsyncIsToldInTheLog(t *testing.T) {
	a := NewAudit(t.TempDir())
	t.Cleanup(func() { _ = a.Close() })
	if err := a.Append(bigClean(1)); err != nil {
		t.Fatal(err)
	}
	eio := syscall.EIO
	setSyncErr := func(f func(string) error) { // under a.mu: the background retry syncs too
		a.mu.Lock()
		hooks.syncErr = f
		a.mu.Unlock()
	}
	setSyncErr(func(name string) error {
		if name == SyncAudit {
			return eio
		}
		return nil
	})
	defer setSyncErr(nil)
	for n := 2; n <= 3; n++ {
		if err := a.Append(bigClean(n)); !errors.Is(err, eio) {
			t.Fatalf("append %d with a failing fsync: %v, want %v", n, err, eio)
		}
	}
	setSyncErr(nil)
	if err := a.Append(bigClean(4)); err != nil {
		t.Fatal(err)
	}
	nums, gaps := auditNumbers(t, a)
	if fmt.Sprint(nums) != "[1 2 3 4]" {
		t.Errorf("entries %v, want [1 2 3 4] (written once each)", nums)
	}
	unsynced := 0
	for _, g := range gaps {
		unsynced += g.Unsynced
		if g.Lost != 0 || g.Reason != eio.Error() || g.From.IsZero() || g.To.Before(g.From) {
			t.Errorf("gap %+v does not say when and why", g)
		}
	}
	if unsynced != 2 {
		t.Fatalf("gaps %+v count %d entries perhaps missing, want 2", gaps, unsynced)
	}
	want := "2 audit entries may be missing after a crash: their fsync failed (input/output error)"
	if g := (AuditGap{Unsynced: 2, Reason: eio.Error()}).String(); g != want {
		t.Errorf("gap says %q, want %q", g, want)
	}
}
