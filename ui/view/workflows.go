package view

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"baton/host"
	"baton/store"
)

// FilterWorkflows fills idx (reusing its backing array) with the indices of doc's
// workflows whose name contains q, ignoring case, in the document's order.
func FilterWorkflows(idx []int, doc *store.Doc, q string) []int {
	idx = idx[:0]
	for i := range doc.Workflows {
		if ContainsFold(doc.Workflows[i].Name, q) {
			idx = append(idx, i)
		}
	}
	return idx
}

// LastStatuses fills last (cleared first) with the status of each workflow's newest
// run in doc: the icon of its row.
func LastStatuses(last map[string]string, doc *store.Doc) {
	clear(last)
	for i := range doc.Runs {
		last[doc.Runs[i].Workflow] = doc.Runs[i].Status
	}
}

// WorkflowDetail is the small text of a workflow's row: "3 steps · runs one at a time".
func WorkflowDetail(w *store.Workflow) string {
	return Plural(len(w.Steps), "step", "steps") + " · " + LaneText(w.MaxConcurrent)
}

// LaneText says how many runs of a workflow may go at once, in words: "runs one at a
// time", "up to 3 runs at once".
func LaneText(max int) string {
	if max <= 1 {
		return "runs one at a time"
	}
	return fmt.Sprintf("up to %d runs at once", max)
}

// CopyName is the name of a duplicate of workflow name: "name copy", else the first
// "name copy N" (N from 2) no workflow of doc has.
func CopyName(doc *store.Doc, name string) string {
	c := name + " copy"
	for i := 2; doc.Workflow(c) != nil; i++ {
		c = fmt.Sprintf("%s copy %d", name, i)
	}
	return c
}

// NewWorkflow is the draft a new workflow starts from: one empty step, a lane of one,
// runs failed when their window dies.
func NewWorkflow() store.Workflow {
	return store.Workflow{MaxConcurrent: 1, OnOwnerLost: "fail", Steps: []store.Step{{Argv: []string{""}}}}
}

// DiscardQuestion asks whether to drop unsaved changes to the workflow named name in
// the editor ("" for a new one).
func DiscardQuestion(name string) (title, message string) {
	if name == "" {
		name = "the new workflow"
	}
	return "Discard changes?", fmt.Sprintf("You have unsaved changes to %s. Discard them?", name)
}

// DeleteQuestion asks whether to delete workflow name.
func DeleteQuestion(name string) (title, message string) {
	return "Delete workflow?", fmt.Sprintf("Delete %q? Its past runs stay in the history; its schedules are deleted.", name)
}

// StartedText says that run id was started, here or by the writer it was sent to.
func StartedText(id string, forwardedTo int) string {
	return fmt.Sprintf("Started run %s%s; see Runs.", id, SentText(forwardedTo))
}

// DeletedText is the editor's empty state after workflow name was deleted here.
func DeletedText(name string) string { return "Deleted " + name + "." }

// Footer is the line at the bottom of the window. The document's generation and epoch
// are details for Help › About (AboutText), not words for every day.
func Footer(st host.Status, doc *store.Doc) string {
	return fmt.Sprintf("%s · this window pid %d · %s · %s",
		st.Home, st.PID, Plural(len(doc.Workflows), "workflow", "workflows"), Plural(len(doc.Runs), "run", "runs"))
}

// WindowTitle is the window's title.
func WindowTitle(st host.Status) string { return fmt.Sprintf("Baton — %s", st.Home) }

// Notice is a desktop notification.
type Notice struct {
	Title, Message string
	Run            string // the run it is about
}

// FailureNotices returns a notice for each run that the events evs say failed, that
// ended after the window opened and that was not noticed before (notified, which it
// updates). Only the writer notices, so two windows do not say the same thing twice.
func FailureNotices(st host.Status, evs []host.Event, doc *store.Doc, opened time.Time, notified map[string]bool) []Notice {
	if RoleOf(st) != host.RoleWriter {
		return nil
	}
	var out []Notice
	for _, e := range evs {
		if e.Kind != "run" || e.Status != store.StatusFailed || notified[e.Run] {
			continue
		}
		r := doc.Run(e.Run)
		if r == nil || r.Ended.Before(opened) {
			continue
		}
		notified[e.Run] = true
		msg := fmt.Sprintf("Run %s of %s failed", r.ID, r.Workflow)
		if r.Error != "" {
			msg += ": " + r.Error
		}
		out = append(out, Notice{Title: "Baton: a run failed", Message: msg, Run: r.ID})
	}
	return out
}

// AutoOpen is the workflow the editor opens for the person: the first one, once (done
// says it was opened before), unless the editor already shows something.
func AutoOpen(done, editorOpen bool, doc *store.Doc) *store.Workflow {
	if done || editorOpen || len(doc.Workflows) == 0 {
		return nil
	}
	return &doc.Workflows[0]
}

// ConfirmBack is the button of a confirmation that does nothing.
const ConfirmBack = "Go back"

// ConfirmAction is the button of a confirmation that does what title asks: "Delete
// workflow?" is confirmed by "Delete workflow", not by "Yes".
func ConfirmAction(title string) string {
	if a := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(title), "?")); a != "" {
		return a
	}
	return "OK"
}

// Sidebar orders (View › Sort workflows).
const (
	SortAdded  = "added"  // as added (the document's order)
	SortName   = "name"   // by name, ignoring case
	SortRecent = "recent" // the workflow that ran last first; never-run ones after, by name
)

// SortWorkflows orders idx (indices into doc.Workflows) by: SortName, SortRecent, or as
// they are (SortAdded or anything else).
func SortWorkflows(idx []int, doc *store.Doc, by string) {
	name := func(i int) string { return strings.ToLower(doc.Workflows[i].Name) }
	switch by {
	case SortName:
		sort.SliceStable(idx, func(a, b int) bool { return name(idx[a]) < name(idx[b]) })
	case SortRecent:
		last := map[string]time.Time{}
		for i := range doc.Runs {
			r := &doc.Runs[i]
			if r.Created.After(last[r.Workflow]) {
				last[r.Workflow] = r.Created
			}
		}
		sort.SliceStable(idx, func(a, b int) bool {
			ta, tb := last[doc.Workflows[idx[a]].Name], last[doc.Workflows[idx[b]].Name]
			if !ta.Equal(tb) {
				return ta.After(tb)
			}
			return name(idx[a]) < name(idx[b])
		})
	}
}
