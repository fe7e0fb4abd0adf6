package workflow

import (
	"fmt"
	"time"

	"baton/store"
	"baton/workflow/proc"
)

// Liveness decides, from evidence, whether the window o is alive. evidence says what was
// seen ("instance lock free, pid 123 gone"). It must never decide from a timestamp.
type Liveness func(o store.Owner) (alive bool, evidence string)

// What the reaper did with a run whose owner is dead (Orphan.Action).
const (
	ActionFailed   = "failed"   // recorded failed, naming the dead owner
	ActionRequeued = "requeued" // queued again for the next writer to start
	ActionAdopted  = "adopted"  // its supervisor lives on: the new writer follows it
	ActionRecorded = "recorded" // its supervisor finished it: recorded from its journal
)

// Supervision is what is known of a run's supervisor: whether it lives (its run lock is
// held) and, if it left one, its journal.
type Supervision struct {
	Alive    bool
	Evidence string   // what was seen of its lock
	Journal  *Journal // nil when the run has no journal (it never had a supervisor)
	// JournalErr says why a journal that is there cannot be folded (a shared home's): the
	// run may have ended, so it is failed, never re-queued.
	JournalErr string
	// Remote: it lives on another machine (a shared home), where it cannot be killed from
	// here. Such a run is adopted whatever its policy, and failed or re-queued only once
	// its supervisor's lease is gone (see followShared).
	Remote bool
}

// SupervisionOf reads the evidence about run id's supervisor in home. A supervisor that
// was started but has not taken its lock yet (its starter died in between) is a live
// process carrying the run's supervisor marker: SupervisionOf waits, up to
// supervisorReadyTimeout, until it holds its lock or is gone, so such a run is judged by
// what its supervisor does, never taken for one that has none. It blocks for that wait.
func SupervisionOf(home, id string) Supervision {
	markers := []string{EnvSupervisorOf + "=" + id, EnvHome + "=" + home}
	deadline := time.Now().Add(supervisorReadyTimeout)
	for {
		alive, ev := SupervisorAlive(home, id)
		s := Supervision{Alive: alive, Evidence: ev}
		j, err := ReadJournal(home, id)
		if err == nil {
			s.Journal = &j
		}
		if alive || err == nil || len(proc.WithMarkers(markers...)) == 0 || time.Now().After(deadline) {
			return s
		}
		time.Sleep(2 * time.Millisecond) // a starting supervisor: its lock and journal come next
	}
}

// AwaitStartingSupervisor waits, up to supervisorReadyTimeout, while a live process
// carries run id's supervisor marker in home and ready (the supervisor's hold in a shared
// home, read again) is false: a supervisor still starting is judged by what it does, as
// SupervisionOf does on a folder home. It blocks for that wait.
func AwaitStartingSupervisor(home, id string, ready func() bool) {
	markers := []string{EnvSupervisorOf + "=" + id, EnvHome + "=" + home}
	for deadline := time.Now().Add(supervisorReadyTimeout); time.Now().Before(deadline); {
		if len(proc.WithMarkers(markers...)) == 0 || ready() {
			return
		}
		time.Sleep(2 * time.Millisecond) // a starting supervisor: its alive key comes next
	}
}

// Orphan is a running run whose owner window is dead, and what the reaper does with it.
type Orphan struct {
	Run      string `json:"run"`
	Workflow string `json:"workflow"`
	OwnerPID int    `json:"owner_pid"`
	Action   string `json:"action"` // one of the Action constants
	Evidence string `json:"evidence"`
	PGID     int    `json:"pgid,omitempty"`
	// SupervisorPID is the run's supervisor, when it had one.
	SupervisorPID int `json:"supervisor_pid,omitempty"`
	// Attempt is the run's attempt when it was decided on (an adopted run is followed as it).
	Attempt int `json:"attempt,omitempty"`
	// The outcome the journal recorded (ActionRecorded).
	Status string `json:"status,omitempty"`
	Exit   *int   `json:"exit,omitempty"`
	Error  string `json:"error,omitempty"`
	// Ended is when the journal says the run ended (ActionRecorded): it is recorded as its
	// end, not the time it was recorded.
	Ended time.Time `json:"ended,omitzero"`

	end      ending // the journal's end (ActionRecorded)
	step     int    // the last step the journal shows, +1 (0: none, or no journal)
	supAlive bool   // its supervisor was alive when decided on (and is stopped unless adopted)
}

// FindOrphans returns the running runs of d whose owners are dead, with what the reaper
// will do to each. A run whose supervisor lives is adopted when its workflow says
// on_owner_lost "adopt" or adoptAll is set (a hand-over: nobody died), else it is killed
// and failed or re-queued; a run whose supervisor is dead is recorded from its journal if
// that shows its end, else failed or re-queued. sup tells about a run's supervisor (nil:
// no run has one). It does not change d.
func FindOrphans(d *store.Doc, alive Liveness, sup func(r *store.Run) Supervision, adoptAll bool) []Orphan {
	var out []Orphan
	cache := map[string]bool{}
	evid := map[string]string{}
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Status != store.StatusRunning {
			continue
		}
		dead, ev := true, "run has no recorded owner"
		if r.Owner != nil {
			a, ok := cache[r.Owner.Instance]
			if !ok {
				a, evid[r.Owner.Instance] = alive(*r.Owner)
				cache[r.Owner.Instance] = a
			}
			dead, ev = !a, evid[r.Owner.Instance]
		}
		if !dead {
			continue
		}
		o := Orphan{Run: r.ID, Workflow: r.Workflow, OwnerPID: r.OwnerPID, Evidence: ev, PGID: r.PGID, Attempt: r.Attempt}
		var s Supervision
		if sup != nil {
			s = sup(r)
		}
		if s.Journal != nil {
			o.SupervisorPID = s.Journal.SupervisorPID
			if n := len(s.Journal.Steps); n > 0 {
				o.step = s.Journal.Steps[n-1].Index + 1
			}
		}
		o.supAlive = s.Alive
		w := d.Workflow(r.Workflow)
		switch {
		case s.Journal != nil && s.Journal.Ended: // finished; its supervisor may still be exiting
			o.Action, o.Status, o.Exit, o.Error = ActionRecorded, s.Journal.Status, s.Journal.Exit, s.Journal.Error
			o.Ended, o.end = s.Journal.EndedAt, endingOf(*s.Journal)
		case s.Alive && (adoptAll || s.Remote || (w != nil && w.OnOwnerLost == "adopt")):
			// A cancel asked for goes with it: the adopting follower passes it on at its
			// first save, and the run ends cancelled with its reason, not killed as failed.
			o.Action = ActionAdopted
		case w != nil && w.OnOwnerLost == "requeue" && !r.CancelRequested && s.JournalErr == "":
			o.Action = ActionRequeued
		default:
			o.Action = ActionFailed
		}
		out = append(out, o)
	}
	return out
}

// ApplyReap records the reaper's decisions in d. A failed run gets an error naming its
// dead owner (and its supervisor, if it had one); a re-queued run goes back to queued in
// its old place; either way its lane slot and any schedule lock it held are released. A
// recorded run gets its journal's outcome, its schedule lock released and onFinish run
// (a watermark settles only with a recorded success). An adopted run gets owner as its
// owner and keeps its slot and schedule lock. A failed or recorded run's log gets its end
// line (writeEndLine), before the caller's save. Kill what must not survive before calling it.
func ApplyReap(d *store.Doc, orphans []Orphan, owner store.Owner, now time.Time, onFinish func(d *store.Doc, r *store.Run)) {
	for _, o := range orphans {
		r := d.Run(o.Run)
		if r == nil || r.Status != store.StatusRunning || r.Attempt != o.Attempt {
			continue
		}
		if o.step > 0 && o.Action != ActionRequeued {
			r.Step = o.step - 1 // the journal knows better than the last fold
		}
		on := "" // a pid means something on its own machine only (an etcd home names it)
		if r.Machine != "" {
			on = " on machine " + r.Machine
		}
		msg := fmt.Sprintf("owner window pid %d%s died (%s) while step %d of %d was running", o.OwnerPID, on, o.Evidence, r.Step+1, r.Steps)
		switch {
		case o.SupervisorPID != 0 && o.supAlive:
			msg += fmt.Sprintf("; its supervisor pid %d%s was stopped", o.SupervisorPID, on)
		case o.SupervisorPID != 0:
			msg += fmt.Sprintf("; its supervisor pid %d%s had died without recording the end", o.SupervisorPID, on)
		}
		switch o.Action {
		case ActionAdopted:
			me := owner
			r.Owner, r.OwnerPID = &me, owner.PID
			continue
		case ActionRecorded:
			o.recorded().apply(r, now)
			writeEndLine(r)
			ReleaseScheduleLock(d, r.ID)
			if onFinish != nil {
				onFinish(d, r)
			}
			continue
		case ActionRequeued:
			r.Status = store.StatusQueued
			r.Owner, r.OwnerPID = nil, 0
			r.PGID, r.StepPID, r.StepStart = 0, 0, 0
			r.SupervisorPID, r.SupervisorStart = 0, 0
			r.Error = "re-queued: " + msg
		default:
			Finish(r, store.StatusFailed, nil, msg, now)
			writeEndLine(r)
		}
		ReleaseScheduleLock(d, r.ID)
	}
}

// ReleaseScheduleLock frees the run lock of any schedule held by run id.
func ReleaseScheduleLock(d *store.Doc, id string) {
	for i := range d.Schedules {
		if l := d.Schedules[i].Lock; l != nil && l.Run == id {
			d.Schedules[i].Lock = nil
		}
	}
}

// recorded is the end o's journal showed: its status, exit and error, and, once read from
// the journal, its step, end time and log cut.
func (o Orphan) recorded() ending {
	if o.end.status != "" {
		return o.end
	}
	return ending{status: o.Status, exit: o.Exit, err: o.Error, at: o.Ended, step: -1}
}
