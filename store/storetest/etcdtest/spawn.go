package etcdtest

import (
	"os/exec"
	"runtime"
	"sync"
)

// Member processes die with the test process: each is started with Pdeathsig SIGKILL, so
// even a test binary killed with SIGKILL (a timeout, a crash) leaves no etcd behind.
//
// Pdeathsig fires when the *thread* that forked the child ends, not the process. Go may end
// a thread (a goroutine that locked it and returned), so every member is forked from one
// goroutine locked to its thread for the life of the process: that thread never ends before
// the process does.
var spawner struct {
	once sync.Once
	reqs chan spawnReq
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// startChild starts cmd from the spawner's thread, dying with this process.
func startChild(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.reqs = make(chan spawnReq)
		go spawnLoop(spawner.reqs)
	})
	dieWithParent(cmd)
	r := spawnReq{cmd: cmd, done: make(chan error, 1)}
	spawner.reqs <- r
	return <-r.done
}

// spawnLoop owns its OS thread forever (it never unlocks and never returns).
func spawnLoop(reqs <-chan spawnReq) {
	runtime.LockOSThread()
	for r := range reqs {
		r.done <- r.cmd.Start()
	}
}
