package workflow

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"baton/store"
)

// Overlap policies: what an occurrence does when the schedule's previous run is alive.
const (
	OverlapSkip    = "skip"    // record a skipped occurrence (default)
	OverlapQueue   = "queue"   // wait; at most one waiting occurrence, more collapse into it
	OverlapAllow   = "allow"   // run beside it, bounded by the workflow's lane
	OverlapReplace = "replace" // cancel the live run, wait until its group is gone, then start
)

// Catch-up policies for occurrences missed while no writer ran them.
const (
	CatchUpNone   = "none"   // skip to the next future occurrence
	CatchUpLatest = "latest" // run once, for the most recent missed occurrence (default)
	CatchUpAll    = "all"    // run each missed occurrence in order, within catch_up_window
)

// MaxCatchUp bounds how many missed occurrences one pass looks at.
const MaxCatchUp = 1000

// DefaultCatchUpWindow bounds catch_up "all" when no window is given.
const DefaultCatchUpWindow = 24 * time.Hour

// onTime is how late an occurrence may be handled and still count as on time rather
// than missed: a writer's scheduler wakes within a second of each due time.
const onTime = 5 * time.Second

// NormalizeSchedule fills defaults into s and validates it against d. It sets Created,
// LastDue (occurrences are counted from now on) and NextDue on a new schedule. A cron
// expression's CRON_TZ= or TZ= prefix is moved into tz when tz is empty (and refused
// beside a tz). A broken rule is ErrInvalid wrapping a store.FieldErrors that names every
// field at fault, in plain words (a cron expression's problem says which of its five
// fields is wrong).
func NormalizeSchedule(d *store.Doc, s *store.Schedule, now time.Time) error {
	if s.Overlap == "" {
		s.Overlap = OverlapSkip
	}
	if s.OnOverrun == "" {
		s.OnOverrun = "warn"
	}
	if s.CatchUp == "" {
		s.CatchUp = CatchUpLatest
	}
	movePrefixToTZ(s)
	if err := validateSchedule(d, s, now); err != nil {
		return fmt.Errorf("%w: schedule: %w", ErrInvalid, err)
	}
	if s.Created.IsZero() {
		s.Created = now.UTC()
	}
	if s.LastDue.IsZero() {
		s.LastDue = now.UTC()
	}
	next, err := Next(s, s.LastDue)
	if err != nil {
		field := "every"
		if s.Cron != "" {
			field = "cron"
		}
		return fmt.Errorf("%w: schedule: %w", ErrInvalid, store.FieldErrors{{Field: field, Message: err.Error()}})
	}
	s.NextDue = next
	if s.Paused {
		s.NextDue = time.Time{} // nothing is due while it is paused
	}
	return nil
}

// movePrefixToTZ moves a cron expression's zone prefix into tz when tz is empty and the
// zone is known ("CRON_TZ=Asia/Tokyo 0 3 * * *" becomes tz Asia/Tokyo, cron "0 3 * * *"),
// so that the stored expression, the preview and the zone shown agree.
func movePrefixToTZ(s *store.Schedule) {
	zone, rest, ok := splitZonePrefix(s.Cron)
	if !ok || s.TZ != "" || zone == "" || rest == "" {
		return
	}
	if _, err := time.LoadLocation(zone); err == nil {
		s.TZ, s.Cron = zone, rest
	}
}

// validateSchedule returns every broken rule of s as a store.FieldErrors, or nil.
func validateSchedule(d *store.Doc, s *store.Schedule, now time.Time) error {
	var errs store.FieldErrors
	switch {
	case s.Workflow == "":
		errs.Add("workflow", "choose the workflow to run")
	case d.Workflow(s.Workflow) == nil:
		errs.Add("workflow", fmt.Sprintf("no workflow named %q", s.Workflow))
	}
	switch {
	case s.Every > 0 && s.Cron != "":
		errs.Add("every", "give either every or cron, not both")
	case s.Every == 0 && s.Cron == "":
		errs.Add("every", "one of every or cron is required, such as every 1h or cron 0 3 * * *")
	case s.Cron == "" && everyProblem(s.Every.D()) != "":
		errs.Add("every", everyProblem(s.Every.D()))
	}
	if zone, _, ok := splitZonePrefix(s.Cron); ok && s.TZ != "" {
		errs.Add("cron", fmt.Sprintf("names its zone (%s) beside tz %q: give the zone once, in tz or as the prefix", zone, s.TZ))
	}
	loc, tzErr := location(s.TZ)
	if tzErr != nil {
		errs.Add("tz", fmt.Sprintf("unknown time zone %q; use a name such as Europe/Paris or UTC", s.TZ))
		loc = time.UTC
	}
	if s.Cron != "" {
		if msg := CronProblem(s.Cron); msg != "" {
			errs.Add("cron", msg)
		} else if rule, err := cronRuleOf(s); err == nil && rule != nil && rule.next(now.In(loc)).IsZero() {
			errs.Add("cron", "never comes round: no date matches it (such as the 30th of February)")
		}
	}
	switch s.Overlap {
	case OverlapSkip, OverlapQueue, OverlapAllow, OverlapReplace:
	default:
		errs.Add("overlap", fmt.Sprintf("must be skip, queue, allow or replace, got %q", s.Overlap))
	}
	switch s.OnOverrun {
	case "warn", "cancel":
	default:
		errs.Add("on_overrun", fmt.Sprintf("must be warn or cancel, got %q", s.OnOverrun))
	}
	switch s.CatchUp {
	case CatchUpNone, CatchUpLatest, CatchUpAll:
	default:
		errs.Add("catch_up", fmt.Sprintf("must be none, latest or all, got %q", s.CatchUp))
	}
	return errs.Err()
}

// Next returns the first occurrence of s strictly after t. An every-schedule's
// occurrences (and those of "@every D") are Created + k*every; a cron schedule's follow
// its expression in its zone by the rule of cronnext.go (a fixed time runs once per
// matching local day across a clock change; other expressions follow elapsed time). A
// cron expression no date matches is an error, never the zero time.
func Next(s *store.Schedule, t time.Time) (time.Time, error) {
	if every, ok := everyOfSchedule(s); ok {
		if msg := everyProblem(every); msg != "" {
			return time.Time{}, fmt.Errorf("every %s", msg)
		}
		if t.Before(s.Created) {
			return s.Created.Add(every).UTC(), nil
		}
		k := t.Sub(s.Created)/every + 1
		return s.Created.Add(k * every).UTC(), nil
	}
	rule, err := cronRuleOf(s)
	if err != nil {
		return time.Time{}, err
	}
	next := rule.next(t)
	if next.IsZero() {
		return time.Time{}, fmt.Errorf("cron %q never comes round after %s", s.Cron, t.Format(time.RFC3339))
	}
	return next.UTC(), nil
}

// NextTimes returns the next n occurrences after t (for previews).
func NextTimes(s *store.Schedule, t time.Time, n int) ([]time.Time, error) {
	var out []time.Time
	for i := 0; i < n; i++ {
		nt, err := Next(s, t)
		if err != nil {
			return nil, err
		}
		out = append(out, nt)
		t = nt
	}
	return out, nil
}

// Decision kinds. Every kind but started is recorded in the audit log (Record); a
// started run is its own record.
const (
	DecisionStarted = "started"
	DecisionSkipped = store.KindSkipped
	DecisionQueued  = store.KindQueued
	DecisionCatchUp = store.KindCatchUp
	DecisionReplace = store.KindReplace
	DecisionOverrun = store.KindOverrun
)

// Decision is one thing a scheduler pass did or asks its caller to do, for the audit log
// and the executor.
type Decision struct {
	Kind     string      `json:"kind"` // a Decision kind: started, skipped, queued, catch_up, replace, overrun
	Schedule string      `json:"schedule"`
	Due      time.Time   `json:"due,omitzero"`
	Run      string      `json:"run,omitempty"`    // the run started, or the live run in the way
	Cancel   string      `json:"cancel,omitempty"` // a run the caller must cancel (replace, overrun)
	Reason   string      `json:"reason,omitempty"`
	Missed   int         `json:"missed,omitempty"`
	Dues     []time.Time `json:"-"`
}

// Record is the audit record of the decision, or nil for one that is not recorded
// (started, or a kind this version does not know).
func (dec Decision) Record() store.Record {
	note := store.ScheduleNote{Schedule: dec.Schedule, Reason: dec.Reason, Due: dec.Due, Run: dec.Run}
	switch dec.Kind {
	case DecisionSkipped:
		return store.Skipped{ScheduleNote: note}
	case DecisionQueued:
		return store.Queued{ScheduleNote: note}
	case DecisionReplace:
		return store.Replace{ScheduleNote: note}
	case DecisionOverrun:
		return store.Overrun{ScheduleNote: note}
	case DecisionCatchUp:
		return store.CatchUp{ScheduleNote: note, Missed: dec.Missed, Running: dec.Dues}
	}
	return nil
}

// Tick handles every occurrence of every schedule due at now, inside the save that
// records it: a run is created for an occurrence key (schedule, due) at most once, since
// LastDue only moves forward and is saved with the run, before any step is spawned. A
// clock that jumps backwards finds nothing due. owner is the writer window.
func Tick(d *store.Doc, now time.Time, owner store.Owner) []Decision {
	return TickAsOf(d, now, now, owner)
}

// TickAsOf is Tick for the occurrences due at asOf (not after): what is late is judged at
// asOf, while now dates the runs it creates. `tick --once` passes the instant it started
// on every pass, so it runs what was due then (and what that leaves waiting), never
// what comes due while its runs go on: that is the next tick's. Called again with the
// same asOf, it only starts waiting occurrences whose turn came.
func TickAsOf(d *store.Doc, asOf, now time.Time, owner store.Owner) []Decision {
	var out []Decision
	for i := range d.Schedules {
		s := &d.Schedules[i]
		if s.Paused || d.Workflow(s.Workflow) == nil {
			continue
		}
		dues := dueKeys(s, asOf)
		if len(dues) > 0 {
			s.LastDue = dues[len(dues)-1]
		}
		dues, dec := catchUp(s, dues, asOf)
		out = append(out, dec...)
		for _, due := range dues {
			inOrder := s.CatchUp == CatchUpAll && late(s, due, asOf)
			out = append(out, occur(d, s, due, now, owner, inOrder)...)
		}
		out = append(out, startPending(d, s, now, owner)...)
		if nd, err := Next(s, maxTime(s.LastDue, asOf)); err == nil {
			s.NextDue = nd
		}
	}
	return out
}

// dueKeys lists the occurrences after LastDue up to now, oldest first, at most MaxCatchUp
// (the newest ones are kept).
func dueKeys(s *store.Schedule, now time.Time) []time.Time {
	var out []time.Time
	t := s.LastDue
	for {
		nt, err := Next(s, t)
		if err != nil || nt.After(now) {
			return out
		}
		out = append(out, nt)
		if len(out) > MaxCatchUp {
			out = out[1:]
		}
		t = nt
	}
}

// late reports whether occurrence due, handled at asOf, was missed (no writer ran it when
// it came due) rather than on time. A writer's scheduler wakes within a second of each due
// time, so an occurrence at most onTime late is on time. Under `tick --once` as the driver
// (see MarkTick), an occurrence that came due after the previous tick looked at the
// schedule is the tick's own work, on time, if it is no later than the driver's period
// (the time between the previous two ticks, or, after the first, since the previous one)
// plus onTime: what came due while the driver itself was not running (a machine asleep
// for hours, a crontab switched off) is missed, and follows the catch-up policy.
func late(s *store.Schedule, due, asOf time.Time) bool {
	lateBy := asOf.Sub(due)
	if lateBy <= onTime {
		return false
	}
	if s.Ticked.IsZero() || !due.After(s.Ticked) {
		return true
	}
	period := s.TickGap.D()
	if period <= 0 {
		period = asOf.Sub(s.Ticked)
	}
	return lateBy > period+onTime
}

// MarkTick records in every schedule of d that a `tick --once` looked at it at asOf, and
// the time since the tick before (the driver's period): see late. Called by a tick in the
// save of its first pass, after TickAsOf judged that pass by the previous marks; called
// again with the same asOf it changes nothing.
func MarkTick(d *store.Doc, asOf time.Time) {
	asOf = asOf.UTC()
	for i := range d.Schedules {
		s := &d.Schedules[i]
		if !asOf.After(s.Ticked) {
			continue
		}
		if !s.Ticked.IsZero() {
			s.TickGap = store.Duration(asOf.Sub(s.Ticked))
		}
		s.Ticked = asOf
	}
}

// catchUp applies the catch-up policy to occurrences that are late (missed while no
// writer ran them); on-time occurrences pass through.
func catchUp(s *store.Schedule, dues []time.Time, now time.Time) ([]time.Time, []Decision) {
	var missed, fresh []time.Time
	for _, d := range dues {
		if late(s, d, now) {
			missed = append(missed, d)
		} else {
			fresh = append(fresh, d)
		}
	}
	if len(missed) == 0 {
		return fresh, nil
	}
	dec := Decision{Kind: DecisionCatchUp, Schedule: s.ID, Missed: len(missed), Reason: s.CatchUp}
	var keep []time.Time
	switch s.CatchUp {
	case CatchUpNone:
		if len(fresh) == 0 {
			dec.Reason = "none: skipped every missed occurrence"
		}
	case CatchUpLatest:
		if len(fresh) == 0 {
			keep = missed[len(missed)-1:]
		}
		dec.Reason = fmt.Sprintf("latest: %d missed, running the most recent", len(missed))
		if len(fresh) > 0 {
			dec.Reason = fmt.Sprintf("latest: %d missed, an on-time occurrence runs instead", len(missed))
		}
	case CatchUpAll:
		window := s.CatchUpWindow.D()
		if window <= 0 {
			window = DefaultCatchUpWindow
		}
		for _, d := range missed {
			if now.Sub(d) <= window {
				keep = append(keep, d)
			}
		}
		dec.Reason = fmt.Sprintf("all: %d missed, %d within the catch-up window of %s run in order", len(missed), len(keep), window)
	}
	dec.Dues = keep
	return append(keep, fresh...), []Decision{dec}
}

// occur handles one due occurrence under the overlap policy. inOrder marks a missed
// occurrence that catch_up "all" runs in order: it waits for the live run rather than
// being skipped (unless overlap is allow).
func occur(d *store.Doc, s *store.Schedule, due, now time.Time, owner store.Owner, inOrder bool) []Decision {
	live := liveRun(d, s)
	if live != nil && inOrder && s.Overlap != OverlapAllow {
		s.Pending = append(s.Pending, due)
		return nil
	}
	if live == nil {
		if len(s.Pending) > 0 { // earlier occurrences wait first
			s.Pending = append(s.Pending, due)
			return nil
		}
		return []Decision{startOccurrence(d, s, due, now, owner)}
	}
	switch s.Overlap {
	case OverlapAllow:
		return []Decision{startOccurrence(d, s, due, now, owner)}
	case OverlapQueue:
		if len(s.Pending) > 0 {
			return []Decision{{Kind: DecisionQueued, Schedule: s.ID, Due: due, Run: live.ID,
				Reason: fmt.Sprintf("collapsed into the waiting occurrence of %s", s.Pending[0].Format(time.RFC3339))}}
		}
		s.Pending = append(s.Pending, due)
		return []Decision{{Kind: DecisionQueued, Schedule: s.ID, Due: due, Run: live.ID, Reason: "waits for the live run to end"}}
	case OverlapReplace:
		if live.Status == store.StatusQueued { // nothing to wait for: no step of it runs
			Finish(live, store.StatusCancelled, nil, fmt.Sprintf("cancelled while queued: replaced by the occurrence of %s (schedule %s)", due.Format(time.RFC3339), s.ID), now)
			ReleaseScheduleLock(d, live.ID)
			s.Pending = nil // as when a running run is replaced: the newest occurrence wins
			return []Decision{{Kind: DecisionReplace, Schedule: s.ID, Due: due, Run: live.ID,
				Reason: "replaces the queued run"}, startOccurrence(d, s, due, now, owner)}
		}
		s.Pending = []time.Time{due}
		askCancel(live, fmt.Sprintf("cancelled by schedule %s: replaced by the occurrence of %s", s.ID, due.Format(time.RFC3339)))
		return []Decision{{Kind: DecisionReplace, Schedule: s.ID, Due: due, Run: live.ID, Cancel: live.ID,
			Reason: "replaces the live run once its process group is gone"}}
	}
	return []Decision{{Kind: DecisionSkipped, Schedule: s.ID, Due: due, Run: live.ID,
		Reason: fmt.Sprintf("run %s of this schedule is still running", live.ID)}}
}

// liveRun returns the run that holds the schedule's lock, if it is still active.
func liveRun(d *store.Doc, s *store.Schedule) *store.Run {
	if s.Lock == nil {
		return nil
	}
	r := d.Run(s.Lock.Run)
	if r == nil || !r.Active() {
		s.Lock = nil // released in the save that recorded the end; this heals older files
		return nil
	}
	return r
}

// startOccurrence creates the run of one occurrence key and takes the schedule's lock.
func startOccurrence(d *store.Doc, s *store.Schedule, due, now time.Time, owner store.Owner) Decision {
	run, err := Enqueue(d, s.Workflow, "schedule "+s.ID, now)
	if err != nil {
		return Decision{Kind: DecisionSkipped, Schedule: s.ID, Due: due, Reason: err.Error()}
	}
	r := d.Run(run.ID)
	r.Schedule, r.Due = s.ID, due.UTC()
	if s.Lock == nil {
		s.Lock = &store.RunLock{Run: r.ID, Owner: owner, Since: now.UTC()}
	}
	return Decision{Kind: DecisionStarted, Schedule: s.ID, Due: due, Run: r.ID}
}

// startPending starts the oldest waiting occurrence if the schedule's lock is free.
func startPending(d *store.Doc, s *store.Schedule, now time.Time, owner store.Owner) []Decision {
	if len(s.Pending) == 0 || liveRun(d, s) != nil {
		return nil
	}
	due := s.Pending[0]
	s.Pending = s.Pending[1:]
	if len(s.Pending) == 0 {
		s.Pending = nil
	}
	return []Decision{startOccurrence(d, s, due, now, owner)}
}

// Overruns marks the live scheduled runs that ran past max_runtime (once each) and
// returns what to record; with on_overrun "cancel" the caller cancels the run. A run
// over its budget keeps its lock: a budget is never proof of death.
func Overruns(d *store.Doc, now time.Time) []Decision {
	var out []Decision
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Status != store.StatusRunning || r.Schedule == "" || r.Overrun {
			continue
		}
		s := d.Schedule(r.Schedule)
		if s == nil || s.MaxRuntime <= 0 || now.Sub(r.Started) <= s.MaxRuntime.D() {
			continue
		}
		r.Overrun = true
		dec := Decision{Kind: DecisionOverrun, Schedule: s.ID, Due: r.Due, Run: r.ID,
			Reason: fmt.Sprintf("running for %s, past max_runtime %s; on_overrun %s", now.Sub(r.Started).Round(time.Millisecond), s.MaxRuntime.D(), s.OnOverrun)}
		if s.OnOverrun == "cancel" {
			dec.Cancel = r.ID
			askCancel(r, fmt.Sprintf("cancelled by schedule %s: %s", s.ID, dec.Reason))
		}
		out = append(out, dec)
	}
	return out
}

// RequestedCancel is the reason of a cancel a person asked for (the run records none).
const RequestedCancel = "cancelled by request"

// CancelReasonOf is why run r, whose cancel was asked, is cancelled: the reason recorded
// with the request (a schedule's), else a person's.
func CancelReasonOf(r *store.Run) string { return cmp.Or(r.CancelReason, RequestedCancel) }

// askCancel records in the document that running run r must be cancelled, with reason: the
// request is then kept whoever executes the run, even one not yet following it (a run
// claimed in the same moment, or adopted at a takeover), which passes it to the
// supervisor at its first save; a person's earlier request keeps its reason.
func askCancel(r *store.Run, reason string) {
	if !r.CancelRequested {
		r.CancelRequested, r.CancelReason = true, reason
	}
}

// Env names of the watermark contract.
const (
	EnvWatermark    = "BATON_WATERMARK"
	EnvWatermarkOut = "BATON_WATERMARK_OUT"
)

// RunDir is a run's private folder in home (removed when the run ends).
func RunDir(home, id string) string { return filepath.Join(home, "runs", id) }

// ScheduleEnv is the extra environment of a scheduled run: its schedule, due time and,
// for an incremental schedule, the watermark and where to write the next one.
func ScheduleEnv(home string, d *store.Doc, r *store.Run) map[string]string {
	if r.Schedule == "" {
		return nil
	}
	env := map[string]string{"BATON_SCHEDULE": r.Schedule, "BATON_DUE": r.Due.Format(time.RFC3339)}
	if s := d.Schedule(r.Schedule); s != nil && s.Watermark != nil {
		env[EnvWatermark] = *s.Watermark
		env[EnvWatermarkOut] = filepath.Join(RunDir(home, r.ID), "watermark.out")
	}
	return env
}

// ScheduleFinished runs inside the save that records a scheduled run's end: the lock is
// already released; the watermark advances only if the run succeeded and wrote one; the
// next waiting occurrence starts, unless the schedule is paused (then at the first pass
// after it is resumed).
func ScheduleFinished(d *store.Doc, r *store.Run, out RunOutput, now time.Time, owner store.Owner) []Decision {
	s := d.Schedule(r.Schedule)
	if s == nil {
		return nil
	}
	s.LastRun, s.LastStatus = r.ID, r.Status
	if r.Status == store.StatusSucceeded && s.Watermark != nil {
		if b, err := store.ReadInHome(filepath.Join(out.Dir, "watermark.out")); err == nil {
			wm := strings.TrimRight(string(b), "\r\n")
			s.Watermark = &wm
		}
	}
	if s.Paused {
		return nil // a paused schedule runs nothing; what waits starts after resume
	}
	return startPending(d, s, now, owner)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
