package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Task flags of the kernel: PF_EXITING (the process is dying) and PF_KTHREAD.
const (
	pfExiting = 0x4
	pfKthread = 0x00200000
)

// stat parses /proc/pid/stat: state (field 3), group (5), flags (9), start time in clock
// ticks since boot (22).
func stat(pid int) (Info, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Info{}, err
	}
	// The command name is in parentheses and may hold spaces: parse after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Info{}, errors.New("bad /proc stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return Info{}, errors.New("short /proc stat")
	}
	// f[0] is field 3 (state); field N is f[N-3].
	pgid, _ := strconv.Atoi(f[2])
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return Info{}, err
	}
	flags, _ := strconv.ParseUint(f[6], 10, 64)
	return Info{State: f[0][0], PGID: pgid, Start: start, Exiting: flags&pfExiting != 0, kernel: flags&pfKthread != 0}, nil
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// pids lists the numeric entries of /proc.
func pids() []int {
	ents, _ := os.ReadDir("/proc")
	out := make([]int, 0, len(ents))
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

func groupHasLive(pgid int) bool {
	for _, pid := range pids() {
		if st, err := stat(pid); err == nil && st.PGID == pgid && st.State != 'Z' && st.State != 'X' {
			return true
		}
	}
	return false
}

// readEnviron reads the environment of process pid. A process inside execve shows an
// empty one for a moment (the kernel has put in its new memory, not yet its new
// environment), so the empty environment of a live process that is not the kernel's is
// read again for up to a millisecond: a run's step caught mid-exec by a reap must not
// escape it for want of its markers.
func readEnviron(pid int) ([]byte, error) {
	path := filepath.Join("/proc", strconv.Itoa(pid), "environ")
	for try := 0; ; try++ {
		env, err := os.ReadFile(path)
		if err != nil || len(env) > 0 || try == 20 {
			return env, err
		}
		if st, err := stat(pid); err != nil || st.kernel || st.State == 'Z' || st.State == 'X' {
			return env, nil
		}
		time.Sleep(50 * time.Microsecond)
	}
}

func withMarkers(self int, markers []string) []int { return withAnyMarkers(self, [][]string{markers}) }

func withAnyMarkers(self int, sets [][]string) []int {
	if len(sets) == 0 {
		return nil
	}
	want := make([][][]byte, len(sets))
	for i, set := range sets {
		for _, m := range set {
			want[i] = append(want[i], []byte(m+"\x00"))
		}
	}
	var out []int
	for _, pid := range pids() {
		if pid == self {
			continue
		}
		env, err := readEnviron(pid)
		if err != nil {
			continue
		}
		for _, set := range want {
			all := len(set) > 0
			for _, w := range set {
				all = all && bytes.Contains(env, w)
			}
			if all {
				if Alive(pid, 0) {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}
