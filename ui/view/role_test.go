package view

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

// The role crosses the control channel as a string and back as the same typed role.
func TestRoleRoundTripsThroughJSON(t *testing.T) {
	for _, r := range []host.Role{host.RoleReader, host.RolePromoting, host.RoleWriter, host.RoleClosed} {
		b, err := json.Marshal(host.Status{Role: r})
		if err != nil {
			t.Fatal(err)
		}
		var st host.Status
		if err := json.Unmarshal(b, &st); err != nil || RoleOf(st) != r {
			t.Errorf("%s: %s -> %v (%v)", r, b, st.Role, err)
		}
	}
	var st host.Status
	if err := json.Unmarshal([]byte(`{"role":"Writer"}`), &st); err == nil {
		t.Errorf("a role no window spells was read as %v", st.Role)
	}
}

func TestWritableAndTone(t *testing.T) {
	for _, c := range []struct {
		role     host.Role
		writable bool
		tone     Tone
	}{
		{host.RoleReader, false, ToneWarning},
		{host.RolePromoting, false, TonePrimary},
		{host.RoleWriter, true, ToneSuccess},
		{host.RoleClosed, false, ToneDisabled},
	} {
		if got := Writable(host.Status{Role: c.role}); got != c.writable {
			t.Errorf("Writable(%v) = %v, want %v", c.role, got, c.writable)
		}
		if got := RoleTone(c.role); got != c.tone {
			t.Errorf("RoleTone(%v) = %v, want %v", c.role, got, c.tone)
		}
	}
}

func TestRoleText(t *testing.T) {
	now := at(14, 30, 0)
	doc := &store.Doc{Writer: &store.Owner{PID: 77, Since: at(14, 2, 0)}}
	tk := host.Takeover{Epoch: 3, OldOwner: &store.Owner{PID: 41}, TookMS: 41, Completed: now.Add(-time.Minute),
		Reaped: []workflow.Orphan{{Action: "failed"}, {Action: "failed"}}}
	w := host.RoleWriter
	for _, c := range []struct {
		name string
		st   host.Status
		tk   host.Takeover
		doc  *store.Doc
		now  time.Time
		want string
	}{
		{"reader with a known writer", host.Status{Role: host.RoleReader, WriterPID: 77}, host.Takeover{}, doc, now,
			"Read-only: window pid 77 on this computer is writing (since 14:02)"},
		{"reader, doc names another writer", host.Status{Role: host.RoleReader, WriterPID: 78}, host.Takeover{}, doc, now,
			"Read-only: window pid 78 on this computer is writing"},
		{"reader without a doc", host.Status{Role: host.RoleReader, WriterPID: 77}, host.Takeover{}, nil, now,
			"Read-only: window pid 77 on this computer is writing"},
		{"reader, no writer", host.Status{Role: host.RoleReader}, host.Takeover{}, doc, now, "Read-only: waiting for the writer"},
		{"reader with a problem", host.Status{Role: host.RoleReader, WriterPID: 77, Problem: "workflows.json is unreadable"}, host.Takeover{}, doc, now,
			"Read-only: workflows.json is unreadable"},
		// An etcd home (issue 21): the writer may be on another machine, and etcd may be
		// out of reach, which makes every window read-only, the writer too.
		{"reader, writer on another machine", host.Status{Role: host.RoleReader, WriterPID: 77, WriterMachine: "laptop"}, host.Takeover{}, doc, now,
			"Read-only: machine laptop, window pid 77, is writing (since 14:02)"},
		{"reader, etcd unreachable", host.Status{Role: host.RoleReader, WriterPID: 77, WriterMachine: "laptop", Problem: "etcd unreachable since 14:02"},
			host.Takeover{}, doc, now, "Read-only: etcd unreachable since 14:02"},
		{"writer, etcd unreachable", host.Status{Role: w, WriterPID: 9, WriterMachine: "desk", Problem: "etcd unreachable since 14:02"}, tk, doc, now,
			"Read-only: etcd unreachable since 14:02"},
		{"writer after a takeover", host.Status{Role: w}, tk, doc, now,
			"Writer — took over from pid 41, failed 2 runs it left running, 41 ms"},
		{"writer, note expired", host.Status{Role: w}, tk, doc, now.Add(TakeoverNoteFor), "Writer"},
		{"writer that never took over", host.Status{Role: w}, host.Takeover{}, doc, now, "Writer"},
		{"first writer (no old owner)", host.Status{Role: w}, host.Takeover{Epoch: 1, Completed: now}, doc, now, "Writer"},
		{"promoting", host.Status{Role: host.RolePromoting}, tk, doc, now, "Taking over…"},
		{"closed", host.Status{Role: host.RoleClosed}, tk, doc, now, "Closed"},
	} {
		if got := RoleText(c.st, c.tk, c.doc, c.now); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestTakeoverText(t *testing.T) {
	for _, c := range []struct {
		tk   host.Takeover
		want string
	}{
		{host.Takeover{TookMS: 1.25}, "became the writer, no runs were left running, 1.2 ms"},
		{host.Takeover{OldOwner: &store.Owner{PID: 5}, TookMS: 12.6, Reaped: []workflow.Orphan{{Action: "requeued"}}},
			"took over from pid 5, re-queued 1 run it left running, 13 ms"},
		{host.Takeover{OldOwner: &store.Owner{PID: 5}, TookMS: 9, Reaped: []workflow.Orphan{{Action: "failed"}, {Action: "requeued"}, {Action: "requeued"}}},
			"took over from pid 5, failed 1 run and re-queued 2 runs it left running, 9.0 ms"},
		{host.Takeover{OldOwner: &store.Owner{PID: 5}, TookMS: 9, Reaped: []workflow.Orphan{{Action: workflow.ActionRecorded}},
			Adopted: []workflow.Orphan{{Action: workflow.ActionAdopted}, {Action: workflow.ActionAdopted}}},
			"took over from pid 5, adopted 2 runs still going, recorded 1 run that finished meanwhile, 9.0 ms"},
		{host.Takeover{OldOwner: &store.Owner{PID: 5}, TookMS: 9, Reaped: []workflow.Orphan{{Action: workflow.ActionFailed}},
			Adopted: []workflow.Orphan{{Action: workflow.ActionAdopted}}},
			"took over from pid 5, failed 1 run it left running, adopted 1 run still going, 9.0 ms"},
	} {
		if got := TakeoverText(c.tk); got != c.want {
			t.Errorf("TakeoverText = %q, want %q", got, c.want)
		}
	}
}

func TestReadOnlyReason(t *testing.T) {
	for _, c := range []struct {
		st   host.Status
		want string // "" for none; else a part of the reason
	}{
		{host.Status{Role: host.RoleWriter, WriterPID: 3}, ""},
		{host.Status{Role: host.RolePromoting}, "takes over"},
		{host.Status{Role: host.RoleClosed}, "This window is closed."},
		{host.Status{Role: host.RoleReader, Problem: "bad file"}, "Read-only: bad file"},
		{host.Status{Role: host.RoleReader, WriterPID: 3}, "make changes in window pid 3"},
		{host.Status{Role: host.RoleReader}, "until this window becomes the writer"},
	} {
		got := ReadOnlyReason(c.st)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("ReadOnlyReason(%+v) = %q, want %q", c.st, got, c.want)
		}
	}
}
