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
	Title  string // "backup · every 1h"
	Detail string // "next 15:00 · last succeeded · overlap skip · catch-up latest"
	Paused bool   // for the icon
}

// ScheduleRowOf is the row of schedule sc of doc. While a run it started is going, the
// row says so ("running now (r12)") rather than what the run before it did.
func ScheduleRowOf(doc *store.Doc, sc *store.Schedule, now time.Time) ScheduleRow {
	next := ""
	if sc.Paused {
		next = "paused"
	} else {
		next = nextText(sc, now)
	}
	last := "never ran"
	if sc.LastStatus != "" {
		last = "last " + sc.LastStatus
	}
	if sc.Lock != nil {
		if r := doc.Run(sc.Lock.Run); r != nil && r.Active() {
			live := "running now"
			if r.Status == store.StatusQueued {
				live = "queued"
			}
			if sc.LastStatus != "" {
				last = fmt.Sprintf("%s (%s), %s", live, r.ID, last)
			} else {
				last = fmt.Sprintf("%s (%s)", live, r.ID)
			}
		}
	}
	return ScheduleRow{Title: sc.Workflow + " · " + Cadence(sc), Paused: sc.Paused,
		Detail: fmt.Sprintf("%s · %s · overlap %s · catch-up %s", next, last, sc.Overlap, sc.CatchUp)}
}

// subMinute reports whether sc repeats on a period that is not a whole number of
// minutes: its times need their seconds.
func subMinute(sc *store.Schedule) bool {
	return sc.Cron == "" && time.Duration(sc.Every)%time.Minute != 0
}

// Cadence says when a schedule runs: "cron 0 3 * * * (Europe/Paris)" or "every 1h30m".
func Cadence(sc *store.Schedule) string {
	if sc.Cron != "" {
		s := "cron " + sc.Cron
		if sc.TZ != "" {
			s += " (" + sc.TZ + ")"
		}
		return s
	}
	return "every " + DurString(sc.Every.D())
}

// DurText is a duration field's text as people write it ("1h30m"): "" for none.
func DurText(d store.Duration) string {
	if d == 0 {
		return ""
	}
	return DurString(d.D())
}

// WorkflowNames are the names of doc's workflows, the choices of a schedule's workflow.
func WorkflowNames(doc *store.Doc) []string {
	names := make([]string, 0, len(doc.Workflows))
	for i := range doc.Workflows {
		names = append(names, doc.Workflows[i].Name)
	}
	return names
}

// NewSchedule is the draft a new schedule starts from: workflow selected if doc has it
// (the one chosen in the sidebar), else the first; every hour, skip overlaps, catch up on
// the latest missed occurrence, warn on overrun.
func NewSchedule(doc *store.Doc, selected string) store.Schedule {
	wf := ""
	if doc.Workflow(selected) != nil {
		wf = selected
	} else if len(doc.Workflows) > 0 {
		wf = doc.Workflows[0].Name
	}
	return store.Schedule{Workflow: wf, Every: store.Duration(time.Hour), Overlap: workflow.OverlapSkip,
		CatchUp: workflow.CatchUpLatest, OnOverrun: "warn"}
}

// How a schedule repeats: the choices of the form's Repeat field. Only the chosen one's
// field is shown and saved, so text left in the other never conflicts with it.
const (
	RepeatEvery = "Every interval"
	RepeatCron  = "On a cron expression"
)

// RepeatChoices are the choices of the form's Repeat field, in order.
var RepeatChoices = []string{RepeatEvery, RepeatCron}

// ScheduleForm is a schedule as typed in the Schedules tab. Repeat (RepeatEvery or
// RepeatCron) says which of Every and Cron counts.
type ScheduleForm struct {
	ID                                    string // "" for a new schedule
	Workflow, Every, Cron, TZ, MaxRuntime string
	Overlap, CatchUp, OnOverrun           string
	Repeat                                string
}

// ScheduleFormOf is what the form's fields hold for sc.
func ScheduleFormOf(sc *store.Schedule) ScheduleForm {
	repeat := RepeatEvery
	if sc.Cron != "" {
		repeat = RepeatCron
	}
	return ScheduleForm{ID: sc.ID, Workflow: sc.Workflow, Every: DurText(sc.Every), Cron: sc.Cron, TZ: sc.TZ,
		Overlap: sc.Overlap, CatchUp: sc.CatchUp, MaxRuntime: DurText(sc.MaxRuntime), OnOverrun: sc.OnOverrun, Repeat: repeat}
}

// ScheduleFields are the fields of the schedule form, as the core spells them (the keys of
// a ScheduleCheck's Problems).
var ScheduleFields = []string{"workflow", "every", "cron", "tz", "overlap", "catch_up", "max_runtime", "on_overrun"}

// Draft returns the schedule as typed, with what the form does not show (paused, the
// watermark, the catch-up window) kept from doc's copy, and the messages of the fields
// that do not parse, keyed by field (every, max_runtime). Of Every and Cron only the one
// Repeat chooses counts.
func (f *ScheduleForm) Draft(doc *store.Doc) (store.Schedule, map[string]string) {
	sc := store.Schedule{ID: f.ID, Workflow: f.Workflow, TZ: strings.TrimSpace(f.TZ),
		Overlap: f.Overlap, CatchUp: f.CatchUp, OnOverrun: f.OnOverrun}
	every := f.Every
	if f.Repeat == RepeatCron {
		sc.Cron, every = strings.TrimSpace(f.Cron), ""
	}
	if cur := doc.Schedule(f.ID); cur != nil {
		sc.Paused, sc.Watermark, sc.CatchUpWindow = cur.Paused, cur.Watermark, cur.CatchUpWindow
	}
	errs := map[string]string{}
	for _, d := range []struct {
		field string
		text  string
		to    *store.Duration
	}{{"every", every, &sc.Every}, {"max_runtime", f.MaxRuntime, &sc.MaxRuntime}} {
		t := strings.TrimSpace(d.text)
		if t == "" {
			continue
		}
		v, err := ParseDur(t)
		if err != nil || v < 0 {
			errs[d.field] = fmt.Sprintf("must be a duration such as 15m, 1h30m or 1d, not %q", t)
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
	Preview     string // PreviewText: its zone, then the next 5 times, one a line
	KeepPreview bool   // the preview could not be computed: leave the last one
}

// Valid reports whether the draft has no problem.
func (c *ScheduleCheck) Valid() bool { return len(c.Problems) == 0 }

// Check validates the draft of f with the core's rules (workflow.NormalizeSchedule),
// reading every problem from its store.FieldErrors, and previews its next 5 occurrences.
func (f *ScheduleForm) Check(doc *store.Doc, now time.Time) ScheduleCheck {
	sc, errs := f.Draft(doc)
	c := ScheduleCheck{Problems: errs}
	shown, hidden := "every", "cron"
	if f.Repeat == RepeatCron {
		shown, hidden = hidden, shown
	}
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
			if k == hidden {
				k = shown // "one of every or cron is required" goes beside the field shown
			}
			if _, parsed := errs[k]; !parsed {
				errs[k] = msg
			}
		}
	}
	if len(errs) > 0 {
		c.Preview = "—"
		return c
	}
	if occ, err := workflow.Upcoming(&cp, now, 5); err == nil {
		c.Preview = PreviewText(occ)
	} else {
		c.KeepPreview = true
	}
	return c
}

// PreviewText lists occurrences, one a line, in the schedule's zone, and names the zone:
// "Times in Europe/Berlin:" then "Sun 29 Mar 03:00 CEST (+1h: clocks went forward)". An
// occurrence after a clock change says the shift, and one a clock change moved says how
// on the line below it. Seconds show when any time has them.
func PreviewText(occ []workflow.Occurrence) string {
	name := "local time"
	if len(occ) > 0 && occ[0].Zone != "" && occ[0].Zone != "Local" {
		name = occ[0].Zone
	}
	lines := []string{"Times in " + name + ":"}
	layout := "Mon 2 Jan 15:04 MST"
	for _, o := range occ {
		if o.At.Second() != 0 {
			layout = "Mon 2 Jan 15:04:05 MST" // a 10 s schedule reads 14:21:10, 14:21:20, not 14:21, 14:21
		}
	}
	for _, o := range occ {
		line := o.At.Format(layout)
		if sh := ShiftText(o.Shift); sh != "" {
			line += " (" + sh + ")"
		}
		lines = append(lines, line)
		if o.Note != "" {
			lines = append(lines, "    "+capital(o.Note))
		}
	}
	return strings.Join(lines, "\n")
}

// ShiftText says a clock change of d in words: "+1h: clocks went forward", "-30m: clocks
// went back"; "" for none.
func ShiftText(d time.Duration) string {
	switch {
	case d > 0:
		return "+" + DurString(d) + ": clocks went forward"
	case d < 0:
		return DurString(d) + ": clocks went back"
	}
	return ""
}

// nextText is a schedule row's next time: in the schedule's zone, named, when it has one
// ("next 03:00 CEST"), and marked when a clock change comes before it or moved it
// (workflow.Upcoming): "next 29 Mar 03:00 CEST (+1h: clocks went forward)".
func nextText(sc *store.Schedule, now time.Time) string {
	at, stamp := sc.NextDue, subMinute(sc) || sc.NextDue.Second() != 0
	var s string
	switch {
	case sc.TZ != "":
		s = zoneClock(at, now, sc.TZ, stamp)
	case stamp:
		s = Stamp(at, now)
	default:
		s = Clock(at, now)
	}
	if occ, err := workflow.Upcoming(sc, now, 1); err == nil && len(occ) == 1 && occ[0].At.Equal(at) {
		switch o := occ[0]; {
		case o.Shift != 0:
			s += " (" + ShiftText(o.Shift) + ")"
		case o.Note != "":
			s += " (" + o.Note + ")"
		}
	}
	return "next " + s
}

// zoneClock is Clock (Stamp with seconds) in zone tz, with the zone's abbreviation.
func zoneClock(t, now time.Time, tz string, seconds bool) string {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		loc = time.Local
	}
	t, now = t.In(loc), now.In(loc)
	layout := "15:04"
	if seconds {
		layout = "15:04:05"
	}
	y1, m1, d1 := t.Date()
	if y2, m2, d2 := now.Date(); y1 != y2 || m1 != m2 || d1 != d2 {
		layout = "2 Jan " + layout
	}
	return t.Format(layout + " MST")
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

// PausedText is the form's message after the schedule was paused (or resumed).
func PausedText(paused bool) string {
	if paused {
		return "Paused."
	}
	return "Resumed."
}
