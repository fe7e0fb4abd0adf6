package workflow

import (
	"time"

	"baton/host/proc"
	"baton/store"
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

// KillRun kills every process a run left behind: first its supervisor (so that it cannot
// record its steps' deaths as the run's outcome), then its recorded process group (unless
// the group id was provably reused by another process's own group) and every process
// carrying the run's markers. It waits up to wait for them to be gone and returns the pids
// and groups it signalled and whether all are gone. It blocks for up to wait.
func KillRun(home string, r *store.Run, wait time.Duration) (killed []int, gone bool) {
	sup, supGone := proc.KillMarked(0, 0, []string{EnvSupervisorOf + "=" + r.ID, EnvHome + "=" + home}, wait)
	killed, gone = proc.KillMarked(r.PGID, r.StepStart, runMarkers(home, r.ID), wait)
	return append(sup, killed...), gone && supGone
}
