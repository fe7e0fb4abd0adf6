package ui

import (
	"os"
	"runtime/debug"
	"time"

	"baton/host"
)

// SteadyGCPercent is the Go collector's target (GOGC) once a window's start is over: the
// heap may grow by a quarter over what is live before the next collection, not double.
//
// Why: a settled window's live heap is mostly fonts and widgets (about 24 MB on a big
// home) and it allocates little while idle, so collections stay rare and cheap; with
// Go's default of 100 the runtime would keep up to twice the live heap resident, which
// on this window is more than every other part of Baton's own memory. The start keeps
// the default, where a big home's decoding and the first layout would otherwise collect
// several times over. A person's GOGC is left alone.
const SteadyGCPercent = 25

// StartGCPercent is the collector's target while a window starts: the heap may grow to
// five times what is live before the next collection. A start allocates tens of megabytes
// in a burst (decoding, the first layout, text shaping, the first frames), and with Go's
// default of 100 it collected several times on the way, on the second core the start
// would otherwise have: CPU to the first frame 430 → 300 ms and the first frame 0.59 →
// 0.43 s on the big home (BenchmarkLaunchUnderXvfb, GOGC=400 against the default). The
// steady target follows SettleDelay after the role settles, with the memory handed back.
const StartGCPercent = 400

// SettleDelay is how long after its role settles a window's start counts as over: its
// first frames are drawn by then.
const SettleDelay = time.Second

// StartMemory sets the collector's target for a window's start, unless the person set
// GOGC. main calls it before it opens the home.
func StartMemory() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(StartGCPercent)
	}
}

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
	time.AfterFunc(SettleDelay, func() { // a full collection: not on the UI goroutine
		select {
		case <-m.stop: // closed meanwhile: nothing to settle for
		default:
			settleMemory()
		}
	})
}

// settleMemory sets the steady collector target and frees what the start left; tests
// count its calls.
var settleMemory = func() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(SteadyGCPercent)
	}
	debug.FreeOSMemory()
}
