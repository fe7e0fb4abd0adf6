//go:build !race

package host

// raceBuild is true when the test binary runs under the race detector (see race_on_test.go).
const raceBuild = false
