package ui

import (
	"runtime/debug"

	"baton/host"
)

// releaseStartupMemory hands the memory the window's start used and no longer needs back
// to the system, once: when the window first shows a settled role (writer or reader), its
// start is over. UI goroutine.
//
// Why: opening a home decodes workflows.json, and a writer's takeover decodes, archives
// and saves it again; with 10,000 runs that is about a hundred megabytes of garbage at the
// peak. The Go runtime keeps freed memory mapped and gives it back only slowly, so a
// window that opened a big home sat at twice the memory it uses, idle.
func (m *Main) releaseStartupMemory() {
	if m.released || (m.st.Role != host.RoleWriter && m.st.Role != host.RoleReader) {
		return
	}
	m.released = true
	go freeOSMemory() // a full collection: not on the UI goroutine
}

// freeOSMemory is debug.FreeOSMemory; tests count its calls.
var freeOSMemory = debug.FreeOSMemory
