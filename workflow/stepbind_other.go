//go:build !linux

package workflow

import "syscall"

func setPdeathsig(*syscall.SysProcAttr) {} // no such signal: the keeper alone
