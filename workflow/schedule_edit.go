package workflow

// Adding, editing, pausing and deleting schedules.

import (
	"fmt"
	"strings"
	"time"

	"baton/store"
)

// AddSchedule validates s, gives it an id and adds it to d; it returns the stored copy.
func AddSchedule(d *store.Doc, s store.Schedule, now time.Time) (store.Schedule, error) {
	s.ID, s.Created, s.LastDue, s.Lock, s.Pending, s.LastRun, s.LastStatus = "", time.Time{}, time.Time{}, nil, nil, "", ""
	s.Ticked, s.TickGap = time.Time{}, 0
	if err := NormalizeSchedule(d, &s, now); err != nil {
		return s, err
	}
	d.Seq++
	s.ID = fmt.Sprintf("s%d", d.Seq)
	d.Schedules = append(d.Schedules, s.Clone())
	return s, nil
}

// UpdateSchedule replaces the definition of schedule s.ID with s's (the window's form
// sends every field it shows), keeping its state (lock, last occurrence, waiting
// occurrences) and its pausing: only PauseSchedule pauses or resumes. A nil Watermark
// keeps the current one. See commitEdit for what a change of cadence does.
func UpdateSchedule(d *store.Doc, s store.Schedule, now time.Time) error {
	cur := d.Schedule(s.ID)
	if cur == nil {
		return fmt.Errorf("%w: no schedule %q", ErrNotFound, s.ID)
	}
	s.Paused = cur.Paused
	if s.Watermark == nil {
		s.Watermark = cur.Watermark
	}
	return commitEdit(d, cur, s, now)
}

// ScheduleEdit names the fields an edit changes; a nil field stays as it is. Every and
// Cron replace each other: naming one (not empty) clears the other. A Cron with a
// CRON_TZ= or TZ= prefix and no TZ moves the prefix's zone into tz.
type ScheduleEdit struct {
	Workflow      *string
	Every         *store.Duration
	Cron          *string
	TZ            *string
	Paused        *bool // true pauses; false is refused on a paused schedule (resume it)
	Overlap       *string
	MaxRuntime    *store.Duration
	OnOverrun     *string
	CatchUp       *string
	CatchUpWindow *store.Duration
	Watermark     *string
}

// EditSchedule changes the fields e names of schedule id, and only those. It never
// resumes a paused schedule (ErrInvalid names resume_schedule), and a change of cadence
// never creates a missed occurrence (see commitEdit).
func EditSchedule(d *store.Doc, id string, e ScheduleEdit, now time.Time) error {
	cur := d.Schedule(id)
	if cur == nil {
		return fmt.Errorf("%w: no schedule %q", ErrNotFound, id)
	}
	if e.Paused != nil && !*e.Paused && cur.Paused {
		return fmt.Errorf("%w: schedule: %w", ErrInvalid, store.FieldErrors{{Field: "paused",
			Message: "an edit never resumes a schedule; resume it with resume_schedule (what fell due while it was paused is not caught up)"}})
	}
	next := cur.Clone()
	set(&next.Workflow, e.Workflow)
	set(&next.TZ, e.TZ)
	set(&next.Overlap, e.Overlap)
	set(&next.OnOverrun, e.OnOverrun)
	set(&next.CatchUp, e.CatchUp)
	set(&next.MaxRuntime, e.MaxRuntime)
	set(&next.CatchUpWindow, e.CatchUpWindow)
	if e.Every != nil {
		next.Every = *e.Every
		if *e.Every != 0 && e.Cron == nil {
			next.Cron = ""
		}
	}
	if e.Cron != nil {
		next.Cron = *e.Cron
		if *e.Cron != "" && e.Every == nil {
			next.Every = 0
		}
		if _, _, ok := splitZonePrefix(*e.Cron); ok && e.TZ == nil {
			next.TZ = "" // the prefix names the zone: NormalizeSchedule moves it into tz
		}
	}
	if e.Watermark != nil {
		next.Watermark = e.Watermark
	}
	if e.Paused != nil && *e.Paused {
		next.Paused = true
	}
	return commitEdit(d, cur, next, now)
}

func set[T any](to *T, v *T) {
	if v != nil {
		*to = *v
	}
}

// commitEdit validates next, the edited definition of cur, and stores it with cur's
// state. Occurrences already handled stay handled. When the occurrence times change (the
// duration, the expression or the zone of a cron expression), occurrences are counted
// from now on: the new times due before now are not missed ones (an edit never makes a
// run at once); a new duration counts from now.
func commitEdit(d *store.Doc, cur *store.Schedule, next store.Schedule, now time.Time) error {
	next.ID, next.Created, next.LastDue, next.Lock, next.Pending = cur.ID, cur.Created, cur.LastDue, cur.Lock, cur.Pending
	next.LastRun, next.LastStatus, next.Ticked, next.TickGap = cur.LastRun, cur.LastStatus, cur.Ticked, cur.TickGap
	movePrefixToTZ(&next)
	if cadenceOf(&next) != cadenceOf(cur) {
		next.LastDue = maxTime(cur.LastDue, now.UTC())
		if e, ok := everyOfSchedule(&next); ok {
			if old, was := everyOfSchedule(cur); !was || old != e {
				next.Created = now.UTC() // a new duration counts from now
			}
		}
	}
	if err := NormalizeSchedule(d, &next, now); err != nil {
		return err
	}
	*cur = next.Clone()
	return nil
}

// cadenceOf is what decides a schedule's occurrence times.
func cadenceOf(s *store.Schedule) string {
	if e, ok := everyOfSchedule(s); ok {
		return "every " + e.String()
	}
	return strings.TrimSpace(s.Cron) + " in " + scheduleZone(s)
}

// DeleteSchedule removes a schedule; its live run, if any, goes on to its end.
func DeleteSchedule(d *store.Doc, id string) error {
	for i := range d.Schedules {
		if d.Schedules[i].ID == id {
			d.Schedules = append(d.Schedules[:i], d.Schedules[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("%w: no schedule %q", ErrNotFound, id)
}

// PauseSchedule pauses or resumes a schedule. Resuming counts occurrences from now on:
// the time it was paused is not caught up.
func PauseSchedule(d *store.Doc, id string, paused bool, now time.Time) error {
	s := d.Schedule(id)
	if s == nil {
		return fmt.Errorf("%w: no schedule %q", ErrNotFound, id)
	}
	if s.Paused == paused {
		return nil
	}
	s.Paused = paused
	s.NextDue = time.Time{} // nothing is due while it is paused
	if !paused {
		s.LastDue = maxTime(s.LastDue, now.UTC())
		if nd, err := Next(s, s.LastDue); err == nil {
			s.NextDue = nd
		}
	}
	return nil
}
