package host

import (
	"context"
	"fmt"

	"baton/store"
	"baton/workflow"
)

// RenameWorkflow renames workflow from to to: the definition, its runs and its schedules
// change in one save (workflow.RenameWorkflow). Then its archived runs, which live in
// append-only files outside the document, are appended again under the new name: the
// archive keeps the newest copy of a run, so its history is found under the new name.
// A crash between the two leaves the archived runs under the old name (never a run
// under a name it did not have); the rename itself stands.
func (s *Intents) RenameWorkflow(ctx context.Context, from, to string) (uint64, error) {
	var name string
	d, t, err := s.update(ctx, func(d *store.Doc) error {
		var err error
		name, err = workflow.RenameWorkflow(d, from, to)
		return err
	})
	if err != nil || name == from { // refused, or the same name: nothing was saved
		return gen(d), err
	}
	t.note(store.WorkflowChange{Action: store.ChangeRenamed, Workflow: name, From: from, Generation: gen(d)})
	if err := s.relabelArchive(from, name); err != nil {
		return gen(d), fmt.Errorf("renamed %q to %q, but its archived runs keep the old name: %w", from, name, err)
	}
	return gen(d), nil
}

// relabelArchive appends every archived run of workflow from again, named to. The runs in
// the document were renamed already, so every run History still finds under from is an
// archived one.
func (s *Intents) relabelArchive(from, to string) error {
	t := s.w.currentTerm() // the archive is the writer's to append to
	if t == nil {
		return &ReadOnlyError{Role: s.w.Role(), Problem: "this window's writer term ended"}
	}
	var runs []store.Run
	q := store.HistoryQuery{Workflow: from, Limit: store.MaxHistoryLimit}
	for {
		page, err := s.w.st.History(q)
		if err != nil {
			return err
		}
		for _, r := range page.Runs {
			r.Workflow = to
			runs = append(runs, r)
		}
		if page.Next == 0 {
			break
		}
		q.Before = page.Next
	}
	return t.appendArchive(runs)
}
