//go:build no_metadata

package build

// NoMetadata is true if the compiler flags have turned off metadata support.
const NoMetadata = true
