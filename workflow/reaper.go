package workflow

import (
	"fmt"
	"time"

	"baton/store"
)

// Liveness decides, from evidence, whether the window o is alive. evidence says what was
// seen ("instance lock free, pid 123 gone"). It must never decide from a timestamp.
type Liveness func(o store.Owner) (alive bool, evidence string)

// What the reaper did with a run whose owner is dead (Orphan.Action).
const (
	ActionFailed   = "failed"   // recorded failed, naming the dead owner
	ActionRequeued = "requeued" // queued again for the next writer to start
)

// Orphan is a running run whose owner window is dead.
type Orphan struct {
	Run      string `json:"run"`
	Workflow string `json:"workflow"`
	OwnerPID int    `json:"owner_pid"`
	Action   string `json:"action"` // ActionFailed or ActionRequeued
	Evidence string `json:"evidence"`
	PGID     int    `json:"pgid,omitempty"`
}

// FindOrphans returns the running runs of d whose owners are dead, with what the reaper
// will do to each (per its workflow's on_owner_lost). It does not change d.
func FindOrphans(d *store.Doc, alive Liveness) []Orphan {
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
		action := ActionFailed
		if w := d.Workflow(r.Workflow); w != nil && w.OnOwnerLost == "requeue" && !r.CancelRequested {
			action = ActionRequeued
		}
		out = append(out, Orphan{Run: r.ID, Workflow: r.Workflow, OwnerPID: r.OwnerPID,
			Action: action, Evidence: ev, PGID: r.PGID})
	}
	return out
}

// ApplyReap records the reaper's decisions in d: a failed run gets an error naming its dead
// owner; a re-queued run goes back to queued in its old place. Either way its lane slot
// and any schedule lock it held are released. Kill surviving processes before calling it.
func ApplyReap(d *store.Doc, orphans []Orphan, now time.Time) {
	for _, o := range orphans {
		r := d.Run(o.Run)
		if r == nil || r.Status != store.StatusRunning {
			continue
		}
		msg := fmt.Sprintf("owner window pid %d died (%s) while step %d of %d was running", o.OwnerPID, o.Evidence, r.Step+1, r.Steps)
		if o.Action == ActionRequeued {
			r.Status = store.StatusQueued
			r.Owner, r.OwnerPID = nil, 0
			r.PGID, r.StepPID, r.StepStart = 0, 0, 0
			r.Error = "re-queued: " + msg
		} else {
			Finish(r, store.StatusFailed, nil, msg, now)
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
