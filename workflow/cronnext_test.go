package workflow

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron/v3"

	"baton/store"
)

// dstExprs are the expressions of the DST table: fixed times in and around the shifts
// (whole-hour ones at 01:00-03:00, half-hour ones for Lord Howe, midnight shifts), on the
// weekday of most transitions, and wildcard and stepped ones that follow elapsed time.
var dstExprs = []string{
	"30 1 * * *", "0 2 * * *", "30 2 * * *", "59 1 * * *", "15 2 * * *", "0 3 * * *", "45 2 * * *",
	"0 0 * * *", "30 0 * * *", "59 23 * * *", "30 23 * * *", "0 1 * * *",
	"0 12 * * 0", "30 2 * * 0", "0 0 * * 0", "0 0 * * 6", "0 2,3 * * *", "30 1-3 * * *",
	"@daily", "@weekly",
	"*/15 * * * *", "0 * * * *", "30 * * * *", "0 */2 * * *", "*/20 2 * * *", "@hourly",
}

// systemZones lists every zone of the system's tz database that Go can load.
func systemZones(t *testing.T) []string {
	t.Helper()
	root := "/usr/share/zoneinfo"
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no system tz database at %s: %v", root, err)
	}
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == "posix" || rel == "right" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.Contains(rel, ".") || rel == "Factory" || strings.ToLower(rel) == rel && !strings.Contains(rel, "/") {
			return nil // tzdata.zi, zone.tab, leapseconds, posixrules...
		}
		if _, err := time.LoadLocation(rel); err == nil {
			out = append(out, rel)
		}
		return nil
	})
	if len(out) < 300 {
		t.Fatalf("found only %d zones in %s", len(out), root)
	}
	return out
}

// transitions returns the instants in [from, to) at which loc's offset changes.
func transitions(loc *time.Location, from, to time.Time) []time.Time {
	var out []time.Time
	for t := from; t.Before(to); {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() || !end.Before(to) {
			break
		}
		_, o1 := end.Add(-time.Second).In(loc).Zone()
		_, o2 := end.In(loc).Zone()
		if o1 != o2 {
			out = append(out, end)
		}
		t = end
	}
	return out
}

// matches reports whether wall-clock reading w (written as UTC) matches spec, field by
// field from the library's parse (the day rule: when both day fields are restricted,
// either may match).
func matches(spec *cron.SpecSchedule, w time.Time) bool {
	const star = 1 << 63
	h, m, sec := w.Clock()
	if sec != 0 || !bit(spec.Hour, h) || !bit(spec.Minute, m) {
		return false
	}
	return dayMatches(spec, w)
}

func bit(set uint64, v int) bool { return set&(1<<uint(v)) != 0 }

// dayMatches reports whether the date of w matches the day and month fields of spec.
func dayMatches(spec *cron.SpecSchedule, w time.Time) bool {
	const star = 1 << 63
	_, mo, d := w.Date()
	domOK, dowOK := bit(spec.Dom, d), bit(spec.Dow, int(w.Weekday()))
	day := domOK && dowOK
	if spec.Dom&star == 0 && spec.Dow&star == 0 {
		day = domOK || dowOK
	}
	return day && bit(spec.Month, int(mo))
}

// minutes returns the instants of each minute of [from, to] and their wall-clock readings
// in loc.
func minutes(loc *time.Location, from, to time.Time) (insts, walls []time.Time) {
	n := int(to.Sub(from)/time.Minute) + 1
	insts, walls = make([]time.Time, n), make([]time.Time, n)
	for k := range insts {
		insts[k] = from.Add(time.Duration(k) * time.Minute)
		walls[k] = wallOf(insts[k], loc)
	}
	return insts, walls
}

// expected lists by brute force, minute by minute over (insts[0], insts[n-1]], the occurrences the
// documented rule gives. Elapsed time: every instant whose wall-clock reading matches.
// Fixed time: for each local day and each time it names, the first instant whose reading
// is at or after that time (the time itself, its first reading when repeated, or the
// instant right after the jump when skipped), once per instant.
func expected(rule *cronRule, insts, walls []time.Time) []time.Time {
	n := len(insts)
	var out []time.Time
	if !rule.fixed {
		for k, w := range walls {
			if k > 0 && matches(rule.spec, w) {
				out = append(out, insts[k])
			}
		}
		return out
	}
	add := func(i time.Time) {
		if !slices.ContainsFunc(out, i.Equal) {
			out = append(out, i)
		}
	}
	lo := walls[0].Truncate(24*time.Hour).AddDate(0, 0, -1)
	for day := lo; day.Before(walls[n-1].AddDate(0, 0, 2)); day = day.AddDate(0, 0, 1) {
		if !dayMatches(rule.spec, day) {
			continue
		}
		for m := 0; m < 24*60; m++ {
			if !bit(rule.spec.Hour, m/60) || !bit(rule.spec.Minute, m%60) {
				continue
			}
			w := day.Add(time.Duration(m) * time.Minute)
			for k := range walls {
				if !walls[k].Before(w) {
					if k > 0 { // a reading before the window may have been the first
						add(insts[k])
					}
					break
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

// nextFn is the computation under test (robfig's own Next, put here, fails the table).
var nextFn = func(r *cronRule, t time.Time) time.Time { return r.next(t) }

// TestCronAcrossEveryTransition is the DST table: for every zone of the system's tz
// database and every offset change of 2026 and 2027, the occurrences of each expression
// from 30 hours before to 30 hours after the change, chained through Next, are exactly
// those the rule gives (worked out minute by minute, independently of Next): a fixed time
// once per matching local day (a skipped one right after the jump, a repeated one at its
// first reading), anything else at each instant whose reading matches. robfig/cron's own
// Next fails it (Lord Howe's 30-minute shift, Beirut's and Santiago's midnight ones,
// Berlin's 02:30 on both change days).
func TestCronAcrossEveryTransition(t *testing.T) {
	from, to := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)
	zones := systemZones(t)
	if raceBuild {
		named := []string{"Europe/Berlin", "Australia/Lord_Howe", "Asia/Beirut", "America/Santiago"}
		zones = slices.DeleteFunc(zones, func(z string) bool {
			return !slices.Contains(named, z) && len(z)%10 != 0
		})
	}
	var nTrans, nChecked int
	for _, zone := range zones {
		loc, _ := time.LoadLocation(zone)
		trs := transitions(loc, from, to)
		nTrans += len(trs)
		bad := map[string]int{}
		for _, tr := range trs {
			lo, hi := tr.Add(-30*time.Hour), tr.Add(30*time.Hour)
			insts, walls := minutes(loc, lo, hi)
			for _, expr := range dstExprs {
				rule, err := compileCron(expr, loc)
				if err != nil {
					t.Fatal(err)
				}
				want := expected(rule, insts, walls)
				var got []time.Time
				for at := nextFn(rule, lo); !at.IsZero() && !at.After(hi); at = nextFn(rule, at) {
					got = append(got, at)
					if len(got) > len(want)+5 {
						break
					}
				}
				nChecked++
				if !slices.EqualFunc(got, want, time.Time.Equal) && bad[expr] < 2 {
					bad[expr]++
					t.Errorf("%s %q around the change at %s: %s", zone, expr, tr.In(loc).Format(time.RFC3339), diffTimes(got, want, loc))
				}
			}
		}
	}
	t.Logf("%d zones, %d transitions in 2026-27, %d expression windows checked", len(zones), nTrans, nChecked)
	if nTrans < 300 && !raceBuild {
		t.Fatalf("only %d transitions found: the table would prove little", nTrans)
	}
}

// diffTimes says which occurrences Next gave that the rule does not, and which it missed.
func diffTimes(got, want []time.Time, loc *time.Location) string {
	f := func(ts []time.Time, not []time.Time) []string {
		var out []string
		for _, x := range ts {
			if !slices.ContainsFunc(not, x.Equal) {
				out = append(out, x.In(loc).Format("Mon 2006-01-02 15:04 MST"))
			}
		}
		return out
	}
	return fmt.Sprintf("extra %v, missing %v", f(got, want), f(want, got))
}

// TestDSTExamples pins the examples of README.md in this folder ("The DST rule") and the
// issue's cases by name.
func TestDSTExamples(t *testing.T) {
	at := func(zone, local string) time.Time {
		loc, _ := time.LoadLocation(zone)
		tm, err := time.ParseInLocation("2006-01-02 15:04 -0700", local, loc)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	cases := []struct {
		zone, expr, after string
		want              []string
	}{
		// Berlin springs forward 02:00 -> 03:00 CEST on 29 Mar 2026: 02:30 runs at 03:00.
		{"Europe/Berlin", "30 2 * * *", "2026-03-28 12:00 +0100", []string{"2026-03-29 03:00 +0200", "2026-03-30 02:30 +0200"}},
		// ...and falls back 03:00 -> 02:00 CET on 25 Oct 2026: 02:30 runs once, the first.
		{"Europe/Berlin", "30 2 * * *", "2026-10-24 12:00 +0200", []string{"2026-10-25 02:30 +0200", "2026-10-26 02:30 +0100"}},
		// Hourly follows elapsed time: no 02:00 on the spring day, two on the autumn day.
		{"Europe/Berlin", "0 * * * *", "2026-03-29 00:30 +0100", []string{"2026-03-29 01:00 +0100", "2026-03-29 03:00 +0200"}},
		{"Europe/Berlin", "0 * * * *", "2026-10-25 01:30 +0200", []string{"2026-10-25 02:00 +0200", "2026-10-25 02:00 +0100", "2026-10-25 03:00 +0100"}},
		// Lord Howe: 02:00 -> 02:30 on 4 Oct 2026; 01:30 runs once, 03:00 runs.
		{"Australia/Lord_Howe", "30 1 * * *", "2026-10-03 12:00 +1030", []string{"2026-10-04 01:30 +1030", "2026-10-05 01:30 +1100"}},
		{"Australia/Lord_Howe", "0 3 * * *", "2026-10-03 12:00 +1030", []string{"2026-10-04 03:00 +1100", "2026-10-05 03:00 +1100"}},
		{"Australia/Lord_Howe", "0 0 * * *", "2026-10-04 12:00 +1100", []string{"2026-10-05 00:00 +1100", "2026-10-06 00:00 +1100"}},
		{"Australia/Lord_Howe", "15 2 * * *", "2026-10-03 12:00 +1030", []string{"2026-10-04 02:30 +1100", "2026-10-05 02:15 +1100"}},
		// Beirut springs forward at midnight into Sunday 29 Mar 2026.
		{"Asia/Beirut", "0 12 * * 0", "2026-03-28 12:00 +0200", []string{"2026-03-29 12:00 +0300", "2026-04-05 12:00 +0300"}},
		{"Asia/Beirut", "0 0 * * *", "2026-03-28 12:00 +0200", []string{"2026-03-29 01:00 +0300", "2026-03-30 00:00 +0300"}},
	}
	for _, c := range cases {
		s := &store.Schedule{Cron: c.expr, TZ: c.zone}
		got, err := NextTimes(s, at(c.zone, c.after), len(c.want))
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range c.want {
			if !got[i].Equal(at(c.zone, w)) {
				loc, _ := time.LoadLocation(c.zone)
				t.Errorf("%s %q after %s: occurrence %d is %s, want %s", c.zone, c.expr, c.after, i+1, got[i].In(loc).Format("2006-01-02 15:04 MST"), w)
			}
		}
	}
}

// TestUpcomingNamesZoneAndShift: the preview's occurrences carry the zone, the offset,
// the shift since the one before, and a note when the change moved a fixed time.
func TestUpcomingNamesZoneAndShift(t *testing.T) {
	loc, _ := time.LoadLocation("Europe/Berlin")
	s := &store.Schedule{Cron: "30 2 * * *", TZ: "Europe/Berlin"}
	occ, err := Upcoming(s, time.Date(2026, 3, 28, 12, 0, 0, 0, loc), 2)
	if err != nil {
		t.Fatal(err)
	}
	o := occ[0]
	if o.Zone != "Europe/Berlin" || o.Abbrev != "CEST" || o.Offset != 2*time.Hour || o.Shift != time.Hour ||
		!strings.Contains(o.Note, "02:00 to 03:00 CEST") {
		t.Fatalf("spring-forward occurrence: %+v", o)
	}
	if occ[1].Shift != 0 || occ[1].Note != "" {
		t.Fatalf("the day after: %+v", occ[1])
	}
	occ, _ = Upcoming(s, time.Date(2026, 10, 24, 12, 0, 0, 0, loc), 2)
	if !strings.Contains(occ[0].Note, "happens twice") || occ[0].Abbrev != "CEST" || occ[1].Shift != -time.Hour {
		t.Fatalf("fall-back occurrences: %+v", occ)
	}
	e := &store.Schedule{Every: store.Duration(90 * time.Second), Created: time.Date(2026, 3, 29, 0, 59, 27, 0, time.UTC), TZ: "Europe/Berlin"}
	occ, _ = Upcoming(e, e.Created, 1)
	if occ[0].At.Second() != 57 {
		t.Fatalf("an every-schedule's occurrence lost its seconds: %v", occ[0].At)
	}
}
