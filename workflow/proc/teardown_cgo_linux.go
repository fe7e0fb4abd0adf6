//go:build cgo

package proc

/*
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

// keeper runs in a child that shares the window's address space (CLONE_VM) but has its
// own copy of the file table. It keeps only the read end of a pipe whose write end only
// the window holds, and waits for end of file: the kernel closes the window's files when
// its last thread exits, and only then does the keeper exit and free the address space.
// It runs on its own stack and makes raw system calls only; it never touches Go memory.
static int keeper(void *arg) {
	int fd = (int)(long)arg;
	// Every other fd goes, above all the pipe's write end: a keeper that kept it would
	// never see end of file and would hold the window's memory for ever. A failed
	// close_range (errno lands in the cloning thread's TLS, which nothing reads then)
	// ends the keeper at once: the window then dies as it would without one.
	if ((fd > 0 && syscall(SYS_close_range, 0, fd - 1, 0) != 0) || syscall(SYS_close_range, fd + 1, ~0U, 0) != 0)
		syscall(SYS_exit, 1);
	char b;
	while (syscall(SYS_read, fd, &b, 1) != 0) {
	}
	syscall(SYS_exit, 0);
	return 0;
}

// start_keeper clones the keeper with every signal blocked (a signal handled in the
// keeper would run the window's Go handlers on the keeper's stack) and returns its pid,
// or -errno.
static int start_keeper(int rfd) {
	size_t size = 64 << 10;
	char *stack = malloc(size);
	if (stack == NULL) return -ENOMEM;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int pid = clone(keeper, stack + size, CLONE_VM, (void *)(long)rfd);
	int err = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		free(stack);
		return -err;
	}
	return pid; // the stack is the keeper's for its life: never freed
}
*/
import "C"

import (
	"fmt"
	"syscall"
)

// DetachTeardown makes the kernel release this process's files, and so its flocks,
// without waiting for its memory to be freed when it dies, even by kill -9.
//
// Why: on exit Linux frees a process's address space before it closes its files, about
// 80 µs per resident MB here. A desktop window (Fyne, GL, fonts: 180 MB resident) killed
// with -9 held state.lock for 20–40 ms of teardown, ten times a headless window, and a
// survivor's takeover waited for it. With a keeper the kernel finds the address space
// still in use when the window's last thread exits, closes the window's files at once
// (state.lock is free), and the keeper, woken by the end of file of a pipe only the window
// held, exits and frees the memory while the survivor is already taking over.
//
// Call it once, early, before any lock is taken (the keeper's copy of the file table is
// closed at once, but an fd taken in between would be held a moment longer). It needs
// cgo; without it (proc's other file) it does nothing.
func DetachTeardown() (keeper int, err error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil { // CLOEXEC: no step or supervisor may keep the keeper alive
		return 0, fmt.Errorf("teardown keeper: pipe: %w", err)
	}
	pid := int(C.start_keeper(C.int(p[0])))
	syscall.Close(p[0])
	if pid < 0 {
		syscall.Close(p[1])
		return 0, fmt.Errorf("teardown keeper: clone: %w", syscall.Errno(-pid))
	}
	// p[1] stays open, unused, for the process's life: its close is the keeper's signal.
	return pid, nil
}
