package ui

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

// TestRoleBarLayout pins the role bar's layout (icon, tint, bold text) in each role as
// golden markup under testdata/rolebar/.
func TestRoleBarLayout(t *testing.T) {
	isolate(t)
	test.NewTempApp(t)
	now := time.Date(2026, 5, 4, 14, 30, 0, 0, time.Local)
	doc := &store.Doc{Writer: &store.Owner{PID: 77, Since: time.Date(2026, 5, 4, 14, 2, 0, 0, time.Local)}}
	tk := host.Takeover{Epoch: 3, OldOwner: &store.Owner{PID: 41}, TookMS: 41, Completed: now,
		Reaped: []workflow.Orphan{{Action: "failed"}, {Action: "failed"}}}
	for _, c := range []struct {
		file string
		st   host.Status
	}{
		{"rolebar/reader.xml", host.Status{Role: host.RoleReader, WriterPID: 77}},
		{"rolebar/promoting.xml", host.Status{Role: host.RolePromoting}},
		{"rolebar/writer.xml", host.Status{Role: host.RoleWriter}},
	} {
		b := newRoleBar()
		b.set(c.st.Role, RoleText(c.st, tk, doc, now))
		w := test.NewWindow(b.obj)
		w.Resize(fyne.NewSize(640, 60))
		test.AssertRendersToMarkup(t, c.file, w.Canvas())
		w.Close()
	}
}
