package view

import (
	"fmt"
	"strings"

	"baton/store/etcdhome"
)

// A run on an etcd home keeps its whole log on the machine that ran it; the last
// etcdhome.LogTailSize bytes of it are kept in etcd, put at most once a second. A window
// on another machine shows that tail, and says so.

// RemoteLogHeader is the log pane's first line for a run whose log is on another machine:
// where the whole log is (the core's where: "machine laptop, /path/r12.log") and what is
// shown instead.
func RemoteLogHeader(machine, where string) string {
	if path, ok := strings.CutPrefix(where, "machine "+machine+", "); ok {
		where = fmt.Sprintf("machine %s (%s)", machine, path)
	}
	return fmt.Sprintf("The whole log is on %s; this is its last %s, updated at most once a second.", where, tailSize())
}

// RemoteLogError is the header when the tail cannot be read from etcd now; the pane
// keeps what it read before and tries again.
func RemoteLogError(machine, where string, err error) string {
	return RemoteLogHeader(machine, where) + " It cannot be read from etcd now (" + ErrText(err) + "): trying again."
}

// RemoteLogWait is what the log pane says of a run on another machine until the first
// read of its tail from etcd.
func RemoteLogWait(machine string) string {
	return fmt.Sprintf("(This run runs on machine %s: reading the last %s of its log from etcd…)\n", machine, tailSize())
}

// RemoteLogNote ends what Find and Copy say of a remote log: they saw the tail only.
func RemoteLogNote() string {
	return fmt.Sprintf(" (in the last %s of the log, kept in etcd: the whole log is on the machine that ran it)", tailSize())
}

// RemoteLogText is what the pane shows of tail: from its first whole line when the tail
// is full (the put cut the log mid-line), else all of it.
func RemoteLogText(tail []byte) string {
	if len(tail) >= etcdhome.LogTailSize {
		if i := strings.IndexByte(string(tail), '\n'); i >= 0 && i+1 < len(tail) {
			return string(tail[i+1:])
		}
	}
	return string(tail)
}

func tailSize() string { return fmt.Sprintf("%d KiB", etcdhome.LogTailSize>>10) }
