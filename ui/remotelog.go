package ui

import (
	"bytes"
	"time"

	"baton/store"
	"baton/ui/view"
)

// A run on an etcd home runs on one machine and keeps its whole log there; the last
// 64 KiB of it are kept in etcd, put at most once a second (store/etcdhome.LogTail). For
// a run whose log is not on this machine the tail reads that (Core.RemoteLogTail) instead
// of the file, no more than once per RemoteLogEvery (from the end of one read to the
// start of the next), and the log pane shows it under a line saying where the whole log
// is (LogPane.showRemote).

// RemoteLogEvery is the least time between two reads of a remote log's tail: etcd holds
// a new one at most once a second.
const RemoteLogEvery = time.Second

// remoteState is what the tail knows of the remote log of the run it follows.
type remoteState struct {
	local  bool         // the core said the log is on this machine: the file is read
	busy   bool         // a read from etcd is under way
	done   time.Time    // the last read from etcd ended
	got    *remoteReply // what the last read found, not handed on yet
	known  bool         // a read said the log is on another machine
	final  bool         // a read began after the run ended, and succeeded: the tail changes no more
	shown  bool         // a chunk was handed to the pane
	last   []byte       // the tail handed last
	failed bool         // the last read failed
}

// remoteReply is what one read of a remote tail found.
type remoteReply struct {
	data   []byte
	where  string
	remote bool
	err    error
	ended  bool // the run had ended when the read began
}

// remoteRead says where a remote log is, for the pane's first line.
type remoteRead struct {
	header string // view.RemoteLogHeader, or view.RemoteLogError
	failed bool   // the tail could not be read: the pane keeps what it shows
}

// readRemote hands on what the last read of the followed run's tail from etcd found,
// when the run's log is on another machine (remote: the caller reads no file), and
// starts the next read on its own goroutine, RemoteLogEvery after the last one ended:
// an etcd out of reach blocks a read for seconds, and the ticker must go on. Until the
// first read answers the file is read, as for any run. Ticker goroutine.
func (t *tail) readRemote() (c logChunk, remote bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	run, gen, r := t.run, t.gen, &t.remote
	if run.Machine == "" || r.local || t.remoteTail == nil { // a folder home's runs have no machine
		return logChunk{}, false
	}
	if got := r.got; got != nil {
		r.got = nil
		c = r.take(run.Machine, gen, got)
	}
	if !r.busy && !r.final && !r.local && time.Since(r.done) >= RemoteLogEvery {
		r.busy = true
		go t.askRemote(t.remoteTail, run, gen)
	}
	return c, r.known
}

// askRemote reads run's tail from etcd and keeps what it found for readRemote.
func (t *tail) askRemote(fn func(*store.Run) ([]byte, string, bool, error), run store.Run, gen uint64) {
	reply := &remoteReply{ended: !run.Active()}
	reply.data, reply.where, reply.remote, reply.err = fn(&run)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gen != gen {
		return // the pane follows another run now (follow cleared the state)
	}
	t.remote.busy, t.remote.done, t.remote.got = false, time.Now(), reply
}

// take turns a reply into what the pane shows: a chunk only when it changed. t.mu held.
func (r *remoteState) take(machine string, gen uint64, got *remoteReply) logChunk {
	if !got.remote {
		r.local = true
		return logChunk{}
	}
	r.known = true
	if got.err != nil {
		if r.failed && r.shown {
			return logChunk{} // said so already
		}
		r.failed, r.shown = true, true
		return logChunk{gen: gen, remote: &remoteRead{header: view.RemoteLogError(machine, got.where, got.err), failed: true}}
	}
	r.final = got.ended
	if r.shown && !r.failed && bytes.Equal(got.data, r.last) {
		return logChunk{}
	}
	r.shown, r.failed, r.last = true, false, got.data
	return logChunk{gen: gen, data: got.data, remote: &remoteRead{header: view.RemoteLogHeader(machine, got.where)}}
}
