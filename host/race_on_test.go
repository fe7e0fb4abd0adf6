//go:build race

package host

// raceBuild is true when the test binary runs under the race detector, which slows every
// window by several times: the chaos harness then expects less throughput (writes, reads),
// never fewer kills, hand-overs or adoptions.
const raceBuild = true
