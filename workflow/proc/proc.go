// Package proc is what Baton knows of operating-system processes: whether a process with
// a given pid and start time lives, is dying or is gone; the boot it belongs to; process
// groups; and the processes that carry a run's markers in their environment. It is the
// evidence the reaper and the liveness checks decide on, and it never looks at how old
// anything is.
//
// # Platforms
//
// Linux is the platform Baton is tested on: everything is read from /proc. On macOS the
// start time, state and group come from sysctl (kern.proc.pid) and markers are not
// scanned (a process that left its group is not found by its marker there). On FreeBSD
// start times are not read (golang.org/x/sys has no kinfo_proc there): a process is alive
// when kill(pid, 0) says so, so a recycled pid may be taken for the owner; the instance
// and run locks, which are the primary evidence, are not affected.
package proc

import (
	"os"
	"syscall"
	"time"
)

// Environment markers every step process carries, so the reaper can find what a dead
// window or supervisor left running even if no group id was ever saved.
const (
	EnvRunID = "BATON_RUN_ID"
	EnvHome  = "BATON_HOME"
)

// Info is what is known of one process.
type Info struct {
	State   byte   // 'R', 'S', 'Z' (zombie), 'X' (dead), ...; 0 when unknown
	PGID    int    // its process group
	Start   uint64 // start time, in a unit that is stable for the process's life; 0 when unknown
	Exiting bool   // the kernel is tearing it down (Linux PF_EXITING, macOS P_WEXIT)
	kernel  bool   // a kernel thread (Linux PF_KTHREAD)
}

// Start returns the start time of process pid, or an error if there is no such process.
// Together with the boot id it tells a process from a later one that reuses its pid.
func Start(pid int) (uint64, error) {
	st, err := stat(pid)
	if err != nil {
		return 0, err
	}
	return st.Start, nil
}

// Alive reports whether pid is a live (not zombie) process with the given start time
// (any start time when start is 0).
func Alive(pid int, start uint64) bool {
	st, err := stat(pid)
	return err == nil && st.State != 'Z' && st.State != 'X' && (start == 0 || st.Start == 0 || st.Start == start)
}

// Exiting reports whether pid (with the given start time) is dying or gone: no such
// process, a zombie, another process with that pid, or one the kernel is tearing down.
// A process killed with SIGKILL is flagged before it closes its files, so this tells a
// dead window whose locks the kernel has not released yet.
func Exiting(pid int, start uint64) bool {
	st, err := stat(pid)
	if err != nil {
		return true
	}
	return st.State == 'Z' || st.State == 'X' || (start != 0 && st.Start != 0 && st.Start != start) || st.Exiting
}

// Stat returns what is known of process pid.
func Stat(pid int) (Info, error) { return stat(pid) }

// BootID names the running boot ("" when unknown): start times of two boots cannot be
// compared, and every process of an earlier boot is gone.
func BootID() string { return bootID() }

// GroupAlive reports whether any non-zombie process is in group pgid.
func GroupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	return groupHasLive(pgid)
}

// WithMarkers lists the live processes (other than this one) whose environment holds
// every one of the given NAME=value markers. It reads every process's environment; on
// platforms where it cannot, it returns nil.
func WithMarkers(markers ...string) []int { return withMarkers(os.Getpid(), markers) }

// WithAnyMarkers lists, in one pass over the processes, the live processes (other than
// this one) whose environment holds every marker of at least one of the sets.
func WithAnyMarkers(sets [][]string) []int { return withAnyMarkers(os.Getpid(), sets) }

// Group is a process group to kill, with the start time of its leader (0: unknown).
type Group struct {
	PGID        int
	LeaderStart uint64
}

// KillAll kills, together, the groups (each unless its leader's pid was provably reused:
// see GroupIsStill) and every process carrying one of the marker sets, and waits up to
// wait for all of them to be gone: one pass over the processes per round, however many
// runs are killed. It returns the groups (negative) and pids it signalled and whether all
// are gone. It blocks for up to wait.
func KillAll(groups []Group, sets [][]string, wait time.Duration) (killed []int, gone bool) {
	var live []int
	for _, g := range groups {
		if g.PGID > 0 && GroupIsStill(g.PGID, g.LeaderStart) && KillGroup(g.PGID) {
			live = append(live, g.PGID)
			killed = append(killed, -g.PGID)
		}
	}
	signalled := map[int]bool{}
	deadline := time.Now().Add(wait)
	for {
		left := WithAnyMarkers(sets)
		for _, p := range left {
			if syscall.Kill(p, syscall.SIGKILL) == nil && !signalled[p] {
				signalled[p] = true
				killed = append(killed, p)
			}
		}
		groupsLeft := live[:0]
		for _, g := range live {
			if GroupAlive(g) {
				groupsLeft = append(groupsLeft, g)
			}
		}
		live = groupsLeft
		if len(left) == 0 && len(live) == 0 {
			return killed, true
		}
		if time.Now().After(deadline) {
			return killed, false
		}
		time.Sleep(time.Millisecond) // the kernel's teardown has no event to wait on
	}
}

// KillGroup sends SIGKILL to process group pgid; false if there was no such group.
func KillGroup(pgid int) bool { return pgid > 0 && syscall.Kill(-pgid, syscall.SIGKILL) == nil }

// GroupIsStill reports whether group pgid can still be the group whose leader started at
// leaderStart: a group id cannot be reused while the group has members, so the only doubt
// is a new process that got the leader's pid and made its own group; its start time then
// differs. With leaderStart 0 (unknown) the group is taken as still the same.
func GroupIsStill(pgid int, leaderStart uint64) bool {
	st, err := stat(pgid)
	if err != nil {
		return true // the leader is gone; remaining members (if any) are the group's
	}
	return leaderStart == 0 || st.Start == 0 || st.Start == leaderStart || st.PGID != pgid
}
