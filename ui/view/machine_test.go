package view

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"baton/store"
	"baton/store/etcdhome"
)

// A run on an etcd home names its machine in its row and facts (issue 21); a folder
// home's run, which has none, reads as it always did.
func TestRunsNameTheirMachine(t *testing.T) {
	now := time.Date(2026, 3, 1, 14, 30, 0, 0, time.Local)
	long := strings.Repeat("rack-", 12) + "host"
	for _, c := range []struct {
		name              string
		run               store.Run
		self              int
		row, owner, super string
		machine           string
	}{
		{"folder home", store.Run{OwnerPID: 812, SupervisorPID: 813}, 1, "pid 812", "pid 812", "supervisor pid 813", ""},
		{"etcd home", store.Run{OwnerPID: 812, SupervisorPID: 813, Machine: "laptop"}, 1,
			"pid 812 on laptop", "pid 812 on laptop", "supervisor pid 813 on machine laptop", ""},
		{"this window", store.Run{OwnerPID: 812, Machine: "laptop"}, 812, "pid 812 on laptop (this window)", "pid 812 on laptop (this window)", "", ""},
		{"long name", store.Run{OwnerPID: 812, SupervisorPID: 813, Machine: long}, 1,
			"pid 812 on " + MachineShort(long), "pid 812 on " + MachineShort(long), "supervisor pid 813 on machine " + MachineShort(long), long},
	} {
		c.run.Status = store.StatusRunning
		if got := RowOf(&c.run, c.self, now).Owner; got != c.row {
			t.Errorf("%s: row %q, want %q", c.name, got, c.row)
		}
		f := FactsOf(&c.run, c.self, now)
		if f.Owner != c.owner || f.Supervisor != c.super || f.Machine != c.machine {
			t.Errorf("%s: facts %q, %q, %q; want %q, %q, %q", c.name, f.Owner, f.Supervisor, f.Machine, c.owner, c.super, c.machine)
		}
	}
	if s := MachineShort(long); utf8.RuneCountInString(s) != MaxMachineShown || !strings.HasSuffix(s, "…") {
		t.Errorf("MachineShort(%q) = %q: want %d characters ending in an ellipsis", long, s, MaxMachineShown)
	}
	if s := MachineShort("laptop"); s != "laptop" {
		t.Errorf("MachineShort(laptop) = %q", s)
	}
}

// The log pane's first line says where the whole log is; a full tail starts at its first
// whole line.
func TestRemoteLogHeaderAndText(t *testing.T) {
	want := "The whole log is on machine laptop (/c/r1.log); this is its last 64 KiB, updated at most once a second."
	if got := RemoteLogHeader("laptop", "machine laptop, /c/r1.log"); got != want {
		t.Errorf("header %q, want %q", got, want)
	}
	full := "cut line\n" + strings.Repeat("x", etcdhome.LogTailSize-len("cut line\n")-1) + "\n"
	if got := RemoteLogText([]byte(full)); strings.HasPrefix(got, "cut line") {
		t.Errorf("a full tail starts mid-line: %.20q", got)
	}
	if got := RemoteLogText([]byte("a\nb\n")); got != "a\nb\n" {
		t.Errorf("a short tail (the whole log) shows %q", got)
	}
}
