package view

import (
	"fmt"
	"time"

	"baton/store"
)

// Skipped occurrences, readable: the Activity tab names a schedule by its workflow and
// cadence, not its id, says when the occurrence was due as people read times, and folds
// a schedule's skips in a row into one line with a count (ActivityOf); the Schedules tab
// counts each schedule's skips and says why (SkipCounts, SkipText).

// scheduleKinds are the audit kinds that note an occurrence of a schedule.
var scheduleKinds = map[string]string{
	store.KindSkipped: "skipped", store.KindQueued: "queued", store.KindReplace: "replaced its live run with",
	store.KindCatchUp: "caught up on",
}

// ScheduleName names schedule id of doc for people: "the schedule of backup (every
// 1h)"; the id when doc no longer has it.
func ScheduleName(doc *store.Doc, id string) string {
	if doc != nil {
		if sc := doc.Schedule(id); sc != nil {
			return fmt.Sprintf("the schedule of %s (%s)", sc.Workflow, Cadence(sc))
		}
	}
	return "schedule " + id
}

// ActivityOf is AppendActivity with the document at hand: schedule notes name their
// workflow and say their due time as people read it, and a run of skips of one schedule
// (entries next to each other) is one line: "… skipped 12 occurrences, 14:00:10 to
// 14:01:60 …".
func ActivityOf(dst []Activity, es []store.Entry, now time.Time, doc *store.Doc) []Activity {
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		if e.Kind != store.KindSkipped && e.Kind != store.KindQueued && e.Kind != store.KindReplace && e.Kind != store.KindCatchUp {
			dst = append(dst, Activity{When: Stamp(e.Time, now), What: Describe(e)})
			continue
		}
		n, ok := noteOf(e)
		if !ok {
			dst = append(dst, Activity{When: Stamp(e.Time, now), What: Describe(e)})
			continue
		}
		// Fold the older skips of the same schedule right before this one.
		first, count := n, 1
		for i > 0 && e.Kind == store.KindSkipped && es[i-1].Kind == store.KindSkipped {
			prev, ok := noteOf(es[i-1])
			if !ok || prev.Schedule != n.Schedule {
				break
			}
			first, count = prev, count+1
			i--
		}
		dst = append(dst, Activity{When: Stamp(e.Time, now), What: noteText(e.Kind, n, first, count, doc, now)})
	}
	return dst
}

// noteText says what a schedule note (or count skips from first to n) records.
func noteText(kind string, n, first store.ScheduleNote, count int, doc *store.Doc, now time.Time) string {
	s := capital(ScheduleName(doc, n.Schedule)) + " " + scheduleKinds[kind] + " "
	switch {
	case count > 1:
		s += fmt.Sprintf("%d occurrences, due %s to %s", count, Stamp(first.Due, now), Stamp(n.Due, now))
	case !n.Due.IsZero():
		s += "the occurrence due " + Stamp(n.Due, now)
	default:
		s += "an occurrence"
	}
	if kind == store.KindSkipped {
		s += ": " + SkipWhy(n)
	} else if n.Run != "" {
		s += " (run " + n.Run + ")"
	}
	if n.Reason != "" && kind != store.KindSkipped {
		s += "; " + n.Reason
	}
	return s
}

// SkipWhy says why an occurrence was skipped.
func SkipWhy(n store.ScheduleNote) string {
	why := "its last run was still going (overlap: skip)"
	if n.Run != "" {
		why = fmt.Sprintf("its run %s was still going (overlap: skip)", n.Run)
	}
	if n.Reason != "" {
		why += "; " + n.Reason
	}
	return why
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// SkipCounts counts the skipped occurrences of each schedule in es.
func SkipCounts(es []store.Entry) map[string]int {
	out := map[string]int{}
	for _, e := range es {
		if n, ok := noteOf(e); ok && e.Kind == store.KindSkipped {
			out[n.Schedule]++
		}
	}
	return out
}

// SkipText is what a schedule's row adds for n skipped occurrences ("" for none).
func SkipText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" · %s skipped: a run was still going", Plural(n, "occurrence", "occurrences"))
}

// noteOf reads the schedule note of an audit entry from its data.
func noteOf(e store.Entry) (store.ScheduleNote, bool) {
	var n store.ScheduleNote
	n.Schedule, _ = e.Data["schedule"].(string)
	n.Reason, _ = e.Data["reason"].(string)
	n.Run, _ = e.Data["run"].(string)
	if due, ok := e.Data["due"].(string); ok {
		n.Due, _ = time.Parse(time.RFC3339Nano, due)
	}
	return n, n.Schedule != ""
}

// FilterActivity keeps, in place, the lines of as whose text holds q (any case); all of
// them when q is "".
func FilterActivity(as []Activity, q string) []Activity {
	if q == "" {
		return as
	}
	kept := as[:0]
	for _, a := range as {
		if ContainsFold(a.What, q) {
			kept = append(kept, a)
		}
	}
	return kept
}
