package view

import (
	"fmt"

	"baton/host"
	"baton/store"
)

// Closing the writer stops its executor: each run going in it is cancelled (recorded as
// cancelled) unless its workflow says on_owner_lost "adopt", which goes on under its
// supervisor for the next writer to adopt; another window takes over. The person is asked
// first when something would be cancelled. A reader, or a writer whose runs all keep
// going, closes at once.

// RunsGoingHere counts the runs of doc that closing the window of st would cancel: the
// running runs of this window, while it is the writer, whose workflow does not say
// on_owner_lost "adopt". A run is this window's when its owner is this window's
// instance, or, for a run recorded without an owner, this window's pid. A run whose
// workflow is gone counts: nothing says it would go on.
func RunsGoingHere(st host.Status, doc *store.Doc) int {
	cancel, _ := runsHere(st, doc)
	return cancel
}

// RunsKeptGoing counts the running runs of this writer window that closing it leaves
// going: their workflows say on_owner_lost "adopt".
func RunsKeptGoing(st host.Status, doc *store.Doc) int {
	_, keep := runsHere(st, doc)
	return keep
}

func runsHere(st host.Status, doc *store.Doc) (cancel, keep int) {
	if RoleOf(st) != host.RoleWriter {
		return 0, 0
	}
	c, k := host.RunsLeftAtClose(doc, st.Instance, st.PID)
	return len(c), len(k)
}

// CloseQuestion is the question asked before closing a window in which going runs would
// be cancelled (keep more go on): ask is false (close at once) when closing cancels
// nothing.
func CloseQuestion(going, keep int) (ask bool, title, message string) {
	if going == 0 {
		return false, "", ""
	}
	them := "them (they are recorded as cancelled)"
	if going == 1 {
		them = "it (it is recorded as cancelled)"
	}
	msg := fmt.Sprintf("%s going in this window. Closing cancels %s and another open window, if there is one, takes over.",
		Plural(going, "run is", "runs are"), them)
	if keep > 0 {
		msg += fmt.Sprintf(" %s on: %s set to keep running, and the next window that writes follows %s.",
			Plural(keep, "other run goes", "other runs go"), pick(keep, "its workflow is", "their workflows are"), pick(keep, "it", "them"))
	}
	return true, "Close with runs going?", msg + " Close anyway?"
}

func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
