package view

import (
	"fmt"
	"strings"
	"time"

	"baton/host"
	"baton/store"
	"baton/workflow"
)

// The policies a schedule may choose, in the order the form offers them.
var (
	OverlapChoices   = []string{workflow.OverlapSkip, workflow.OverlapQueue, workflow.OverlapAllow, workflow.OverlapReplace}
	CatchUpChoices   = []string{workflow.CatchUpNone, workflow.CatchUpLatest, workflow.CatchUpAll}
	OnOverrunChoices = []string{"warn", "cancel"}
)

// ScheduleRow is what a schedule's row shows.
type ScheduleRow struct {
	Title  string // "backup · every 1h0m0s"
	Detail string // "next 15:00 · last succeeded · overlap skip · catch-up latest"
	Paused bool   // for the icon
}

// ScheduleRowOf is the row of schedule sc.
func ScheduleRowOf(sc *store.Schedule, now time.Time) ScheduleRow {
	next := "next " + Clock(sc.NextDue, now)
	if sc.Paused {
		next = "paused"
	}
	last := "never ran"
	if sc.LastStatus != "" {
		last = "last " + sc.LastStatus
	}
	return ScheduleRow{Title: sc.Workflow + " · " + Cadence(sc), Paused: sc.Paused,
		Detail: fmt.Sprintf("%s · %s · overlap %s · catch-up %s", next, last, sc.Overlap, sc.CatchUp)}
}

// Cadence says when a schedule runs: "cron 0 3 * * * (Europe/Paris)" or "every 1h0m0s".
func Cadence(sc *store.Schedule) string {
	if sc.Cron != "" {
		s := "cron " + sc.Cron
		if sc.TZ != "" {
			s += " (" + sc.TZ + ")"
		}
		return s
	}
	return "every " + sc.Every.D().String()
}

// DurText is a duration field's text: "" for none.
func DurText(d store.Duration) string {
	if d == 0 {
		return ""
	}
	return d.D().String()
}

// WorkflowNames are the names of doc's workflows, the choices of a schedule's workflow.
func WorkflowNames(doc *store.Doc) []string {
	names := make([]string, 0, len(doc.Workflows))
	for i := range doc.Workflows {
		names = append(names, doc.Workflows[i].Name)
	}
	return names
}

// NewSchedule is the draft a new schedule starts from: the first workflow, every hour,
// skip overlaps, catch up on the latest missed occurrence, warn on overrun.
func NewSchedule(doc *store.Doc) store.Schedule {
	wf := ""
	if len(doc.Workflows) > 0 {
		wf = doc.Workflows[0].Name
	}
	return store.Schedule{Workflow: wf, Every: store.Duration(time.Hour), Overlap: workflow.OverlapSkip,
		CatchUp: workflow.CatchUpLatest, OnOverrun: "warn"}
}

// ScheduleForm is a schedule as typed in the Schedules tab.
type ScheduleForm struct {
	ID                                    string // "" for a new schedule
	Workflow, Every, Cron, TZ, MaxRuntime string
	Overlap, CatchUp, OnOverrun           string
}

// ScheduleFormOf is what the form's fields hold for sc.
func ScheduleFormOf(sc *store.Schedule) ScheduleForm {
	return ScheduleForm{ID: sc.ID, Workflow: sc.Workflow, Every: DurText(sc.Every), Cron: sc.Cron, TZ: sc.TZ,
		Overlap: sc.Overlap, CatchUp: sc.CatchUp, MaxRuntime: DurText(sc.MaxRuntime), OnOverrun: sc.OnOverrun}
}

// ScheduleFields are the fields of the schedule form, as the core spells them (the keys of
// a ScheduleCheck's Problems).
var ScheduleFields = []string{"workflow", "every", "cron", "tz", "overlap", "catch_up", "max_runtime", "on_overrun"}

// Draft returns the schedule as typed, with what the form does not show (paused, the
// watermark, the catch-up window) kept from doc's copy, and the messages of the fields
// that do not parse, keyed by field (every, max_runtime).
func (f *ScheduleForm) Draft(doc *store.Doc) (store.Schedule, map[string]string) {
	sc := store.Schedule{ID: f.ID, Workflow: f.Workflow, Cron: strings.TrimSpace(f.Cron), TZ: strings.TrimSpace(f.TZ),
		Overlap: f.Overlap, CatchUp: f.CatchUp, OnOverrun: f.OnOverrun}
	if cur := doc.Schedule(f.ID); cur != nil {
		sc.Paused, sc.Watermark, sc.CatchUpWindow = cur.Paused, cur.Watermark, cur.CatchUpWindow
	}
	errs := map[string]string{}
	for _, d := range []struct {
		field string
		text  string
		to    *store.Duration
	}{{"every", f.Every, &sc.Every}, {"max_runtime", f.MaxRuntime, &sc.MaxRuntime}} {
		t := strings.TrimSpace(d.text)
		if t == "" {
			continue
		}
		v, err := time.ParseDuration(t)
		if err != nil || v < 0 {
			errs[d.field] = fmt.Sprintf("must be a duration such as 15m or 1h, not %q", t)
			continue
		}
		*d.to = store.Duration(v)
	}
	return sc, errs
}

// ScheduleCheck is what the form shows of a draft: every problem, beside its field, or a
// preview of its next occurrences.
type ScheduleCheck struct {
	// Problems are the messages of the draft, keyed by field as the core spells it
	// (ScheduleFields; "" for a problem of no one field): parsing first, then the core's
	// rules (workflow.NormalizeSchedule) of the fields that parse. Empty when valid.
	Problems    map[string]string
	Preview     string // the next 5 times, one a line
	KeepPreview bool   // the preview could not be computed: leave the last one
}

// Valid reports whether the draft has no problem.
func (c *ScheduleCheck) Valid() bool { return len(c.Problems) == 0 }

// Check validates the draft of f with the core's rules (workflow.NormalizeSchedule),
// reading every problem from its store.FieldErrors, and previews its next 5 occurrences.
func (f *ScheduleForm) Check(doc *store.Doc, now time.Time) ScheduleCheck {
	sc, errs := f.Draft(doc)
	c := ScheduleCheck{Problems: errs}
	cp := sc.Clone()
	if cur := doc.Schedule(f.ID); cur != nil && cp.Every == cur.Every && cp.Cron == cur.Cron {
		cp.Created, cp.LastDue = cur.Created, cur.LastDue
	}
	if err := workflow.NormalizeSchedule(doc, &cp, now); err != nil {
		core, ok := FieldProblems(err)
		if !ok {
			core = map[string]string{"": ErrText(err)}
		}
		for k, msg := range core {
			if _, parsed := errs[k]; !parsed {
				errs[k] = msg
			}
		}
	}
	if len(errs) > 0 {
		c.Preview = "—"
		return c
	}
	if times, err := workflow.NextTimes(&cp, now, 5); err == nil {
		var parts []string
		for _, t := range times {
			parts = append(parts, t.Local().Format("Mon 2 Jan 15:04"))
		}
		c.Preview = strings.Join(parts, "\n")
	} else {
		c.KeepPreview = true
	}
	return c
}

// ScheduleControls are which of the schedule form's controls are enabled, the pause
// button's label, and the read-only note.
type ScheduleControls struct {
	Save, Pause, Delete bool
	Resume              bool // the schedule is paused: the button says Resume
	ShowNote            bool // the form says why it may not save: Note
	Note                string
}

// ScheduleControlsFor decides the schedule form's controls: w says the window (of
// status st) may write; id is the schedule open ("" for a new one); open, dirty and valid
// describe the form.
func ScheduleControlsFor(w bool, st host.Status, doc *store.Doc, id string, open, dirty, valid bool) ScheduleControls {
	c := ScheduleControls{Save: w && open && valid && (dirty || id == ""), Pause: w && id != "", Delete: w && id != ""}
	if sc := doc.Schedule(id); sc != nil && sc.Paused {
		c.Resume = true
	}
	if !w && open {
		c.ShowNote, c.Note = true, ReadOnlyReason(st)
	}
	return c
}

// ScheduleFollow decides what an open, unedited schedule form does with snapshot doc:
// show the newest saved schedule id, or close with a message when it was deleted.
func ScheduleFollow(doc *store.Doc, id string, open, dirty bool) (sc *store.Schedule, closed string) {
	if !open || id == "" || dirty {
		return nil, ""
	}
	if sc := doc.Schedule(id); sc != nil {
		return sc, ""
	}
	return nil, "The schedule was deleted."
}

// DeleteScheduleQuestion asks whether to delete a schedule.
func DeleteScheduleQuestion() (title, message string) {
	return "Delete schedule?", "Delete this schedule? A run it started goes on to its end."
}
