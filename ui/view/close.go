package view

import (
	"fmt"

	"baton/host"
	"baton/store"
)

// Closing the writer while its runs are going cancels them: the core's Close stops the
// executor, which records each run as cancelled, and another window takes over. The
// person is asked first. A reader, or a writer with nothing running, closes at once.

// RunsGoingHere counts the runs of doc that are running in the window of st while it is
// the writer: the runs closing it would cancel. A run is this window's when its owner is
// this window's instance, or, for a run recorded without an owner, this window's pid.
func RunsGoingHere(st host.Status, doc *store.Doc) int {
	if RoleOf(st) != host.RoleWriter {
		return 0
	}
	n := 0
	for i := range doc.Runs {
		r := &doc.Runs[i]
		if r.Status != store.StatusRunning {
			continue
		}
		if (r.Owner != nil && r.Owner.Instance == st.Instance) || (r.Owner == nil && r.OwnerPID == st.PID) {
			n++
		}
	}
	return n
}

// CloseQuestion is the question asked before closing a window with runs going in
// it: ask is false (close at once) when closing cancels nothing.
func CloseQuestion(going int) (ask bool, title, message string) {
	if going == 0 {
		return false, "", ""
	}
	return true, "Close with runs going?", fmt.Sprintf("%s going in this window. Closing cancels them (they are recorded as "+
		"cancelled) and another open window, if there is one, takes over. Close anyway?", Plural(going, "run is", "runs are"))
}
