//go:build cgo && linux

package ui

/*
#include <stdlib.h>

// keep_shader_cache_off sets MESA_SHADER_CACHE_DISABLE=true in the C environment only,
// unless it is set there already (a person's own choice wins).
static void keep_shader_cache_off(void) {
	setenv("MESA_SHADER_CACHE_DISABLE", "true", 0);
}
*/
import "C"

// Mesa's on-disk shader cache writes from threads it runs at nice 19 ("disk$0"…"disk$3"),
// and a process killed with -9 closes its files, state.lock among them, only when its
// last thread has exited. On a loaded machine a nice-19 thread is the last to get a core:
// a dead desktop writer held state.lock up to 95 ms after kill -9 (a headless one, with no
// such threads, a few ms), and every takeover from it waited (issue 22, bug 9). With the
// cache off Mesa starts no such thread; the window's few shaders are compiled at launch.
//
// The setting goes into the C environment, which Mesa reads, and not into Go's, from
// which steps and supervisors take theirs: a person's workflow keeps its own GL cache.
func init() {
	C.keep_shader_cache_off()
}
