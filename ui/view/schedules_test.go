package view

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

func TestScheduleRow(t *testing.T) {
	now := at(12, 0, 0)
	for _, c := range []struct {
		sc   store.Schedule
		want ScheduleRow
	}{
		{store.Schedule{Workflow: "backup", Every: store.Duration(time.Hour), NextDue: at(13, 0, 0), Overlap: "skip", CatchUp: "latest"},
			ScheduleRow{Title: "backup · every 1h0m0s", Detail: "next 13:00 · never ran · overlap skip · catch-up latest"}},
		{store.Schedule{Workflow: "report", Cron: "0 3 * * *", TZ: "Europe/Paris", Paused: true, LastStatus: store.StatusFailed,
			NextDue: at(3, 0, 0).AddDate(0, 0, 1), Overlap: "queue", CatchUp: "none"},
			ScheduleRow{Title: "report · cron 0 3 * * * (Europe/Paris)", Detail: "paused · last failed · overlap queue · catch-up none", Paused: true}},
		{store.Schedule{Workflow: "w", Cron: "*/5 * * * *", NextDue: at(3, 0, 0).AddDate(0, 0, 1), LastStatus: store.StatusSucceeded},
			ScheduleRow{Title: "w · cron */5 * * * *", Detail: "next 5 May 03:00 · last succeeded · overlap  · catch-up "}},
	} {
		if got := ScheduleRowOf(&c.sc, now); got != c.want {
			t.Errorf("row:\n got %+v\nwant %+v", got, c.want)
		}
	}
}

func TestScheduleFormRoundTrip(t *testing.T) {
	wm := "w1"
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "report"}},
		Schedules: []store.Schedule{{ID: "s1", Workflow: "report", Every: store.Duration(time.Hour), Paused: true, Watermark: &wm,
			CatchUpWindow: store.Duration(time.Minute), MaxRuntime: store.Duration(90 * time.Minute), Overlap: "skip", CatchUp: "all", OnOverrun: "cancel"}}}
	f := ScheduleFormOf(&doc.Schedules[0])
	if f.Every != "1h0m0s" || f.MaxRuntime != "1h30m0s" || f.Cron != "" || f.ID != "s1" {
		t.Fatalf("form %+v", f)
	}
	f.Cron, f.TZ = " 0 3 * * * ", " UTC "
	f.Every = ""
	sc, problems := f.Draft(doc)
	if len(problems) != 0 || sc.Cron != "0 3 * * *" || sc.TZ != "UTC" || sc.Every != 0 || sc.MaxRuntime.D() != 90*time.Minute {
		t.Errorf("draft %+v, problems %v", sc, problems)
	}
	// What the form does not show is kept from the saved schedule.
	if !sc.Paused || sc.Watermark != &wm || sc.CatchUpWindow.D() != time.Minute || sc.OnOverrun != "cancel" || sc.CatchUp != "all" {
		t.Errorf("draft lost the saved schedule's hidden fields: %+v", sc)
	}
	for _, c := range []struct {
		every, max string
		want       map[string]string
	}{
		{"soon", "", map[string]string{"every": `must be a duration such as 15m or 1h, not "soon"`}},
		{"1h", "-1h", map[string]string{"max_runtime": `must be a duration such as 15m or 1h, not "-1h"`}},
		{"soon", "-1h", map[string]string{"every": `must be a duration such as 15m or 1h, not "soon"`,
			"max_runtime": `must be a duration such as 15m or 1h, not "-1h"`}},
	} {
		f := ScheduleForm{Workflow: "report", Every: c.every, MaxRuntime: c.max}
		if _, problems := f.Draft(doc); !maps.Equal(problems, c.want) {
			t.Errorf("Draft(every %q, max %q) problems %v, want %v", c.every, c.max, problems, c.want)
		}
	}
	if d := DurText(0); d != "" {
		t.Errorf("DurText(0) = %q", d)
	}
}

func TestScheduleCheck(t *testing.T) {
	now := time.Date(2026, 5, 4, 12, 0, 0, 0, time.Local)
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "report"}}}
	nightly := ScheduleForm{Workflow: "report", Cron: "0 3 * * *"}
	c := nightly.Check(doc, now)
	if !c.Valid() || strings.Count(c.Preview, "03:00") != 5 || strings.Count(c.Preview, "\n") != 4 || c.KeepPreview {
		t.Errorf("nightly: %+v, want 5 times at 03:00", c)
	}
	for _, f := range []ScheduleForm{
		{Workflow: "report", Cron: "0 3 * * *", Every: "1h"}, // the core's "not both"
		{Workflow: "gone", Every: "1h"},                      // the core's "no workflow"
		{Workflow: "report", Every: "later"},                 // does not parse
	} {
		c := f.Check(doc, now)
		if c.Valid() || c.Preview != "—" || c.KeepPreview {
			t.Errorf("Check(%+v) = %+v, want a problem and no preview", f, c)
		}
	}
	if c := (&ScheduleForm{Workflow: "report", Cron: "0 3 * * *", Every: "1h"}).Check(doc, now); c.Problems["every"] != "give either every or cron, not both" {
		t.Errorf("problems %v, want the core's words beside every, without a prefix", c.Problems)
	}
}

// TestScheduleCheckEveryProblemBesideItsField: every problem of a schedule draft is keyed
// by its field, at once, in plain words: a cron expression's problem names which of its
// fields is wrong, never the cron library's text.
func TestScheduleCheckEveryProblemBesideItsField(t *testing.T) {
	now := time.Date(2026, 5, 4, 12, 0, 0, 0, time.Local)
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "report"}}}
	f := ScheduleForm{Workflow: "gone", Cron: "61 * * * *", TZ: "Mars/Base", MaxRuntime: "x", Overlap: "sideways"}
	c := f.Check(doc, now)
	want := map[string]string{
		"workflow":    `no workflow named "gone"`,
		"cron":        "minute must be 0–59, got 61",
		"tz":          `unknown time zone "Mars/Base"; use a name such as Europe/Paris or UTC`,
		"max_runtime": `must be a duration such as 15m or 1h, not "x"`,
		"overlap":     `must be skip, queue, allow or replace, got "sideways"`,
	}
	if !maps.Equal(c.Problems, want) {
		t.Errorf("problems:\n got %v\nwant %v", c.Problems, want)
	}
	for k := range c.Problems {
		if !slices.Contains(ScheduleFields, k) {
			t.Errorf("problem for %q, a field the form does not have", k)
		}
	}
	has := func(k string) bool { return slices.Contains(ScheduleFields, k) }
	if got := FixText(c.Problems, has); got != "Fix the 5 problems marked below." {
		t.Errorf("FixText = %q", got)
	}
}

func TestScheduleControls(t *testing.T) {
	writer, reader := host.Status{Role: host.RoleWriter}, host.Status{Role: host.RoleReader, WriterPID: 5}
	doc := &store.Doc{Schedules: []store.Schedule{{ID: "s1"}, {ID: "s2", Paused: true}}}
	for _, c := range []struct {
		name                    string
		w                       bool
		st                      host.Status
		id                      string
		open, dirty, valid      bool
		save, pause, del, resum bool
		note                    bool
	}{
		{"writer, new valid draft", true, writer, "", true, true, true, true, false, false, false, false},
		{"writer, new invalid draft", true, writer, "", true, true, false, false, false, false, false, false},
		{"writer, saved, unedited", true, writer, "s1", true, false, true, false, true, true, false, false},
		{"writer, saved, edited", true, writer, "s1", true, true, true, true, true, true, false, false},
		{"writer, paused", true, writer, "s2", true, false, true, false, true, true, true, false},
		{"reader, edited", false, reader, "s1", true, true, true, false, false, false, false, true},
		{"reader, nothing open", false, reader, "", false, false, false, false, false, false, false, false},
	} {
		got := ScheduleControlsFor(c.w, c.st, doc, c.id, c.open, c.dirty, c.valid)
		if got.Save != c.save || got.Pause != c.pause || got.Delete != c.del || got.Resume != c.resum || got.ShowNote != c.note || (got.Note != "") != c.note {
			t.Errorf("%s: %+v", c.name, got)
		}
		if c.note && got.Note != ReadOnlyReason(c.st) {
			t.Errorf("%s: note %q, want the read-only reason", c.name, got.Note)
		}
	}
}

func TestScheduleFollowAndNew(t *testing.T) {
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "first"}, {Name: "second"}}, Schedules: []store.Schedule{{ID: "s1"}}}
	if sc, msg := ScheduleFollow(doc, "s1", true, false); sc != &doc.Schedules[0] || msg != "" {
		t.Errorf("unedited: %v %q, want the saved schedule", sc, msg)
	}
	if sc, msg := ScheduleFollow(doc, "s9", true, false); sc != nil || msg != "The schedule was deleted." {
		t.Errorf("deleted: %v %q", sc, msg)
	}
	for _, c := range []struct {
		id          string
		open, dirty bool
	}{{"s9", true, true}, {"s9", false, false}, {"", true, false}} {
		if sc, msg := ScheduleFollow(doc, c.id, c.open, c.dirty); sc != nil || msg != "" {
			t.Errorf("ScheduleFollow(%q, open %v, dirty %v) = %v %q, want nothing", c.id, c.open, c.dirty, sc, msg)
		}
	}
	n := NewSchedule(doc)
	if n.Workflow != "first" || n.Every.D() != time.Hour || n.Overlap != workflow.OverlapSkip || n.CatchUp != workflow.CatchUpLatest || n.OnOverrun != "warn" {
		t.Errorf("new schedule %+v", n)
	}
	if n := NewSchedule(&store.Doc{}); n.Workflow != "" {
		t.Errorf("new schedule without workflows names %q", n.Workflow)
	}
	if names := WorkflowNames(doc); len(names) != 2 || names[1] != "second" {
		t.Errorf("names %q", names)
	}
}
