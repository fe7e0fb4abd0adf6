//go:build !linux

package etcdtest

import "os/exec"

// supported says whether the launcher works here: it needs Linux (Pdeathsig, /proc).
const supported = false

func dieWithParent(*exec.Cmd) {}

const sockCloexec = 0
