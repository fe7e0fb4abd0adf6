package view

import (
	"slices"
	"testing"
)

// TestSplitWords (issue 12, usability 10): a command line splits as a shell would split
// it, with no expansion; an open quote is an error.
func TestSplitWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"ls -la /tmp", []string{"ls", "-la", "/tmp"}},
		{"  rsync  -a\t'/my photos' \"/backup/$HOME\"  ", []string{"rsync", "-a", "/my photos", "/backup/$HOME"}},
		{`echo "say \"hi\"" it\'s a\ b`, []string{"echo", `say "hi"`, "it's", "a b"}},
		{`printf '%s\n' "" x`, []string{"printf", `%s\n`, "", "x"}},
		{`a"b"'c'd`, []string{"abcd"}},
		{"ls *.go ~", []string{"ls", "*.go", "~"}},
		{"", nil},
	} {
		got, err := SplitWords(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("SplitWords(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`echo 'open`, `echo "open`, `echo "a\"`} {
		if got, err := SplitWords(bad); err == nil {
			t.Errorf("SplitWords(%q) = %q, want an error", bad, got)
		}
	}
}

func TestSplitCommand(t *testing.T) {
	if got, ok := SplitCommand([]string{"ls -la", "/tmp", ""}); !ok || !slices.Equal(got, []string{"ls", "-la", "/tmp", ""}) {
		t.Errorf("split = %q, %v", got, ok)
	}
	for _, argv := range [][]string{nil, {""}, {"ls"}, {"ls", "-la /tmp"}, {"echo 'open"}} {
		if got, ok := SplitCommand(argv); ok {
			t.Errorf("SplitCommand(%q) offers %q", argv, got)
		}
	}
}
