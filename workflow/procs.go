package workflow

import (
	"time"

	"baton/store"
	"baton/workflow/proc"
)

// The environment markers every step process carries (see proc.EnvRunID), so the reaper
// can find what a dead window or supervisor left running even if no group id was saved.
const (
	EnvRunID = proc.EnvRunID
	EnvHome  = proc.EnvHome
	// EnvSupervisorOf marks a run's supervisor process (its steps do not carry it).
	EnvSupervisorOf = "BATON_SUPERVISOR_OF"
)

// runMarkers are the markers of run id of home.
func runMarkers(home, id string) []string {
	return []string{EnvRunID + "=" + id, EnvHome + "=" + home}
}

// RunProcesses lists live processes that carry the markers of run id in home.
func RunProcesses(home, id string) []int { return proc.WithMarkers(runMarkers(home, id)...) }

// KillRun is KillRuns for one run, returning what it signalled.
func KillRun(home string, r *store.Run, wait time.Duration) (killed []int, gone bool) {
	return KillRuns(home, []*store.Run{r}, wait)
}

// KillRuns kills what the runs left behind, all together: first their supervisors (so
// that none can record its steps' deaths as its run's outcome: each carries its run's
// supervisor marker, or, if it was a spare, is the live holder its run's lock names),
// then their recorded process groups (unless a group id was provably reused) and every
// process carrying their markers. One pass over the processes per round serves every run.
// It returns what it signalled and whether all are gone. It blocks for up to wait.
func KillRuns(home string, runs []*store.Run, wait time.Duration) (killed []int, gone bool) {
	if len(runs) == 0 {
		return nil, true
	}
	sups := make([][]string, 0, len(runs))
	var holders []proc.Group
	steps := make([][]string, 0, len(runs))
	groups := make([]proc.Group, 0, len(runs))
	for _, r := range runs {
		sups = append(sups, []string{EnvSupervisorOf + "=" + r.ID, EnvHome + "=" + home})
		if h, ok := lockHolder(home, r.ID); ok && h.Boot == proc.BootID() && proc.Alive(h.PID, h.Start) {
			holders = append(holders, proc.Group{PGID: h.PID, LeaderStart: h.Start}) // a session leader
		}
		steps = append(steps, runMarkers(home, r.ID))
		groups = append(groups, proc.Group{PGID: r.PGID, LeaderStart: r.StepStart})
	}
	sup, supGone := proc.KillAll(holders, sups, wait)
	killed, gone = proc.KillAll(groups, steps, wait)
	return append(sup, killed...), gone && supGone
}
