package view

import (
	"strings"
	"testing"

	"baton/host"
)

func TestPrefKeyAndSizes(t *testing.T) {
	a, b := PrefKey("/home/a", "width"), PrefKey("/home/b", "width")
	if a == b || a != PrefKey("/home/a", "width") || !strings.HasPrefix(a, "home.") || !strings.HasSuffix(a, ".width") || len(a) != len("home.")+16+len(".width") {
		t.Errorf("PrefKey: %q and %q: want a stable key per home", a, b)
	}
	for _, c := range []struct {
		w, h   float64
		ww, wh float32
	}{{1180, 760, 1180, 760}, {100, 50, MinWidth, MinHeight}, {479, 2000, MinWidth, 2000}} {
		if w, h := RestoredSize(c.w, c.h); w != c.ww || h != c.wh {
			t.Errorf("RestoredSize(%v, %v) = %v×%v, want %v×%v", c.w, c.h, w, h, c.ww, c.wh)
		}
	}
	for _, c := range []struct {
		w, h float32
		want bool
	}{{1, 1, false}, {99, 500, false}, {500, 99, false}, {100, 100, true}} {
		if got := WorthSaving(c.w, c.h); got != c.want {
			t.Errorf("WorthSaving(%v, %v) = %v", c.w, c.h, got)
		}
	}
	if s := AboutText("1.2", host.Status{Home: "/h", PID: 9}, nil); !strings.HasPrefix(s, "Baton 1.2\n") || !strings.HasSuffix(s, "Home: /h\nThis window: pid 9") {
		t.Errorf("about %q", s)
	}
}
