//go:build !linux || !cgo

package proc

import "errors"

// DetachTeardown needs cgo on Linux (see teardown_cgo_linux.go); here it does nothing.
func DetachTeardown() (keeper int, err error) {
	return 0, errors.ErrUnsupported
}
