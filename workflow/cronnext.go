package workflow

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"baton/store"
)

// Next-time computation across clock changes (DST and other shifts of a zone's offset).
//
// github.com/robfig/cron parses the expression; its Next is used only on wall-clock
// readings written as UTC times, where no clock ever shifts. This file turns wall-clock
// readings into instants by the rule Baton documents:
//
//   - A fixed-time expression (its minute and hour fields name values: no *, no step)
//     runs exactly once per matching local day for each time it names: a time the clock
//     skips runs once, at the instant right after the jump (as cronie does); a time the
//     clock reads twice runs once, at the first.
//   - Any other expression (a wildcard or stepped minute or hour, such as "*/15 * * * *"
//     or "0 */2 * * *") follows elapsed time: it runs at every instant whose wall-clock
//     reading matches, so a skipped reading never runs and a repeated one runs each time
//     the clock shows it (both are real instants, an hour or half an hour apart).
//
// `every` schedules and "@every" are durations from the schedule's creation and never
// look at a clock.

// cronRule is a parsed cron expression (without a zone prefix) and the zone it runs in.
type cronRule struct {
	spec  *cron.SpecSchedule // Location is UTC: it is asked about wall-clock readings only
	fixed bool               // minute and hour name values: once per matching local day
	loc   *time.Location
}

// shortcuts are the @ forms the standard parser accepts, as five fields.
var shortcuts = map[string]string{
	"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
	"@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}

// splitZonePrefix splits "CRON_TZ=Europe/Paris 0 3 * * *" (or TZ=) into the zone and the
// expression; ok is false when spec has no prefix.
func splitZonePrefix(spec string) (zone, rest string, ok bool) {
	spec = strings.TrimSpace(spec)
	if !strings.HasPrefix(spec, "TZ=") && !strings.HasPrefix(spec, "CRON_TZ=") {
		return "", spec, false
	}
	prefix, rest, _ := strings.Cut(spec, " ")
	_, zone, _ = strings.Cut(prefix, "=")
	return zone, strings.TrimSpace(rest), true
}

// everyOf returns the duration of an "@every D" expression; ok is false for any other.
func everyOf(spec string) (d time.Duration, text string, ok bool) {
	_, rest, _ := splitZonePrefix(spec)
	text, ok = strings.CutPrefix(rest, "@every ")
	if !ok {
		return 0, "", false
	}
	text = strings.TrimSpace(text)
	d, err := time.ParseDuration(text)
	if err != nil {
		return 0, text, true
	}
	return d, text, true
}

// everyProblem says what is wrong with an every duration (of `every` or of "@every"):
// the one rule both obey.
func everyProblem(d time.Duration) string {
	if d < MinEvery {
		return fmt.Sprintf("must be at least %s (a positive duration of whole seconds or more), got %s", MinEvery, d)
	}
	return ""
}

// MinEvery is the shortest `every` (and "@every") a schedule may have.
const MinEvery = time.Second

// compileCron parses expr (no zone prefix; not @every) for zone loc.
func compileCron(expr string, loc *time.Location) (*cronRule, error) {
	expr = strings.TrimSpace(expr)
	fields := expr
	if f, ok := shortcuts[strings.ToLower(expr)]; ok {
		fields = f
	}
	sched, err := cron.ParseStandard(fields)
	if err != nil {
		return nil, err
	}
	spec, ok := sched.(*cron.SpecSchedule)
	if !ok {
		return nil, fmt.Errorf("cron %q is not a calendar expression", expr)
	}
	walls := *spec
	walls.Location = time.UTC
	f := strings.Fields(fields)
	return &cronRule{spec: &walls, fixed: len(f) == 5 && fixedField(f[0]) && fixedField(f[1]), loc: loc}, nil
}

// fixedField reports whether a minute or hour field names values (lists and ranges of
// numbers), not a wildcard or a step.
func fixedField(f string) bool { return !strings.ContainsAny(f, "*?/") }

// wallOf is the wall-clock reading of t in loc, written as a UTC time.
func wallOf(t time.Time, loc *time.Location) time.Time {
	_, off := t.In(loc).Zone()
	return t.UTC().Add(time.Duration(off) * time.Second)
}

// period is a stretch of time in which a zone keeps one offset: [start, end); a zero
// start or end is unbounded.
type period struct {
	start, end time.Time
	off        time.Duration
}

func (p period) holds(t time.Time) bool {
	return (p.start.IsZero() || !t.Before(p.start)) && (p.end.IsZero() || t.Before(p.end))
}

func periodAt(t time.Time, loc *time.Location) period {
	lt := t.In(loc)
	_, off := lt.Zone()
	s, e := lt.ZoneBounds()
	return period{start: s, end: e, off: time.Duration(off) * time.Second}
}

// periodsAround returns the period holding t with the one before and the one after it
// (when there are such), oldest first.
func periodsAround(t time.Time, loc *time.Location) []period {
	cur := periodAt(t, loc)
	out := []period{cur}
	if !cur.start.IsZero() {
		out = append([]period{periodAt(cur.start.Add(-time.Nanosecond), loc)}, out...)
	}
	if !cur.end.IsZero() {
		out = append(out, periodAt(cur.end, loc))
	}
	return out
}

// resolve returns the instants at which the clock of loc reads wall (a wall-clock reading
// written as UTC), oldest first: one, two in a repeated interval, none in a skipped
// one; for none, jump is the instant the clock jumped over wall.
func resolve(wall time.Time, loc *time.Location) (insts []time.Time, jump time.Time) {
	guess := wall.Add(-periodAt(wall, loc).off)
	ps := periodsAround(guess, loc)
	for _, p := range ps {
		if at := wall.Add(-p.off); p.holds(at) {
			insts = append(insts, at)
		}
	}
	if len(insts) > 0 {
		return insts, time.Time{}
	}
	for i := 1; i < len(ps); i++ {
		b := ps[i].start // the clock read b+off before, b+next off after
		if !b.Add(ps[i-1].off).After(wall) && b.Add(ps[i].off).After(wall) {
			return nil, b
		}
	}
	// Out of the periods looked at (a zone changing twice within a few hours): the first
	// instant reading a later wall.
	return nil, wall.Add(-ps[len(ps)-1].off)
}

// next returns the first occurrence strictly after t, or the zero time if none comes
// within the library's horizon (five years of wall-clock readings).
func (r *cronRule) next(t time.Time) time.Time {
	if n, ok := r.fastNext(t); ok {
		return n
	}
	return r.slowNext(t)
}

// fastNext handles the common case: the next matching wall-clock reading falls in the
// same offset period as t (no clock change between), and is not a repeated reading of a
// fixed-time expression seen the second time.
func (r *cronRule) fastNext(t time.Time) (time.Time, bool) {
	p := periodAt(t, r.loc)
	w := r.spec.Next(t.UTC().Add(p.off))
	if w.IsZero() {
		return time.Time{}, true
	}
	at := w.Add(-p.off)
	if !p.end.IsZero() && !at.Before(p.end) {
		return time.Time{}, false
	}
	if r.fixed && !p.start.IsZero() && at.Sub(p.start) < 48*time.Hour {
		prev := periodAt(p.start.Add(-time.Nanosecond), r.loc)
		if prev.holds(w.Add(-prev.off)) { // the clock read w before, in the previous period
			return time.Time{}, false
		}
	}
	return at, true
}

// slowNext walks the matching wall-clock readings in order from the lowest reading an
// instant after t can have, resolving each to its instants by the rule, and returns the
// earliest instant after t. It stops at the first reading whose first instant (or, for a
// skipped fixed time, its jump) is after t: every later reading's instants are later.
func (r *cronRule) slowNext(t time.Time) time.Time {
	lo := time.Duration(1<<63 - 1)
	for _, p := range periodsAround(t, r.loc) {
		lo = min(lo, p.off)
	}
	w := t.UTC().Add(lo).Add(-time.Second)
	var best time.Time
	for {
		if w = r.spec.Next(w); w.IsZero() {
			return best
		}
		insts, jump := resolve(w, r.loc)
		switch {
		case len(insts) == 0 && !r.fixed:
			continue
		case len(insts) == 0:
			insts = []time.Time{jump}
		case r.fixed:
			insts = insts[:1]
		}
		for _, at := range insts {
			if at.After(t) && (best.IsZero() || at.Before(best)) {
				best = at
			}
		}
		if insts[0].After(t) {
			return best
		}
	}
}

// Occurrence is one coming occurrence of a schedule, with what a preview needs to show it
// across a clock change. At keeps its seconds (an every-schedule's are its creation's).
type Occurrence struct {
	At     time.Time     // the instant, in the schedule's zone
	Zone   string        // the zone's name: "Europe/Berlin", or "Local" for the machine's
	Abbrev string        // the zone's abbreviation at At: "CEST"
	Offset time.Duration // At's offset east of UTC
	// Shift is the change of offset since the previous occurrence (or since the time the
	// list starts from): +1h after a spring-forward, -30m after Lord Howe's fall-back.
	Shift time.Duration
	// Note says in words how a clock change moved this occurrence, or "": "02:30 is
	// skipped on Sun 29 Mar 2026 (clocks go from 02:00 to 03:00 CEST): runs right after
	// the change" or "02:30 happens twice on Sun 25 Oct 2026: runs at the first (CEST)".
	Note string
}

// Upcoming returns the next n occurrences of s strictly after t, each with its zone,
// offset and any clock change, for the window's preview. Safe to call from any goroutine.
func Upcoming(s *store.Schedule, t time.Time, n int) ([]Occurrence, error) {
	times, err := NextTimes(s, t, n)
	if err != nil {
		return nil, err
	}
	loc, err := location(scheduleZone(s))
	if err != nil {
		return nil, err
	}
	rule, _ := cronRuleOf(s)
	out := make([]Occurrence, 0, len(times))
	_, prevOff := t.In(loc).Zone()
	for _, at := range times {
		lt := at.In(loc)
		abbr, off := lt.Zone()
		o := Occurrence{At: lt, Zone: loc.String(), Abbrev: abbr, Offset: time.Duration(off) * time.Second,
			Shift: time.Duration(off-prevOff) * time.Second}
		if rule != nil {
			o.Note = rule.note(at)
		}
		out = append(out, o)
		prevOff = off
	}
	return out, nil
}

// note says how the clock change moved occurrence at of a fixed-time rule, or "".
func (r *cronRule) note(at time.Time) string {
	if !r.fixed {
		return ""
	}
	lt := at.In(r.loc)
	w := wallOf(at, r.loc)
	if r.spec.Next(w.Add(-time.Second)).Equal(w) { // at reads a time the expression names
		if insts, _ := resolve(w, r.loc); len(insts) == 2 {
			return fmt.Sprintf("%s happens twice on %s: runs at the first (%s)", lt.Format("15:04"), lt.Format("Mon 2 Jan 2006"), lt.Format("MST"))
		}
		return ""
	}
	_, was := at.Add(-time.Nanosecond).In(r.loc).Zone()
	from := at.UTC().Add(time.Duration(was) * time.Second)
	return fmt.Sprintf("a time it names is skipped on %s (clocks go from %s to %s %s): runs right after the change",
		lt.Format("Mon 2 Jan 2006"), from.Format("15:04"), lt.Format("15:04"), lt.Format("MST"))
}
