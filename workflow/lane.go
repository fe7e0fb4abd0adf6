package workflow

import (
	"time"

	"baton/store"
)

// Startable returns the indexes in d.Runs of the queued runs that may start now: for each
// workflow, runs start in queue order (document order, which is creation order; a
// re-queued run keeps its place) while fewer than max_concurrent of its runs are running.
// A queued run whose workflow no longer exists is not started.
func Startable(d *store.Doc) []int {
	running := map[string]int{}
	for i := range d.Runs {
		if d.Runs[i].Status == store.StatusRunning {
			running[d.Runs[i].Workflow]++
		}
	}
	var out []int
	for i := range d.Runs {
		r := &d.Runs[i]
		if r.Status != store.StatusQueued {
			continue
		}
		w := d.Workflow(r.Workflow)
		if w == nil || running[r.Workflow] >= w.MaxConcurrent {
			continue
		}
		running[r.Workflow]++
		out = append(out, i)
	}
	return out
}

// Claim marks the startable runs of d as running and owned by owner, and returns copies
// of them. Call it inside store.Update; spawn their steps only after the save returned.
func Claim(d *store.Doc, owner store.Owner, now time.Time) []store.Run {
	var out []store.Run
	for _, i := range Startable(d) {
		r := &d.Runs[i]
		o := owner
		r.Status = store.StatusRunning
		r.Owner = &o
		r.OwnerPID = owner.PID
		r.Started = now.UTC()
		r.Step = 0
		r.Attempt++
		r.Error = ""
		out = append(out, r.Clone())
	}
	return out
}
