package etcdtest

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// supported says whether the launcher works here.
const supported = true

// dieWithParent has the kernel send SIGKILL to cmd's process when its parent thread ends.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// sockCloexec keeps a held port's socket out of child processes.
const sockCloexec = unix.SOCK_CLOEXEC
