package host

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	"baton/store"
)

// Real-process tests of schedule edits through the control channel: what an edit changes,
// pausing, @every's rule, zone prefixes, tz changes and an idle writer's saves.

// scheduleOf returns schedule id as the child's snapshot shows it.
func scheduleOf(t *testing.T, c *child, id string) map[string]any {
	t.Helper()
	for _, s := range c.ok(map[string]any{"op": "snapshot"})["schedules"].([]any) {
		if m := s.(map[string]any); m["id"] == id {
			return m
		}
	}
	t.Fatalf("no schedule %s in the snapshot", id)
	return nil
}

// definition is the part of a snapshot's schedule that an edit may change.
func definition(s map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"workflow", "every", "cron", "tz", "paused", "overlap", "max_runtime", "on_overrun", "catch_up", "catch_up_window", "watermark"} {
		out[k] = s[k]
	}
	return out
}

// TestScheduleEditChangesOnlyTheFieldNamed: for each field of a schedule's definition, an
// update_schedule naming that field alone changes it and nothing else, on a live schedule
// and on a paused one, which stays paused (bug 1: set replaced the whole definition, so a
// field left out was reset, and paused left out resumed the schedule). paused: false on a
// paused schedule is refused and names resume_schedule.
func TestScheduleEditChangesOnlyTheFieldNamed(t *testing.T) {
	t.Parallel()
	a := startChild(t, t.TempDir())
	a.initialRole()
	a.ok(addWF("w", 1, "fail"))
	a.ok(addWF("w2", 1, "fail"))
	base := map[string]any{"workflow": "w", "cron": "0 4 * * *", "tz": "Europe/Paris", "overlap": "skip",
		"max_runtime": "1m0s", "on_overrun": "warn", "catch_up": "latest", "catch_up_window": "1h0m0s", "watermark": "w0"}
	edits := []struct {
		set  map[string]any
		also map[string]any // what else the definition shows after it
	}{
		{set: map[string]any{"workflow": "w2"}},
		{set: map[string]any{"every": "2h0m0s"}, also: map[string]any{"cron": nil}},
		{set: map[string]any{"cron": "30 5 * * 1-5"}},
		{set: map[string]any{"tz": "Asia/Tokyo"}},
		{set: map[string]any{"overlap": "queue"}},
		{set: map[string]any{"max_runtime": "5m0s"}},
		{set: map[string]any{"on_overrun": "cancel"}},
		{set: map[string]any{"catch_up": "all"}},
		{set: map[string]any{"catch_up_window": "2h0m0s"}},
		{set: map[string]any{"watermark": "w9"}},
	}
	for _, paused := range []bool{false, true} {
		for _, e := range edits {
			id := a.ok(map[string]any{"op": "add_schedule", "schedule": maps.Clone(base)})["schedule"].(string)
			if paused {
				a.ok(map[string]any{"op": "pause_schedule", "schedule": id})
			}
			before := scheduleOf(t, a, id)
			a.ok(map[string]any{"op": "update_schedule", "schedule": id, "set": e.set})
			after := scheduleOf(t, a, id)
			want := definition(before)
			maps.Copy(want, e.set)
			maps.Copy(want, e.also)
			if got := definition(after); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("paused %v, set %v: definition\n got %v\nwant %v", paused, e.set, got, want)
			}
			if paused && after["next_due"] != nil {
				t.Errorf("paused schedule edited with %v has next_due %v", e.set, after["next_due"])
			}
			if !paused && after["next_due"] == nil {
				t.Errorf("live schedule edited with %v has no next_due", e.set)
			}
		}
	}
	id := a.ok(map[string]any{"op": "add_schedule", "schedule": maps.Clone(base)})["schedule"].(string)
	a.ok(map[string]any{"op": "pause_schedule", "schedule": id})
	r := a.do(map[string]any{"op": "update_schedule", "schedule": id, "set": map[string]any{"paused": false, "overlap": "allow"}})
	if r["ok"] != false || r["code"] != "invalid" || !strings.Contains(fmt.Sprint(r["error"]), "resume_schedule") {
		t.Fatalf("an edit saying paused: false: %v, want invalid naming resume_schedule", r)
	}
	if s := scheduleOf(t, a, id); s["paused"] != true || s["overlap"] != "skip" {
		t.Fatalf("a refused edit changed the schedule: %v", s)
	}
	// The object form names fields the same way; an unknown field is refused.
	a.ok(map[string]any{"op": "update_schedule", "schedule": map[string]any{"id": id, "overlap": "allow"}})
	if s := scheduleOf(t, a, id); s["paused"] != true || s["overlap"] != "allow" || s["workflow"] != "w" {
		t.Fatalf("object-form edit: %v", s)
	}
	if r := a.do(map[string]any{"op": "update_schedule", "schedule": id, "set": map[string]any{"surprise": 1}}); r["code"] != "invalid" {
		t.Fatalf("unknown field: %v", r)
	}
}

// heartbeat adds a schedule due every second on its own workflow, so a test can wait for a
// scheduling pass after some instant: the pass that runs the heartbeat's occurrence due
// after it handles every other schedule too (one pass handles all).
func heartbeat(t *testing.T, c *child) {
	t.Helper()
	c.ok(addWF("hb", 5, "fail"))
	c.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "hb", "every": "1s", "overlap": "allow"}})
}

// passAfter waits until the heartbeat's occurrence due after at has a run: a scheduling
// pass looked at every schedule after at.
func passAfter(t *testing.T, c *child, home string, at time.Time) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, r := range readDisk(t, home).Runs {
			if r.Workflow == "hb" && r.Due.After(at) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no scheduling pass after %s within 30s", at.Format(time.RFC3339Nano))
		}
		c.waitEvent(c.nEvents(), 10*time.Second, func(map[string]any) bool { return true })
	}
}

// runsOfSchedule returns the runs of schedule id in home's document.
func runsOfSchedule(t *testing.T, home, id string) []store.Run {
	var out []store.Run
	for _, r := range readDisk(t, home).Runs {
		if r.Schedule == id {
			out = append(out, r)
		}
	}
	return out
}

// TestEditOfPausedScheduleCatchesNothingUp is bug 1 as found: a schedule due every second
// with catch_up all is paused; occurrences fall due; an edit of one field leaves it paused
// and runs none of them; after resume_schedule, only occurrences due after the resume run.
func TestEditOfPausedScheduleCatchesNothingUp(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	heartbeat(t, a)
	a.ok(addWF("w", 5, "fail"))
	id := a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "w", "every": "1s", "catch_up": "all", "overlap": "allow"}})["schedule"].(string)
	a.ok(map[string]any{"op": "pause_schedule", "schedule": id})
	pausedAt := time.Now()
	sleepUntil(pausedAt.Add(2500 * time.Millisecond)) // two occurrences fall due while paused
	a.ok(map[string]any{"op": "update_schedule", "schedule": id, "set": map[string]any{"catch_up_window": "1h"}})
	edited := time.Now()
	passAfter(t, a, home, edited)
	if s := scheduleOf(t, a, id); s["paused"] != true {
		t.Fatalf("the edit resumed the schedule: %v", s)
	}
	var dues []string
	for _, r := range runsOfSchedule(t, home, id) {
		if r.Due.After(pausedAt) {
			dues = append(dues, r.Due.Format(time.RFC3339Nano))
		}
	}
	if len(dues) > 0 {
		t.Fatalf("occurrences due while paused ran after an edit: %v", dues)
	}
	resumed := time.Now() // the writer resumes it at this instant or later
	a.ok(map[string]any{"op": "resume_schedule", "schedule": id})
	passAfter(t, a, home, resumed.Add(1500*time.Millisecond))
	n := 0
	for _, r := range runsOfSchedule(t, home, id) {
		if r.Due.After(pausedAt) && r.Due.Before(resumed) {
			t.Fatalf("occurrence %s, due while paused, ran after resume", r.Due)
		}
		if r.Due.After(resumed) {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no occurrence ran after resume")
	}
	if k := auditKinds(t, a); k["catch_up"] != 0 {
		t.Fatalf("paused time was treated as missed: audit %v", k)
	}
}

// TestEveryRuleHoldsForAtEvery: "@every" in cron obeys the rule of every (bug 2: "@every
// -5m", "0s" and "10ms" were accepted and ran every second); the refusal names the rule,
// for add_schedule and update_schedule alike.
func TestEveryRuleHoldsForAtEvery(t *testing.T) {
	t.Parallel()
	a := startChild(t, t.TempDir())
	a.initialRole()
	a.ok(addWF("w", 1, "fail"))
	bad := []map[string]any{
		{"cron": "@every -5m"}, {"cron": "@every 0s"}, {"cron": "@every 10ms"}, {"cron": "@every 999ms"},
		{"every": "-1h"}, {"every": "500ms"},
	}
	id := a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "w", "cron": "@every 1h"}})["schedule"].(string)
	for _, b := range bad {
		add := maps.Clone(b)
		add["workflow"] = "w"
		for _, req := range []map[string]any{
			{"op": "add_schedule", "schedule": add},
			{"op": "update_schedule", "schedule": id, "set": b},
		} {
			r := a.do(req)
			msg := fmt.Sprint(r["error"])
			if b["every"] == "-1h" && strings.Contains(msg, "negative") {
				continue // refused where durations are read, as before
			}
			if r["ok"] != false || r["code"] != "invalid" || !strings.Contains(msg, "at least 1s") {
				t.Errorf("%s %v: %v, want invalid naming the rule (at least 1s)", req["op"], b, r)
			}
		}
	}
	if s := scheduleOf(t, a, id); s["cron"] != "@every 1h" {
		t.Fatalf("a refused edit changed the schedule: %v", s)
	}
}

// TestZonePrefixMovedIntoTZOrRefused: a CRON_TZ= or TZ= prefix alone is moved into tz
// (the stored expression and the zone shown agree); beside a tz it is refused (bug 7: the
// prefix silently won over tz).
func TestZonePrefixMovedIntoTZOrRefused(t *testing.T) {
	t.Parallel()
	a := startChild(t, t.TempDir())
	a.initialRole()
	a.ok(addWF("w", 1, "fail"))
	r := a.do(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "w", "cron": "CRON_TZ=Asia/Tokyo 0 3 * * *", "tz": "Europe/Paris"}})
	if r["code"] != "invalid" || !strings.Contains(fmt.Sprint(r["error"]), "give the zone once") {
		t.Fatalf("prefix beside tz: %v, want invalid", r)
	}
	id := a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "w", "cron": "CRON_TZ=Asia/Tokyo 0 3 * * *"}})["schedule"].(string)
	s := scheduleOf(t, a, id)
	due, _ := time.Parse(time.RFC3339, fmt.Sprint(s["next_due"]))
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	if s["cron"] != "0 3 * * *" || s["tz"] != "Asia/Tokyo" || due.In(tokyo).Format("15:04") != "03:00" {
		t.Fatalf("prefix alone: %v, want cron 0 3 * * * in tz Asia/Tokyo, next at 03:00 there", s)
	}
	a.ok(map[string]any{"op": "update_schedule", "schedule": id, "set": map[string]any{"cron": "TZ=America/New_York 0 5 * * *"}})
	if s := scheduleOf(t, a, id); s["cron"] != "0 5 * * *" || s["tz"] != "America/New_York" {
		t.Fatalf("edit with a prefix: %v", s)
	}
	r = a.do(map[string]any{"op": "update_schedule", "schedule": id, "set": map[string]any{"cron": "CRON_TZ=UTC 0 5 * * *", "tz": "UTC"}})
	if r["code"] != "invalid" {
		t.Fatalf("edit with a prefix and a tz: %v, want invalid", r)
	}
}

// TestTZChangeRunsNothingAtOnce is bug 5: a daily schedule whose time in its new zone
// passed a moment ago (since it was created) does not run when only its tz changes: an
// edit never creates a missed occurrence. The window's clock (BATON_TEST_NOW, testClock)
// starts six seconds before a whole minute (the expression's unit), so that minute passes
// within seconds rather than up to a minute.
func TestTZChangeRunsNothingAtOnce(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	base := time.Now().UTC().Truncate(time.Minute).Add(48*time.Hour - 6*time.Second)
	a := startChild(t, home, withEnv("BATON_TEST_NOW="+base.Format(time.RFC3339Nano)))
	a.initialRole()
	clock := childClock(t, a, home)
	a.ok(addWF("w", 1, "fail"))
	var id string
	var target time.Time
	for {
		_, hi := clock()
		target = hi.Truncate(time.Minute).Add(time.Minute)
		expr := fmt.Sprintf("%d %d * * *", target.Minute(), target.Hour())
		// In Tokyo that reading is nine hours away from now: nothing is due there soon.
		id = a.ok(map[string]any{"op": "add_schedule", "schedule": map[string]any{"workflow": "w", "cron": expr, "tz": "Asia/Tokyo", "catch_up": "latest"}})["schedule"].(string)
		created := readDisk(t, home).Schedule(id).Created
		if created.Before(target) {
			break
		}
		// A loaded machine took past the minute: that schedule proves nothing.
		t.Logf("schedule %s was created at %s, not before %s: again for the next minute", id, created, target)
	}
	for lo, _ := clock(); lo.Before(target.Add(1500 * time.Millisecond)); lo, _ = clock() {
		time.Sleep(target.Add(1500 * time.Millisecond).Sub(lo)) // now its time in UTC has just passed, by the window's clock
	}
	a.ok(map[string]any{"op": "update_schedule", "schedule": id, "set": map[string]any{"tz": "UTC"}})
	_, hi := clock()
	passAfter(t, a, home, hi.Add(time.Second))
	if rs := runsOfSchedule(t, home, id); len(rs) > 0 {
		t.Fatalf("changing only tz ran occurrence %s at once", rs[0].Due)
	}
	s := scheduleOf(t, a, id)
	if due, _ := time.Parse(time.RFC3339, fmt.Sprint(s["next_due"])); !due.Equal(target.Add(24 * time.Hour)) {
		t.Fatalf("next_due %v, want %s (tomorrow at the time it names)", s["next_due"], target.Add(24*time.Hour))
	}
}

// childClock starts the heartbeat (see heartbeat) and returns the bounds of c's clock
// (Options.Now, which BATON_TEST_NOW may set) at the moment it is called: the heartbeat
// schedule's creation time is a reading of that clock taken while the test waited for
// the reply, and the clock runs at the real pace.
func childClock(t *testing.T, c *child, home string) func() (lo, hi time.Time) {
	t.Helper()
	sent := time.Now()
	heartbeat(t, c)
	answered := time.Now()
	var created time.Time
	for _, s := range readDisk(t, home).Schedules {
		if s.Workflow == "hb" {
			created = s.Created
		}
	}
	if created.IsZero() {
		t.Fatal("no heartbeat schedule on disk")
	}
	return func() (lo, hi time.Time) {
		now := time.Now()
		return created.Add(now.Sub(answered)), created.Add(now.Sub(sent))
	}
}

// TestIdleWriterSavesNothing is bug 4: with schedules due in an hour ("@every 1h", every
// 1h, a daily cron), a writer saves nothing while nothing is due (an "@every" schedule made
// it save every second, its next_due moving with each pass), and next_due is the real next
// due time: creation + 1h for both durations. The observation window is three passes of
// the scheduler (it wakes every second).
func TestIdleWriterSavesNothing(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	a := startChild(t, home)
	a.initialRole()
	a.ok(addWF("w", 1, "fail"))
	var ids []string
	for _, s := range []map[string]any{{"cron": "@every 1h"}, {"every": "1h"}, {"cron": "0 3 * * *"}} {
		s["workflow"] = "w"
		ids = append(ids, a.ok(map[string]any{"op": "add_schedule", "schedule": s})["schedule"].(string))
	}
	g0 := readDisk(t, home).Generation
	time.Sleep(3500 * time.Millisecond)
	d := readDisk(t, home)
	if d.Generation != g0 {
		t.Fatalf("an idle writer saved %d times in 3.5 s", d.Generation-g0)
	}
	for _, id := range ids[:2] {
		s := d.Schedule(id)
		if want := s.Created.Add(time.Hour); !s.NextDue.Equal(want) {
			t.Fatalf("schedule %s (%s%s): next_due %s, want %s", id, s.Cron, s.Every.D(), s.NextDue, want)
		}
	}
	b, _ := json.Marshal(d.Schedules)
	t.Logf("generation %d throughout; schedules %s", g0, b)
}
