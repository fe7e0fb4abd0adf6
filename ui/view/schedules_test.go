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

// TestScheduleRow (issue 12, bug 13): durations read as people write them, and while a
// schedule's run is going its row says so, not "never ran".
func TestScheduleRow(t *testing.T) {
	now := at(12, 0, 0)
	doc := &store.Doc{Runs: []store.Run{{ID: "r1", Status: store.StatusFailed}, {ID: "r12", Status: store.StatusRunning},
		{ID: "r13", Status: store.StatusQueued}}}
	for _, c := range []struct {
		sc   store.Schedule
		want ScheduleRow
	}{
		{store.Schedule{Workflow: "backup", Every: store.Duration(time.Hour), NextDue: at(13, 0, 0), Overlap: "skip", CatchUp: "latest"},
			ScheduleRow{Title: "backup · every 1h", Detail: "next 13:00 · never ran · overlap skip · catch-up latest"}},
		{store.Schedule{Workflow: "backup", Every: store.Duration(90 * time.Minute), NextDue: at(13, 0, 0), Lock: &store.RunLock{Run: "r12"}},
			ScheduleRow{Title: "backup · every 1h30m", Detail: "next 13:00 · running now (r12) · overlap  · catch-up "}},
		{store.Schedule{Workflow: "backup", Every: store.Duration(time.Minute), NextDue: at(13, 0, 0), Lock: &store.RunLock{Run: "r13"}, LastStatus: "failed"},
			ScheduleRow{Title: "backup · every 1m", Detail: "next 13:00 · queued (r13), last failed · overlap  · catch-up "}},
		{store.Schedule{Workflow: "backup", Every: store.Duration(time.Minute), NextDue: at(13, 0, 0), Lock: &store.RunLock{Run: "r1"}, LastStatus: "failed"},
			ScheduleRow{Title: "backup · every 1m", Detail: "next 13:00 · last failed · overlap  · catch-up "}}, // a stale lock says nothing
		{store.Schedule{Workflow: "report", Cron: "0 3 * * *", TZ: "Europe/Paris", Paused: true, LastStatus: store.StatusFailed,
			NextDue: at(3, 0, 0).AddDate(0, 0, 1), Overlap: "queue", CatchUp: "none"},
			ScheduleRow{Title: "report · cron 0 3 * * * (Europe/Paris)", Detail: "paused · last failed · overlap queue · catch-up none", Paused: true}},
		{store.Schedule{Workflow: "w", Cron: "*/5 * * * *", NextDue: at(3, 0, 0).AddDate(0, 0, 1), LastStatus: store.StatusSucceeded},
			ScheduleRow{Title: "w · cron */5 * * * *", Detail: "next 5 May 03:00 · last succeeded · overlap  · catch-up "}},
	} {
		if got := ScheduleRowOf(doc, &c.sc, now); got != c.want {
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
	if f.Every != "1h" || f.MaxRuntime != "1h30m" || f.Cron != "" || f.ID != "s1" || f.Repeat != RepeatEvery {
		t.Fatalf("form %+v", f)
	}
	f.Cron, f.TZ, f.Repeat = " 0 3 * * * ", " UTC ", RepeatCron
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
		{"soon", "", map[string]string{"every": `must be a duration such as 15m, 1h30m or 1d, not "soon"`}},
		{"1h", "-1h", map[string]string{"max_runtime": `must be a duration such as 15m, 1h30m or 1d, not "-1h"`}},
		{"soon", "-1h", map[string]string{"every": `must be a duration such as 15m, 1h30m or 1d, not "soon"`,
			"max_runtime": `must be a duration such as 15m, 1h30m or 1d, not "-1h"`}},
		{"1d", "2h30m", map[string]string{}},
	} {
		f := ScheduleForm{Workflow: "report", Every: c.every, MaxRuntime: c.max, Repeat: RepeatEvery}
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
	nightly := ScheduleForm{Workflow: "report", Cron: "0 3 * * *", Repeat: RepeatCron}
	c := nightly.Check(doc, now)
	if !c.Valid() || strings.Count(c.Preview, "03:00") != 5 || strings.Count(c.Preview, "\n") != 5 || c.KeepPreview {
		t.Errorf("nightly: %+v, want 5 times at 03:00", c)
	}
	for _, f := range []ScheduleForm{
		{Workflow: "gone", Every: "1h", Repeat: RepeatEvery},                    // the core's "no workflow"
		{Workflow: "report", Every: "later", Repeat: RepeatEvery},               // does not parse
		{Workflow: "report", Every: "1h", Cron: "", Repeat: RepeatCron},         // the chosen field is empty
		{Workflow: "report", Every: "", Cron: "0 3 * * *", Repeat: RepeatEvery}, // the chosen field is empty
	} {
		c := f.Check(doc, now)
		if c.Valid() || c.Preview != "—" || c.KeepPreview {
			t.Errorf("Check(%+v) = %+v, want a problem and no preview", f, c)
		}
	}
	// The problem of a missing cadence goes beside the field the person sees.
	if c := (&ScheduleForm{Workflow: "report", Every: "1h", Repeat: RepeatCron}).Check(doc, now); c.Problems["cron"] == "" || c.Problems["every"] != "" {
		t.Errorf("problems %v, want the missing cron beside cron", c.Problems)
	}
}

// TestScheduleRepeatCountsOnlyTheChosenField (issue 12, usability 4): the text left in
// the field not chosen never conflicts with the chosen one ("not both").
func TestScheduleRepeatCountsOnlyTheChosenField(t *testing.T) {
	now := time.Date(2026, 5, 4, 12, 0, 0, 0, time.Local)
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "report"}}}
	cron := ScheduleForm{Workflow: "report", Every: "1h", Cron: "0 3 * * *", Repeat: RepeatCron}
	if c := cron.Check(doc, now); !c.Valid() {
		t.Errorf("cron chosen with every's old text: %v, want valid", c.Problems)
	}
	if sc, _ := cron.Draft(doc); sc.Every != 0 || sc.Cron != "0 3 * * *" {
		t.Errorf("cron draft %+v, want the cron only", sc)
	}
	every := ScheduleForm{Workflow: "report", Every: "1h", Cron: "0 3 * * *", Repeat: RepeatEvery}
	if sc, errs := every.Draft(doc); len(errs) != 0 || sc.Every.D() != time.Hour || sc.Cron != "" {
		t.Errorf("every draft %+v %v, want the interval only", sc, errs)
	}
}

// TestPreviewNamesItsTimeZone (issue 12, usability 9).
func TestPreviewNamesItsTimeZone(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip("no zone database")
	}
	sc := store.Schedule{Workflow: "w", Cron: "0 3 5 5,12 *", TZ: "Europe/Paris"}
	occ, err := workflow.Upcoming(&sc, time.Date(2026, 5, 1, 0, 0, 0, 0, paris), 2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := PreviewText(occ), "Times in Europe/Paris:\nTue 5 May 03:00 CEST\nSat 5 Dec 03:00 CET (-1h: clocks went back)"; got != want {
		t.Errorf("preview %q, want %q", got, want)
	}
	sc.TZ = ""
	if occ, err = workflow.Upcoming(&sc, time.Date(2026, 5, 1, 0, 0, 0, 0, paris), 1); err != nil {
		t.Fatal(err)
	}
	if got := PreviewText(occ); !strings.HasPrefix(got, "Times in local time:\n") || !strings.Contains(got, occ[0].At.Local().Format("15:04 MST")) {
		t.Errorf("local preview %q", got)
	}
}

// TestDurationsAsPeopleWriteThem (issue 12, usability 4): "1h", never "1h0m0s"; days for
// whole days; what DurString writes ParseDur reads back.
func TestDurationsAsPeopleWriteThem(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		text string
	}{{time.Minute, "1m"}, {90 * time.Minute, "1h30m"}, {45 * time.Second, "45s"}, {1500 * time.Millisecond, "1.5s"},
		{time.Hour, "1h"}, {720 * time.Hour, "30d"}, {36 * time.Hour, "1d12h"}, {61 * time.Second, "1m1s"}, {0, "0s"}} {
		if got := DurString(c.d); got != c.text {
			t.Errorf("DurString(%v) = %q, want %q", c.d, got, c.text)
		}
		if back, err := ParseDur(c.text); err != nil || back != c.d {
			t.Errorf("ParseDur(%q) = %v, %v, want %v", c.text, back, err, c.d)
		}
	}
	for _, ok := range []string{"720h", " 30d ", "1h0m0s"} {
		if _, err := ParseDur(ok); err != nil {
			t.Errorf("ParseDur(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"d", "x1d", "1.5d", "1d-1h", "soon", "30 days"} {
		if _, err := ParseDur(bad); err == nil {
			t.Errorf("ParseDur(%q) accepted", bad)
		}
	}
}

// TestScheduleCheckEveryProblemBesideItsField: every problem of a schedule draft is keyed
// by its field, at once, in plain words: a cron expression's problem names which of its
// fields is wrong, never the cron library's text.
func TestScheduleCheckEveryProblemBesideItsField(t *testing.T) {
	now := time.Date(2026, 5, 4, 12, 0, 0, 0, time.Local)
	doc := &store.Doc{Workflows: []store.Workflow{{Name: "report"}}}
	f := ScheduleForm{Workflow: "gone", Cron: "61 * * * *", TZ: "Mars/Base", MaxRuntime: "x", Overlap: "sideways", Repeat: RepeatCron}
	c := f.Check(doc, now)
	want := map[string]string{
		"workflow":    `no workflow named "gone"`,
		"cron":        "minute must be 0–59, got 61",
		"tz":          `unknown time zone "Mars/Base"; use a name such as Europe/Paris or UTC`,
		"max_runtime": `must be a duration such as 15m, 1h30m or 1d, not "x"`,
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
	if n := NewSchedule(doc, "second"); n.Workflow != "second" {
		t.Errorf("new schedule with %q selected names %q", "second", n.Workflow)
	}
	n := NewSchedule(doc, "deleted")
	if n.Workflow != "first" || n.Every.D() != time.Hour || n.Overlap != workflow.OverlapSkip || n.CatchUp != workflow.CatchUpLatest || n.OnOverrun != "warn" {
		t.Errorf("new schedule %+v", n)
	}
	if n := NewSchedule(&store.Doc{}, ""); n.Workflow != "" {
		t.Errorf("new schedule without workflows names %q", n.Workflow)
	}
	if names := WorkflowNames(doc); len(names) != 2 || names[1] != "second" {
		t.Errorf("names %q", names)
	}
}
