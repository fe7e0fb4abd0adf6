//go:build !batontest

package host

import "baton/store"

// Baton's own build: no test hooks (see hooks_on.go).

func skipTakeoverReread() bool                                           { return false }
func statfsType(path string) (int64, error)                              { return statfs(path) }
func handOverHook(*Core)                                                 {}
func ackUnsaved(*Term, func(*store.Doc) error, error) (*store.Doc, bool) { return nil, false }
