package workflow

import (
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
)

// On a shared home a step must not outlive its supervisor past the supervisor's lease: once
// the lease is gone the run may be re-queued on another machine, and a step still running
// here would run beside the new attempt. A supervisor killed -9 cannot kill its steps, so
// two things are set up before it could die:
//   - the step's process is forked from a locked OS thread with Pdeathsig SIGKILL (Linux):
//     the kernel kills it when that thread, so the supervisor, dies;
//   - a keeper (a tiny shell, its own session, no run marker) waits on a pipe only the
//     supervisor writes: at end of file without "done" (the supervisor died) it kills the
//     step's whole process group, grandchildren included.
// A grandchild that left the group (setsid) is out of reach of both; the lost-lease path
// (shared.lose) also kills every process carrying the run's markers.

// startBound starts cmd (its SysProcAttr set) with Pdeathsig SIGKILL when bind is set.
func startBound(cmd *exec.Cmd, bind bool) error {
	if !bind {
		return cmd.Start()
	}
	setPdeathsig(cmd.SysProcAttr)
	runtime.LockOSThread() // the parent thread is the one whose death signals the step
	defer runtime.UnlockOSThread()
	return cmd.Start()
}

// groupKeeper is the keeper of one step's process group; nil-safe.
type groupKeeper struct {
	w   *os.File
	cmd *exec.Cmd
}

// startKeeper starts the keeper of process group pgid; nil if it cannot be started (the
// step's Pdeathsig still holds).
func startKeeper(pgid int) *groupKeeper {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", `read -r l; [ "$l" = done ] || exec env kill -KILL -- "-$1"`, "baton-keeper", strconv.Itoa(pgid))
	cmd.Stdin = r
	cmd.Env = []string{"PATH=/usr/bin:/bin"} // no run marker: the keeper is no process of the run
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_ = w.Close()
		return nil
	}
	go func() { _ = cmd.Wait() }()
	return &groupKeeper{w: w, cmd: cmd}
}

// release tells the keeper its group is gone (the supervisor saw it): it ends, killing
// nothing.
func (k *groupKeeper) release() {
	if k == nil {
		return
	}
	_, _ = io.WriteString(k.w, "done\n")
	_ = k.w.Close()
}
