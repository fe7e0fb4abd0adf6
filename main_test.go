package main

import (
	"bytes"
	"strings"
	"testing"
)

// An empty --home is a usage error (exit 2) for the window, headless, tick and every
// command; it never means the default home.
func TestEmptyHomeIsUsageError(t *testing.T) {
	for _, args := range [][]string{{"--home", ""}, {"--headless", "--home="}, {"tick", "--once", "--home", ""}, {"status", "--home", ""}} {
		var out, errb bytes.Buffer
		if code := run(args, strings.NewReader(""), &out, &errb); code != 2 || !strings.Contains(errb.String(), "--home is empty") {
			t.Errorf("baton %q: exit %d, %q; want 2", args, code, errb.String())
		}
	}
}
