//go:build race

package workflow

// raceBuild is true under the race detector, which makes the DST table (pure computation,
// no goroutines) about ten times slower: it then checks a tenth of the zones, always
// including the ones README.md in this folder names. The full table runs in every other build.
const raceBuild = true
