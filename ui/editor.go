package ui

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
	"baton/ui/view"
)

// StepEditor holds the widgets of one step.
type StepEditor struct {
	Title                    *widget.Label
	Name, Timeout, Dir, Env  *ScrollEntry
	Args                     []*ScrollEntry
	AddArg, Up, Down, Remove *widget.Button
	// Split is offered while the program field holds a whole command line ("ls -la
	// /tmp"): it splits it into arguments as a shell would, without running one.
	Split                             *widget.Button
	ArgvError, TimeoutError, EnvError *widget.Label
	// EnvMasked shows the environment with secret values masked (view.MaskedEnv), as
	// the log does, until Reveal shows the field with the values; hidden when the step
	// has no secret.
	EnvMasked *widget.Label
	Reveal    *widget.Button
	removeArg []*widget.Button
}

// Editor edits one workflow definition. What the person types is kept in the editor
// until it is saved or discarded: a new snapshot never overwrites an edit in progress,
// and the role never disables typing (only saving). UI goroutine only.
type Editor struct {
	Title         *widget.Label
	Name          *ScrollEntry
	MaxConcurrent *ScrollEntry
	// KeepRuns and KeepFor are the workflow's own history retention: the newest N
	// runs, and runs younger than a duration ("30d"); empty means the home's default.
	KeepRuns, KeepFor *ScrollEntry
	// OnOwnerLost is on_owner_lost in plain words (view.OwnerLostOptions); OwnerLostHint
	// says what the choice does.
	OnOwnerLost   *widget.Select
	OwnerLostHint *widget.Label
	AddStep       *widget.Button
	Steps         []*StepEditor
	Save          *widget.Button
	Revert        *widget.Button
	RunNow        *widget.Button
	Duplicate     *widget.Button
	Rename        *widget.Button
	Delete        *widget.Button
	ReadOnlyNote  *widget.Label
	Message       *widget.Label
	// Errors holds the validation message next to each field, keyed by the field's
	// name as the core spells it: name, max_concurrent, on_owner_lost, steps,
	// steps[0].argv, steps[0].timeout, steps[0].env.
	Errors map[string]*widget.Label

	m        *Main
	obj      fyne.CanvasObject
	scroll   *container.Scroll // the Workflow tab's scroll, which the wheel over a field scrolls
	form     *fyne.Container
	stepsBox *fyne.Container
	empty    *widget.Label

	existing string     // name of the saved workflow open here; "" for a new draft
	seen     *store.Doc // the snapshot follow saw last, to tell a rename from a delete
	open     bool       // a workflow or a draft is open
	base     store.Workflow
	steps    []view.StepDraft
	dirty    bool
	loading  bool
	rev      int  // counts edits, so a save that finishes late keeps newer typing
	fixing   bool // Save was pressed with problems: the message counts them until they are gone
}

func newEditor(m *Main) *Editor {
	e := &Editor{m: m, Errors: map[string]*widget.Label{}}
	e.Title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	e.Title.SizeName = theme.SizeNameSubHeadingText
	e.Title.Truncation = fyne.TextTruncateEllipsis // the Name field below holds the whole name
	e.Name = newScrollEntry(0, &e.scroll)
	e.Name.SetPlaceHolder("e.g. backup photos")
	e.MaxConcurrent = newScrollEntry(0, &e.scroll)
	e.MaxConcurrent.SetPlaceHolder("1")
	e.KeepRuns = newScrollEntry(0, &e.scroll)
	e.KeepRuns.SetPlaceHolder("the default")
	e.KeepFor = newScrollEntry(0, &e.scroll)
	e.KeepFor.SetPlaceHolder("the default (e.g. 30d or 720h)")
	e.OnOwnerLost = widget.NewSelect(view.OwnerLostOptions(""), nil)
	e.OwnerLostHint = hint(view.OwnerLostHint(""))
	for _, en := range []*ScrollEntry{e.Name, e.MaxConcurrent, e.KeepRuns, e.KeepFor} {
		en.OnChanged = func(string) { e.changed() }
	}
	e.OnOwnerLost.OnChanged = func(string) { e.OwnerLostHint.SetText(view.OwnerLostHint(e.ownerLost())); e.changed() }
	e.AddStep = widget.NewButtonWithIcon("Add step", theme.ContentAddIcon(), func() {
		e.steps = append(e.steps, view.StepDraft{Argv: []string{""}})
		e.restructure()
	})
	e.Save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), m.SaveWorkflow)
	e.Save.Importance = widget.HighImportance
	e.Revert = widget.NewButtonWithIcon("Revert", theme.ContentUndoIcon(), e.revert)
	e.RunNow = widget.NewButtonWithIcon("Run now", theme.MediaPlayIcon(), m.RunSelected)
	e.Duplicate = widget.NewButtonWithIcon("Duplicate", theme.ContentCopyIcon(), m.DuplicateWorkflow)
	e.Rename = widget.NewButtonWithIcon("Rename…", theme.DocumentCreateIcon(), m.RenameWorkflow)
	e.Delete = widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), m.DeleteWorkflow)
	e.Delete.Importance = widget.DangerImportance
	e.ReadOnlyNote = widget.NewLabel("")
	e.ReadOnlyNote.Wrapping = fyne.TextWrapWord
	e.ReadOnlyNote.Importance = widget.WarningImportance
	e.Message = widget.NewLabel("")
	e.Message.Wrapping = fyne.TextWrapWord
	for _, k := range []string{"name", "max_concurrent", "on_owner_lost", "steps", "retention.keep_runs", "retention.keep_for"} {
		e.Errors[k] = errLabel()
	}
	e.stepsBox = container.NewVBox()
	laneHint := hint("How many runs of this workflow may run at once.")
	e.form = container.New(layout.NewFormLayout(),
		widget.NewLabel("Name"), container.NewVBox(e.Name, errLine(e.Errors["name"])),
		widget.NewLabel("Max concurrent"), container.NewVBox(e.MaxConcurrent, laneHint, errLine(e.Errors["max_concurrent"])),
		widget.NewLabel("If its window dies"), container.NewVBox(wrapped(view.OwnerLostTitle+":"), e.OnOwnerLost, e.OwnerLostHint, errLine(e.Errors["on_owner_lost"])),
		widget.NewLabel("Keep the newest"), container.NewVBox(container.NewBorder(nil, nil, nil, widget.NewLabel("runs"), e.KeepRuns), errLine(e.Errors["retention.keep_runs"])),
		widget.NewLabel("Keep runs for"), container.NewVBox(e.KeepFor, hint("Finished runs beyond both limits leave the history. Empty: the default."), errLine(e.Errors["retention.keep_for"])),
	)
	// The buttons wrap to a second row in a narrow window rather than widen it.
	actions := container.New(&flow{}, e.Save, e.Revert, e.RunNow, e.Duplicate, e.Rename, e.Delete)
	stepsHead := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Steps", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), e.AddStep)
	e.empty = widget.NewLabel("Choose a workflow on the left, or make a new one (File › New workflow, Ctrl+N).")
	e.empty.Wrapping = fyne.TextWrapWord
	body := container.NewVBox(e.Title, actions, e.ReadOnlyNote, e.Message, e.form, stepsHead, errLine(e.Errors["steps"]), e.stepsBox)
	e.obj = container.NewStack(e.empty, body)
	e.clear("")
	return e
}

// wrapped is a label that wraps its words: it never widens the form.
func wrapped(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

func hint(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.SizeName = theme.SizeNameCaptionText
	l.Wrapping = fyne.TextWrapWord
	return l
}

// clear closes the editor and shows msg (if any) in the empty state.
func (e *Editor) clear(msg string) {
	e.open, e.existing, e.dirty = false, "", false
	e.steps = nil
	body := e.obj.(*fyne.Container).Objects[1]
	body.Hide()
	if msg != "" {
		e.empty.SetText(view.EmptyEditorText(msg))
	}
	e.empty.Show()
	e.updateButtons()
}

// load shows a saved workflow, discarding any draft.
func (e *Editor) load(w *store.Workflow) {
	e.existing = w.Name
	e.base = w.Clone()
	e.fill(w)
	e.dirty = false
	e.Title.SetText(w.Name)
	e.Name.Disable() // a saved workflow is renamed with Rename…, which its runs follow
	e.setMessage("", widget.MediumImportance)
	e.check()
	e.updateButtons()
}

// draftFrom opens an unsaved new workflow copied from w, named name. A copy of a
// workflow (Duplicate) is something to lose; an untouched blank draft (blank) is not, so
// leaving it asks nothing.
func (e *Editor) draftFrom(w *store.Workflow, name string, blank bool) {
	c := w.Clone()
	c.Name = name
	e.existing = ""
	e.base = store.Workflow{}
	e.fill(&c)
	e.dirty = !blank
	e.Title.SetText("New workflow")
	e.Name.Enable()
	e.setMessage("Not saved yet.", widget.MediumImportance)
	e.check()
	e.updateButtons()
}

// saved marks the draft as saved under w. rev is the edit count when the save began: if
// the person typed since, their newer edits stay in the editor, unsaved.
func (e *Editor) saved(w *store.Workflow, rev int) {
	if w == nil {
		e.clear("")
		return
	}
	if rev != e.rev {
		e.existing, e.base = w.Name, w.Clone()
		e.Title.SetText(w.Name)
		e.Name.Disable()
		e.setMessage(view.SavedText(true), widget.WarningImportance)
		e.updateButtons()
		return
	}
	e.load(w)
	e.setMessage(view.SavedText(false), widget.SuccessImportance)
}

// fill puts w into the widgets without marking the editor dirty.
func (e *Editor) fill(w *store.Workflow) {
	e.loading = true
	defer func() { e.loading = false }()
	e.open = true
	f := view.FormOf(w, e.steps[:0])
	e.Name.SetText(f.Name)
	e.MaxConcurrent.SetText(f.MaxConcurrent)
	e.KeepRuns.SetText(f.KeepRuns)
	e.KeepFor.SetText(f.KeepFor)
	e.OnOwnerLost.Options = view.OwnerLostOptions(f.OnOwnerLost)
	e.OnOwnerLost.SetSelected(view.OwnerLostLabel(f.OnOwnerLost))
	e.OwnerLostHint.SetText(view.OwnerLostHint(f.OnOwnerLost))
	e.steps = f.Steps
	e.rebuildSteps()
	e.empty.Hide()
	e.obj.(*fyne.Container).Objects[1].Show()
}

// follow is called with every new snapshot: an unedited editor shows the newest saved
// definition; an edited one is left alone (the person's typing wins until they save).
//
// A workflow renamed (here or in another window) is followed under its new name, edits
// kept: it did not go away.
func (e *Editor) follow(doc *store.Doc) {
	prev := e.seen
	e.seen = doc
	if from, to := e.existing, view.RenamedTo(prev, doc, e.existing); e.open && to != "" {
		e.existing, e.base.Name = to, to
		e.Title.SetText(to)
		e.loading = true
		e.Name.SetText(to)
		e.loading = false
		e.m.selWF = to
		e.setMessage(view.RenamedText(from), widget.SuccessImportance)
	}
	act, w, msg := view.EditorFollow(doc, e.open, e.existing, &e.base, e.dirty)
	switch act {
	case view.FollowClose:
		e.clear(msg)
	case view.FollowOrphan:
		e.setMessage(msg, widget.WarningImportance)
		e.existing = ""
		e.Name.Enable()
		e.updateButtons()
	case view.FollowRebase:
		e.setMessage(msg, widget.WarningImportance)
		e.base = w.Clone()
	case view.FollowLoad:
		e.load(w)
	}
}

func (e *Editor) revert() {
	if w := e.m.doc.Workflow(e.existing); w != nil {
		e.load(w)
	}
}

// changed records an edit by the person.
func (e *Editor) changed() {
	if e.loading {
		return
	}
	e.dirty = true
	e.rev++
	if !e.fixing && e.Message.Importance == widget.SuccessImportance {
		e.setMessage("", widget.MediumImportance) // "Saved." is no longer true of what the form shows
	}
	e.check()
	e.updateButtons()
}

// restructure rebuilds the step widgets after a step or argument was added, removed or moved.
func (e *Editor) restructure() {
	e.rebuildSteps()
	e.changed()
}

// setMessage shows s above the form. The line keeps its place when s is "", so the
// form below never moves as messages come and go.
func (e *Editor) setMessage(s string, imp widget.Importance) {
	e.fixing = false
	e.Message.Importance = imp
	e.Message.SetText(s)
}

// setWritable enables the write controls for a writer; a reader sees why not.
func (e *Editor) setWritable(ok bool, reason string) {
	if view.EditorControlsFor(ok, e.open, e.dirty, e.existing).ReadOnlyNote {
		e.ReadOnlyNote.SetText(reason)
		e.ReadOnlyNote.Show()
	} else {
		e.ReadOnlyNote.Hide()
	}
	e.updateButtons()
}

func (e *Editor) updateButtons() {
	c := view.EditorControlsFor(e.m.writeable, e.open, e.dirty, e.existing)
	enable(e.Save, c.Save)
	enable(e.Revert, c.Revert)
	enable(e.RunNow, c.RunNow)
	enable(e.Duplicate, c.Duplicate)
	enable(e.Delete, c.Delete)
	enable(e.Rename, c.Rename)
	enable(e.AddStep, c.AddStep)
}

func enable(d fyne.Disableable, on bool) {
	if on && d.Disabled() {
		d.Enable()
	} else if !on && !d.Disabled() {
		d.Disable()
	}
}

// typed is the workflow as typed in the editor.
func (e *Editor) typed() view.WorkflowForm {
	return view.WorkflowForm{Name: e.Name.Text, MaxConcurrent: e.MaxConcurrent.Text, OnOwnerLost: e.ownerLost(),
		KeepRuns: e.KeepRuns.Text, KeepFor: e.KeepFor.Text, Steps: e.steps}
}

// ownerLost is the on_owner_lost value chosen ("" when nothing is).
func (e *Editor) ownerLost() string {
	if e.OnOwnerLost.Selected == "" {
		return ""
	}
	return view.OwnerLostValue(e.OnOwnerLost.Selected)
}

// Draft returns the definition as typed, and the messages of fields that do not parse.
func (e *Editor) Draft() (store.Workflow, map[string]string) {
	f := e.typed()
	return f.Draft()
}

// check shows every problem of the definition as typed next to its field, all at once,
// and returns the definition and its problems. The rules are the core's
// (view.WorkflowForm.Validate, with the document for a new workflow's name); the editor
// adds nothing. After a Save refused for problems, the message follows their count.
func (e *Editor) check() (store.Workflow, map[string]string) {
	f := e.typed()
	var doc *store.Doc
	if e.existing == "" {
		doc = e.m.doc
	}
	w, errs := f.Validate(doc)
	e.showProblems(errs)
	if e.fixing {
		if len(errs) == 0 {
			e.setMessage("", widget.MediumImportance)
		} else {
			e.setMessage(view.ProblemsText(errs, e.has), widget.DangerImportance)
			e.fixing = true
		}
	}
	return w, errs
}

// validate is the check of Save: it shows every problem next to its field and returns
// the definition when it is valid; when it is not, the message says so ("Not saved. Fix
// the 2 problems marked below.").
func (e *Editor) validate() (store.Workflow, bool) {
	w, errs := e.check()
	if len(errs) > 0 {
		e.setMessage(view.ProblemsText(errs, e.has), widget.DangerImportance)
		e.fixing = true
	}
	return w, len(errs) == 0
}

// has reports whether the editor has a message label for field.
func (e *Editor) has(field string) bool { _, ok := e.Errors[field]; return ok }

// showProblems shows each message of errs next to its field and clears the others.
func (e *Editor) showProblems(errs map[string]string) {
	for k, l := range e.Errors {
		setProblem(l, errs[k])
	}
}

// showError shows the errors the core returned for a save, each next to its field.
func (e *Editor) showError(err error) {
	fields, msg := view.SaveError(err, e.has)
	if len(fields) > 0 {
		e.showProblems(fields)
	}
	e.setMessage(msg, widget.DangerImportance)
}

// rebuildSteps makes one card per step draft, dropping the field errors of old steps.
func (e *Editor) rebuildSteps() {
	for k := range e.Errors {
		if strings.HasPrefix(k, "steps[") {
			delete(e.Errors, k)
		}
	}
	e.Steps = e.Steps[:0]
	objs := make([]fyne.CanvasObject, 0, len(e.steps))
	for i := range e.steps {
		se := e.stepEditor(i)
		e.Steps = append(e.Steps, se)
		objs = append(objs, se.card(i, len(e.steps)))
	}
	e.stepsBox.Objects = objs
	e.stepsBox.Refresh()
}

func (e *Editor) stepEditor(i int) *StepEditor {
	d := &e.steps[i]
	se := &StepEditor{ArgvError: errLabel(), TimeoutError: errLabel(), EnvError: errLabel()}
	e.Errors[view.StepField(i, "argv")] = se.ArgvError
	e.Errors[view.StepField(i, "timeout")] = se.TimeoutError
	e.Errors[view.StepField(i, "env")] = se.EnvError
	entry := func(val, ph string, set func(string)) *ScrollEntry {
		en := newScrollEntry(0, &e.scroll)
		en.SetText(val)
		en.SetPlaceHolder(ph)
		en.OnChanged = func(s string) { set(s); e.changed() }
		return en
	}
	se.Name = entry(d.Name, fmt.Sprintf("step %d", i+1), func(s string) { e.steps[i].Name = s })
	se.Timeout = entry(d.Timeout, "no limit (e.g. 10m)", func(s string) { e.steps[i].Timeout = s })
	se.Dir = entry(d.Dir, "the home folder", func(s string) { e.steps[i].Dir = s })
	se.Env = newScrollEntry(2, &e.scroll)
	se.Env.SetText(d.Env)
	se.Env.SetPlaceHolder("NAME=value, one per line")
	se.Env.OnChanged = func(s string) { e.steps[i].Env = s; e.changed() }
	masked, secret := view.MaskedEnv(d.Env)
	se.EnvMasked = widget.NewLabel(masked)
	se.EnvMasked.TextStyle.Monospace = true
	se.EnvMasked.Truncation = fyne.TextTruncateEllipsis
	se.Reveal = widget.NewButtonWithIcon("Show values", theme.VisibilityIcon(), func() {
		se.EnvMasked.Hide()
		se.Reveal.Hide()
		se.Env.Show()
		e.m.Win.Canvas().Focus(se.Env)
	})
	se.Reveal.Importance = widget.LowImportance
	if secret {
		se.Env.Hide()
	} else {
		se.EnvMasked.Hide()
		se.Reveal.Hide()
	}
	se.Split = widget.NewButtonWithIcon("Split into arguments", theme.ViewRestoreIcon(), func() {
		if argv, ok := view.SplitCommand(e.steps[i].Argv); ok {
			e.steps[i].Argv = argv
			e.restructure()
		}
	})
	se.Split.Importance = widget.LowImportance
	offerSplit := func() {
		if _, ok := view.SplitCommand(e.steps[i].Argv); ok {
			se.Split.Show()
		} else {
			se.Split.Hide()
		}
	}
	offerSplit()
	for j := range d.Argv {
		ph := "argument"
		if j == 0 {
			ph = "program, e.g. rsync or /usr/bin/backup"
		}
		se.Args = append(se.Args, entry(d.Argv[j], ph, func(s string) { e.steps[i].Argv[j] = s; offerSplit() }))
		rm := widget.NewButtonWithIcon("", theme.ContentRemoveIcon(), func() {
			e.steps[i].Argv = view.RemoveArg(e.steps[i].Argv, j)
			e.restructure()
		})
		rm.Importance = widget.LowImportance
		se.removeArg = append(se.removeArg, rm)
	}
	se.AddArg = widget.NewButtonWithIcon("Argument", theme.ContentAddIcon(), func() {
		e.steps[i].Argv = append(e.steps[i].Argv, "")
		e.restructure()
		if s := e.Steps[i]; len(s.Args) > 0 {
			e.m.Win.Canvas().Focus(s.Args[len(s.Args)-1])
		}
	})
	se.AddArg.Importance = widget.LowImportance
	se.Up = widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { e.moveStep(i, -1) })
	se.Down = widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { e.moveStep(i, 1) })
	se.Remove = widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
		e.steps = slices.Delete(e.steps, i, i+1)
		e.restructure()
	})
	for _, b := range []*widget.Button{se.Up, se.Down, se.Remove} {
		b.Importance = widget.LowImportance
	}
	return se
}

func (e *Editor) moveStep(i, delta int) {
	if view.MoveStep(e.steps, i, delta) {
		e.restructure()
	}
}

// card lays out one step: header with reorder and remove, then its fields.
func (se *StepEditor) card(i, n int) fyne.CanvasObject {
	se.Title = widget.NewLabelWithStyle(fmt.Sprintf("Step %d", i+1), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	up, down := view.StepMoves(i, n)
	enable(se.Up, up)
	enable(se.Down, down)
	head := container.NewBorder(nil, nil, se.Title, container.NewHBox(se.Up, se.Down, se.Remove))
	args := container.NewVBox()
	for j, a := range se.Args {
		num := widget.NewLabel(strconv.Itoa(j))
		num.SizeName = theme.SizeNameCaptionText
		args.Add(container.NewBorder(nil, nil, num, se.removeArg[j], a))
	}
	args.Add(container.NewHBox(se.AddArg, se.Split)) // Split comes and goes on this row: nothing moves
	args.Add(hint("Each argument is passed as is; there is no shell."))
	args.Add(errLine(se.ArgvError))
	form := container.New(layout.NewFormLayout(),
		widget.NewLabel("Name"), se.Name,
		widget.NewLabel("Command"), args,
		widget.NewLabel("Timeout"), container.NewVBox(se.Timeout, errLine(se.TimeoutError)),
		widget.NewLabel("Folder"), se.Dir,
		widget.NewLabel("Environment"), container.NewVBox(container.NewBorder(nil, nil, nil, se.Reveal, se.EnvMasked), se.Env, errLine(se.EnvError)),
	)
	return widget.NewCard("", "", container.NewVBox(head, form))
}

// focusFirst gives the focus to the first field the person may type in: the name of a
// new workflow, else the lane size. Enter on the workflow list comes here.
func (e *Editor) focusFirst() {
	if !e.open {
		return
	}
	c := e.m.Win.Canvas()
	if !e.Name.Disabled() {
		c.Focus(e.Name)
		return
	}
	c.Focus(e.MaxConcurrent)
}

// warnPrograms marks, after a save, each step whose program will not run as typed (a
// whole command line, or a program not on PATH: view.ProgramWarnings), and says so above
// the form. The save stands.
func (e *Editor) warnPrograms() {
	warns := view.ProgramWarnings(e.steps, func(p string) error { _, err := exec.LookPath(p); return err },
		func(p string) error { _, err := os.Stat(p); return err })
	n := 0
	for k, msg := range warns {
		if l := e.Errors[k]; l != nil && l.Text == "" {
			setProblem(l, msg)
			n++
		}
	}
	if n > 0 {
		e.setMessage(view.SavedButText(n), widget.WarningImportance)
	}
}
