//go:build batontest

package store

import "testing"

// A list of crash points or durability points is read name by name.
func TestParseList(t *testing.T) {
	if m := parseList(""); m != nil {
		t.Fatalf("armed by an empty list: %v", m)
	}
	if m := parseList("save.after-fsync, save.after-rename"); len(m) != 2 || !m["save.after-fsync"] || !m["save.after-rename"] {
		t.Fatalf("not armed: %v", m)
	}
}
