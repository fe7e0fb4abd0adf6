package workflow

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"baton/store"
)

// ProcStart returns the start time of process pid in clock ticks since boot (field 22 of
// /proc/pid/stat), or an error if there is no such process. Together with the boot id it
// tells a process from a later one that reuses its pid.
func ProcStart(pid int) (uint64, error) {
	st, err := procStat(pid)
	if err != nil {
		return 0, err
	}
	return st.start, nil
}

type procInfo struct {
	state byte
	pgid  int
	flags uint64
	start uint64
}

// pfExiting is the kernel's PF_EXITING task flag: the process is dying.
const pfExiting = 0x4

func procStat(pid int) (procInfo, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procInfo{}, err
	}
	// The command name is in parentheses and may hold spaces: parse after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, errors.New("bad /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return procInfo{}, errors.New("short /proc stat")
	}
	// f[0] is field 3 (state); field N is f[N-3].
	pgid, _ := strconv.Atoi(f[2])
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procInfo{}, err
	}
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	return procInfo{state: f[0][0], pgid: pgid, flags: flags, start: start}, nil
}

// Alive reports whether pid is a live (not zombie) process with the given start time.
func Alive(pid int, start uint64) bool {
	st, err := procStat(pid)
	return err == nil && st.state != 'Z' && st.state != 'X' && (start == 0 || st.start == start)
}

// Exiting reports whether pid (with the given start time) is dying or gone: not in
// /proc, a zombie, a different process, or flagged PF_EXITING by the kernel. A process
// killed with SIGKILL is flagged before it closes its files, so this tells a dead window
// whose locks the kernel has not released yet.
func Exiting(pid int, start uint64) bool {
	st, err := procStat(pid)
	if err != nil {
		return true
	}
	return st.state == 'Z' || st.state == 'X' || (start != 0 && st.start != start) || st.flags&pfExiting != 0
}

// markerEnv names the environment variables every step process carries, so that the
// reaper can find what a dead window left running even if the group id was never saved.
const (
	EnvRunID = "BATON_RUN_ID"
	EnvHome  = "BATON_HOME"
)

// RunProcesses lists live processes that carry the markers of run id in home.
func RunProcesses(home, id string) []int {
	want1 := []byte(EnvRunID + "=" + id + "\x00")
	want2 := []byte(EnvHome + "=" + home + "\x00")
	ents, _ := os.ReadDir("/proc")
	self := os.Getpid()
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want1) || !bytes.Contains(env, want2) {
			continue
		}
		if Alive(pid, 0) {
			out = append(out, pid)
		}
	}
	return out
}

// KillRun kills every process a run left behind: its recorded process group (unless the
// group id was provably reused) and every process carrying the run's markers. It waits up
// to wait for them to be gone and returns the pids and groups it signalled and whether
// all are gone.
func KillRun(home string, r *store.Run, wait time.Duration) (killed []int, gone bool) {
	// A group whose leader's pid was reused by another process's own group is not the
	// run's: it is neither killed nor waited for.
	group := r.PGID > 0 && groupIsRuns(r)
	if group {
		if syscall.Kill(-r.PGID, syscall.SIGKILL) == nil {
			killed = append(killed, -r.PGID)
		}
	}
	pids := RunProcesses(home, r.ID)
	for _, p := range pids {
		if syscall.Kill(p, syscall.SIGKILL) == nil {
			killed = append(killed, p)
		}
	}
	deadline := time.Now().Add(wait)
	for {
		left := RunProcesses(home, r.ID)
		if len(left) == 0 && (!group || !GroupAlive(r.PGID)) {
			return killed, true
		}
		if time.Now().After(deadline) {
			return killed, false
		}
		for _, p := range left {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// groupIsRuns reports whether process group r.PGID still belongs to the run: a group id
// cannot be reused while the group has members, so the only doubt is a new process that
// got the leader's pid and made its own group; its start time then differs.
func groupIsRuns(r *store.Run) bool {
	st, err := procStat(r.PGID)
	if err != nil {
		return true // the leader is gone; remaining members (if any) are the run's
	}
	if r.StepStart != 0 && st.start != r.StepStart && st.pgid == r.PGID {
		return false
	}
	return true
}

// GroupAlive reports whether any non-zombie process is in group pgid.
func GroupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := procStat(pid); err == nil && st.pgid == pgid && st.state != 'Z' && st.state != 'X' {
			return true
		}
	}
	return false
}
