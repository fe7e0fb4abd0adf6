package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"baton/store"
	"baton/workflow"
)

// Workflows as files: `baton export [WORKFLOW…] > file.json`, `baton import file.json`
// and the window's File ▸ Export / Import. A file holds workflow definitions with their
// retention and their schedules' definitions (no ids, runs, locks or watermarks): what a
// person keeps in git. Secret environment values (workflow.IsSecretName) are left out
// unless asked for; importing a left-out secret keeps the value the home has. An import
// is planned first (PlanImport: what it adds, changes or would conflict with) and applied
// in one save, all or nothing.

// ExportFormat is the version of the export file's shape.
const ExportFormat = 1

// ExportFile is what `baton export` writes.
type ExportFile struct {
	Format    int              `json:"baton_export"`
	Workflows []store.Workflow `json:"workflows"`
	Schedules []ExportSchedule `json:"schedules,omitempty"`
}

// ExportSchedule is a schedule's definition, without its state.
type ExportSchedule struct {
	Workflow      string         `json:"workflow"`
	Every         store.Duration `json:"every,omitzero"`
	Cron          string         `json:"cron,omitempty"`
	TZ            string         `json:"tz,omitempty"`
	Paused        bool           `json:"paused,omitempty"`
	Overlap       string         `json:"overlap,omitempty"`
	MaxRuntime    store.Duration `json:"max_runtime,omitzero"`
	OnOverrun     string         `json:"on_overrun,omitempty"`
	CatchUp       string         `json:"catch_up,omitempty"`
	CatchUpWindow store.Duration `json:"catch_up_window,omitzero"`
}

// ErrExportFormat is returned when a file is not a Baton export this version reads.
var ErrExportFormat = errors.New("not a Baton export file")

func exportSchedule(s *store.Schedule) ExportSchedule {
	return ExportSchedule{Workflow: s.Workflow, Every: s.Every, Cron: s.Cron, TZ: s.TZ, Paused: s.Paused, Overlap: s.Overlap,
		MaxRuntime: s.MaxRuntime, OnOverrun: s.OnOverrun, CatchUp: s.CatchUp, CatchUpWindow: s.CatchUpWindow}
}

func (e ExportSchedule) schedule() store.Schedule {
	return store.Schedule{Workflow: e.Workflow, Every: e.Every, Cron: e.Cron, TZ: e.TZ, Paused: e.Paused, Overlap: e.Overlap,
		MaxRuntime: e.MaxRuntime, OnOverrun: e.OnOverrun, CatchUp: e.CatchUp, CatchUpWindow: e.CatchUpWindow}
}

// Export returns the workflows named (all when names is empty) of d with their
// schedules. Secret values are left empty unless secrets. A name d does not have is an
// error wrapping workflow.ErrNotFound.
func Export(d *store.Doc, names []string, secrets bool) (ExportFile, error) {
	f := ExportFile{Format: ExportFormat, Workflows: []store.Workflow{}}
	for _, n := range names {
		if d.Workflow(n) == nil {
			return f, fmt.Errorf("%w: no workflow named %q", workflow.ErrNotFound, n)
		}
	}
	for i := range d.Workflows {
		w := d.Workflows[i].Clone()
		if len(names) > 0 && !slices.Contains(names, w.Name) {
			continue
		}
		if !secrets {
			for j := range w.Steps {
				for k := range w.Steps[j].Env {
					if workflow.IsSecretName(k) {
						w.Steps[j].Env[k] = ""
					}
				}
			}
		}
		f.Workflows = append(f.Workflows, w)
		for k := range d.Schedules {
			if d.Schedules[k].Workflow == w.Name {
				f.Schedules = append(f.Schedules, exportSchedule(&d.Schedules[k]))
			}
		}
	}
	return f, nil
}

// ParseExport reads an export file's bytes.
func ParseExport(b []byte) (ExportFile, error) {
	var f ExportFile
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%w: %w", ErrExportFormat, err)
	}
	if f.Format != ExportFormat {
		return f, fmt.Errorf("%w: format %d, this Baton reads format %d", ErrExportFormat, f.Format, ExportFormat)
	}
	return f, nil
}

// ImportPlan is what an import would do to a document.
type ImportPlan struct {
	Add       []string // workflows the home does not have
	Change    []string // workflows the home has, whose definition the file changes
	Same      []string // workflows the home has as the file says
	Schedules int      // schedules the file adds (one identical to the home's is not added again)
	// Conflicts say why the import cannot be applied: a name taken by another workflow
	// ignoring case, a definition that is not valid, a schedule of a workflow that is in
	// neither the file nor the home. None means it can.
	Conflicts []string
}

// PlanImport says what importing f into d at time now would do. It changes neither.
func PlanImport(d *store.Doc, f ExportFile, now time.Time) ImportPlan {
	var p ImportPlan
	p.Conflicts = applyImport(d.Clone(), f, &p, now)
	return p
}

// applyImport imports f into d (a copy the caller may throw away) and fills p with what
// it did; it returns the conflicts, after which d is not to be saved.
func applyImport(d *store.Doc, f ExportFile, p *ImportPlan, now time.Time) []string {
	var conflicts []string
	for _, w := range f.Workflows {
		w = w.Clone()
		cur := d.Workflow(w.Name)
		if cur != nil {
			keepSecrets(&w, cur)
		}
		var err error
		switch {
		case cur == nil:
			err = workflow.AddWorkflow(d, w)
			if err == nil {
				p.Add = append(p.Add, w.Name)
			}
		default:
			before := cur.Clone()
			err = workflow.UpdateWorkflow(d, w)
			if err == nil && reflect.DeepEqual(before, *d.Workflow(w.Name)) {
				p.Same = append(p.Same, w.Name)
			} else if err == nil {
				p.Change = append(p.Change, w.Name)
			}
		}
		if err != nil {
			conflicts = append(conflicts, fmt.Sprintf("workflow %q: %v", w.Name, err))
		}
	}
	for _, es := range f.Schedules {
		if d.Workflow(es.Workflow) == nil {
			conflicts = append(conflicts, fmt.Sprintf("a schedule of workflow %q, which is neither in the file nor in this home", es.Workflow))
			continue
		}
		if hasSchedule(d, es) {
			continue
		}
		if _, err := workflow.AddSchedule(d, es.schedule(), now); err != nil {
			conflicts = append(conflicts, fmt.Sprintf("a schedule of workflow %q: %v", es.Workflow, err))
			continue
		}
		p.Schedules++
	}
	return conflicts
}

// keepSecrets gives w's empty secret values the values cur has: an export leaves them
// out, and importing it must not wipe them.
func keepSecrets(w *store.Workflow, cur *store.Workflow) {
	for i := range w.Steps {
		if i >= len(cur.Steps) {
			return
		}
		for k, v := range w.Steps[i].Env {
			if old, ok := cur.Steps[i].Env[k]; v == "" && ok && workflow.IsSecretName(k) {
				w.Steps[i].Env[k] = old
			}
		}
	}
}

// hasSchedule reports whether d has a schedule with the definition es.
func hasSchedule(d *store.Doc, es ExportSchedule) bool {
	for i := range d.Schedules {
		if exportSchedule(&d.Schedules[i]) == es {
			return true
		}
	}
	return false
}

// ErrImportConflict is returned by Import when the file conflicts with the home; its
// message lists the conflicts.
var ErrImportConflict = errors.New("the import conflicts with this home")

// Import applies f to the home in one save: every workflow and schedule of it, or none.
// It returns what it did. A conflict is ErrImportConflict naming each; a read-only
// window's import is refused like any write.
func (s *Intents) Import(ctx context.Context, f ExportFile) (ImportPlan, error) {
	var p ImportPlan
	d, t, err := s.update(ctx, func(d *store.Doc) error {
		p = ImportPlan{}
		if c := applyImport(d, f, &p, s.w.opts.Now()); len(c) > 0 {
			p.Conflicts = c
			return fmt.Errorf("%w: %s", ErrImportConflict, strings.Join(c, "; "))
		}
		return nil
	})
	if err != nil {
		return p, err
	}
	for _, n := range p.Add {
		t.note(store.WorkflowChange{Action: store.ChangeCreated, Workflow: n, Generation: gen(d)})
	}
	for _, n := range p.Change {
		t.note(store.WorkflowChange{Action: store.ChangeUpdated, Workflow: n, Generation: gen(d)})
	}
	s.w.kick()
	s.w.wakeScheduler()
	return p, nil
}

// ImportText says what an import plan does, one line per kind: for the command line and
// the window's preview. done says whether it was applied.
func ImportText(p ImportPlan, preview bool) string {
	var b strings.Builder
	verb := func(now, then string) string {
		if preview {
			return then
		}
		return now
	}
	line := func(what string, names []string) {
		if len(names) > 0 {
			fmt.Fprintf(&b, "%s %d %s: %s\n", what, len(names), plural(len(names), "workflow", "workflows"), strings.Join(names, ", "))
		}
	}
	line(verb("added", "adds"), p.Add)
	line(verb("changed", "changes"), p.Change)
	line("unchanged", p.Same)
	if p.Schedules > 0 {
		fmt.Fprintf(&b, "%s %d %s\n", verb("added", "adds"), p.Schedules, plural(p.Schedules, "schedule", "schedules"))
	}
	for _, c := range p.Conflicts {
		fmt.Fprintf(&b, "conflict: %s\n", c)
	}
	if len(p.Conflicts) > 0 {
		b.WriteString("nothing was imported: fix the file or the home, then import again\n")
	}
	if b.Len() == 0 {
		b.WriteString("the file holds no workflows\n")
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
