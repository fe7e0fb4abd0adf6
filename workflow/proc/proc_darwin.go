package proc

import (
	"errors"

	"golang.org/x/sys/unix"
)

// pWexit is macOS's P_WEXIT process flag: the process is exiting.
const pWexit = 0x2000

// stat reads kern.proc.pid for pid: state, group, flags and the start time (in
// microseconds since the epoch, stable for the process's life).
func stat(pid int) (Info, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return Info{}, err
	}
	if k.Proc.P_pid != int32(pid) {
		return Info{}, errors.New("no such process")
	}
	state := byte('R')
	if k.Proc.P_stat == 5 { // SZOMB
		state = 'Z'
	}
	tv := k.Proc.P_starttime
	start := uint64(tv.Sec)*1_000_000 + uint64(tv.Usec)
	return Info{State: state, PGID: int(k.Eproc.Pgid), Start: start, Exiting: k.Proc.P_flag&pWexit != 0}, nil
}

func bootID() string {
	id, err := unix.Sysctl("kern.bootsessionuuid")
	if err != nil {
		return ""
	}
	return id
}

// groupHasLive trusts kill(-pgid, 0), already checked by GroupAlive: listing every
// process's group needs kern.proc.all, which Baton does not read on macOS.
func groupHasLive(int) bool { return true }

// withMarkers returns nil: reading other processes' environments needs kern.procargs2,
// which Baton does not parse on macOS (see the package comment).
func withMarkers(int, []string) []int { return nil }

func withAnyMarkers(int, [][]string) []int { return nil }
