package ui

import (
	"bytes"
	"time"

	"baton/ui/view"
)

// A run on an etcd home runs on one machine and keeps its whole log there; the last
// 64 KiB of it are kept in etcd, put at most once a second (store/etcdhome.LogTail). For
// a run whose log is not on this machine the tail reads that (Core.RemoteLogTail) instead
// of the file, no more than once per RemoteLogEvery, and the log pane shows it under a
// line saying where the whole log is (LogPane.showRemote).

// RemoteLogEvery is the least time between two reads of a remote log's tail: etcd holds
// a new one at most once a second.
const RemoteLogEvery = time.Second

// remoteState is what the tail knows of the remote log of the run it follows.
type remoteState struct {
	local  bool      // the core said the log is on this machine: the file is read
	asked  time.Time // the last read from etcd began
	final  bool      // a read began after the run ended, and succeeded: the tail changes no more
	shown  bool      // a chunk was handed to the pane
	last   []byte    // the tail handed last
	failed bool      // the last read failed
}

// remoteRead says where a remote log is, for the pane's first line.
type remoteRead struct {
	header string // view.RemoteLogHeader, or view.RemoteLogError
	failed bool   // the tail could not be read: the pane keeps what it shows
}

// readRemote reads the tail of the followed run's log from etcd when that log is on
// another machine (remote: the caller reads no file); a chunk only when it changed.
// Ticker goroutine.
func (t *tail) readRemote() (c logChunk, remote bool) {
	t.mu.Lock()
	run, gen, st := t.run, t.gen, t.remote
	if run.Machine == "" || st.local || t.remoteTail == nil { // a folder home's runs have no machine
		t.mu.Unlock()
		return logChunk{}, false
	}
	now := time.Now()
	if st.final || (!st.asked.IsZero() && now.Sub(st.asked) < RemoteLogEvery) {
		t.mu.Unlock()
		return logChunk{}, true
	}
	t.remote.asked = now
	ended := !run.Active()
	fn := t.remoteTail
	t.mu.Unlock()

	data, where, isRemote, err := fn(&run)

	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gen != gen {
		return logChunk{}, true // the pane follows another run now
	}
	if !isRemote {
		t.remote.local = true
		return logChunk{}, false
	}
	r := &t.remote
	if err != nil {
		if r.failed && r.shown {
			return logChunk{}, true // said so already
		}
		r.failed, r.shown = true, true
		return logChunk{gen: gen, remote: &remoteRead{header: view.RemoteLogError(run.Machine, where, err), failed: true}}, true
	}
	r.final = ended
	if r.shown && !r.failed && bytes.Equal(data, r.last) {
		return logChunk{}, true
	}
	r.shown, r.failed, r.last = true, false, data
	return logChunk{gen: gen, data: data, remote: &remoteRead{header: view.RemoteLogHeader(run.Machine, where)}}, true
}
