package workflow

import (
	"fmt"

	"baton/store"
)

// RenameWorkflow renames workflow from to to in d, in one change of the document: its
// runs (queued, running and finished alike) and its schedules follow it, so its lane,
// its history in d and its schedules go on under the new name. It returns the name
// saved (to, trimmed).
//
// The new name follows the rules of any name (Normalize, CheckName) and must not be another
// workflow's (NameTaken); a change of case or spaces of the same name is allowed. A
// rename to the very same name is store.ErrNoChange.
//
// A workflow with active runs may be renamed: every part of Baton that follows a run
// after it was queued finds it by its id, and reads its workflow (the lane, the
// executor's steps, the reaper's on_owner_lost) from the run's Workflow field, which
// changes in the same save as the definition. A supervisor never records the name.
//
// Runs already archived (store.Archive) are not in d: the caller relabels them after
// the save (host.Intents.RenameWorkflow).
func RenameWorkflow(d *store.Doc, from, to string) (string, error) {
	w := d.Workflow(from)
	if w == nil {
		return "", fmt.Errorf("%w: no workflow named %q", ErrNotFound, from)
	}
	c := w.Clone()
	c.Name = to
	if err := Normalize(&c); err != nil {
		return "", err
	}
	if err := CheckName(c.Name); err != nil { // the trimmed name, as AddWorkflow checks it
		return "", err
	}
	to = c.Name
	if to == from {
		return to, store.ErrNoChange
	}
	if !store.SameName(from, to) {
		if err := NameTaken(d, to); err != nil {
			return "", err
		}
	}
	w.Name = to
	for i := range d.Runs {
		if d.Runs[i].Workflow == from {
			d.Runs[i].Workflow = to
		}
	}
	for i := range d.Schedules {
		if d.Schedules[i].Workflow == from {
			d.Schedules[i].Workflow = to
		}
	}
	return to, nil
}
