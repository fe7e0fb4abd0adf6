package view

import (
	"errors"
	"fmt"
	"strings"

	"baton/host"
	"baton/store"
)

// Recovery of a damaged home is an explicit act (issue 19): the role bar offers
// "Recover…" when the window's problem says to run `baton recover`; a dialog shows the
// plan (RecoverPlanText) and asks before the window recovers; the result is said
// (RecoverResultText).

// RecoverButton is the role bar's button that opens the recovery dialog.
const RecoverButton = "Recover…"

// RecoverAction names the recovery dialog and its confirm button.
const RecoverAction = "Recover home"

// CanRecover reports whether the window's problem is one recovery is for: the store says
// so by naming `baton recover` in it (a damaged home, or a document that cannot be read
// with a good previous one kept).
func CanRecover(st host.Status) bool {
	return st.Role != host.RoleClosed && strings.Contains(st.Problem, "baton recover")
}

// RecoverPlanText says what recovery would do: what is wrong, what it restores, what is
// lost, where the damaged files go. holdsLock says this window holds state.lock: only
// then may it recover.
func RecoverPlanText(r *store.Recovery, holdsLock bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "What is wrong: %s\n\n", r.Damage)
	fmt.Fprintf(&b, "Restores: generation %d, from %s (generation %d) plus %s of %s: %s and %s.\n",
		r.Restored, r.From, r.FromGeneration, Plural(r.Frames, "frame", "frames"), store.WALName,
		Plural(r.Workflows, "workflow", "workflows"), Plural(r.Runs, "run", "runs"))
	if len(r.Lost) == 0 {
		b.WriteString("Lost: nothing that was found.\n")
	}
	for _, l := range r.Lost {
		fmt.Fprintf(&b, "Lost (cannot be restored): %s\n", l)
	}
	fmt.Fprintf(&b, "\nThe damaged files are moved aside into a dated folder in the home (%s<time>), never deleted; the audit log records what was restored and what was not.", store.DamagedPrefix)
	if !holdsLock {
		b.WriteString("\n\n" + RecoverNotHolder)
	} else {
		b.WriteString(" Then this window becomes the writer.")
	}
	return b.String()
}

// RecoverNotHolder says why a window that does not hold state.lock may not recover.
const RecoverNotHolder = "Only the window that holds state.lock may recover this home, and another Baton window holds it: use Recover… in that window, or close it (this window then takes the lock)."

// RecoverResultText says how a recovery went: what was restored and where the damaged
// files went, or why it was refused or failed.
func RecoverResultText(r *store.Recovery, err error) string {
	switch {
	case errors.Is(err, store.ErrNotDamaged):
		return "Nothing to recover: the home is not damaged."
	case errors.Is(err, host.ErrReadOnly):
		return "Not recovered: " + RecoverNotHolder + " Nothing was changed."
	case err != nil:
		return "Not recovered: " + ErrText(err)
	}
	s := fmt.Sprintf("Recovered: generation %d restored (%s, %s), saved as generation %d.",
		r.Restored, Plural(r.Workflows, "workflow", "workflows"), Plural(r.Runs, "run", "runs"), r.Generation)
	if len(r.Lost) > 0 {
		s += " Could not restore: " + strings.Join(r.Lost, "; ") + "."
	}
	if r.MovedTo != "" {
		s += fmt.Sprintf(" The damaged files (%s) are kept in %s.", strings.Join(r.Moved, ", "), r.MovedTo)
	}
	return s
}
