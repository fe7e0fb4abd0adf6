package ui

import (
	"context"
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/host"
	"baton/store"
	"baton/ui/view"
)

// Schedules is the Schedules tab: a list with next due time, last outcome, policies and
// paused state, and an editor with a preview of the next occurrences. UI goroutine only.
type Schedules struct {
	List      *KeyList
	NewButton *widget.Button
	Workflow  *FilterSelect // type to filter the workflows
	// Repeat chooses between Every and Cron (view.RepeatChoices); only the chosen
	// field shows.
	Repeat     *widget.RadioGroup
	Every      *ScrollEntry
	Cron       *ScrollEntry
	TZ         *ScrollEntry
	Overlap    *widget.Select
	CatchUp    *widget.Select
	MaxRuntime *ScrollEntry
	OnOverrun  *widget.Select
	Preview    *widget.Label
	Message    *widget.Label
	Note       *widget.Label
	Save       *widget.Button
	Pause      *widget.Button
	Delete     *widget.Button
	// Empty is what the tab says while no schedule is open.
	Empty *widget.Label
	// Problem says, at the top of the form, how many problems are marked beside their
	// fields, and any problem that belongs to no field.
	Problem *widget.Label
	// Errors holds the message beside each field, keyed by the field's name as the core
	// spells it (view.ScheduleFields): workflow, every, cron, tz, overlap, catch_up,
	// max_runtime, on_overrun.
	Errors map[string]*widget.Label

	m       *Main
	obj     fyne.CanvasObject
	form    fyne.CanvasObject
	scroll  *container.Scroll // the form's, which the wheel over a field scrolls
	every   fyne.CanvasObject // the Every row's field, shown for view.RepeatEvery
	cron    fyne.CanvasObject // the Cron row's field, shown for view.RepeatCron
	id      string            // schedule being edited; "" for a new one
	open    bool
	dirty   bool
	loading bool
	valid   bool
}

func newSchedules(m *Main) *Schedules {
	s := &Schedules{m: m, Errors: map[string]*widget.Label{}}
	for _, k := range view.ScheduleFields {
		s.Errors[k] = errLabel()
	}
	s.List = NewKeyList(func() int { return len(m.doc.Schedules) }, newScheduleRow, s.updateRow)
	s.List.OnPicked = func(i widget.ListItemID) {
		if i < len(m.doc.Schedules) && !m.syncing {
			s.load(&m.doc.Schedules[i])
		}
	}
	s.List.OnEnter = func() { m.Win.Canvas().Focus(s.Workflow) }
	s.NewButton = widget.NewButtonWithIcon("New schedule", theme.ContentAddIcon(), s.newDraft)
	s.Workflow = NewFilterSelect(func(string) { s.changed() })
	entry := func(ph string) *ScrollEntry {
		e := newScrollEntry(0, &s.scroll)
		e.SetPlaceHolder(ph)
		e.OnChanged = func(string) { s.changed() }
		return e
	}
	s.Repeat = widget.NewRadioGroup(view.RepeatChoices, func(string) { s.showRepeat(); s.changed() })
	s.Repeat.Horizontal = true
	s.Repeat.Required = true
	s.Every = entry("e.g. 1h, 15m or 1h30m")
	s.Cron = entry("e.g. 0 3 * * * (minute hour day month weekday)")
	s.TZ = entry("local time (or e.g. Europe/Paris)")
	s.MaxRuntime = entry("no budget (e.g. 2h)")
	sel := func(opts ...string) *widget.Select {
		return widget.NewSelect(opts, func(string) { s.changed() })
	}
	s.Overlap = sel(view.OverlapChoices...)
	s.CatchUp = sel(view.CatchUpChoices...)
	s.OnOverrun = sel(view.OnOverrunChoices...)
	s.Preview = widget.NewLabel("")
	s.Preview.Wrapping = fyne.TextWrapWord
	s.Problem = errLabel()
	s.Message = widget.NewLabel("")
	s.Message.Wrapping = fyne.TextWrapWord
	s.Note = widget.NewLabel("")
	s.Note.Importance = widget.WarningImportance
	s.Note.Wrapping = fyne.TextWrapWord
	s.Save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), s.save)
	s.Save.Importance = widget.HighImportance
	s.Pause = widget.NewButtonWithIcon("Pause", theme.MediaPauseIcon(), s.togglePause)
	s.Delete = widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), s.delete)
	s.Delete.Importance = widget.DangerImportance
	e := s.Errors
	s.every = container.NewBorder(nil, nil, widget.NewLabel("Every"), nil, container.NewVBox(s.Every, errLine(e["every"])))
	s.cron = container.NewBorder(nil, nil, widget.NewLabel("Cron"), nil, container.NewVBox(s.Cron, errLine(e["cron"])))
	form := container.New(layout.NewFormLayout(),
		widget.NewLabel("Workflow"), container.NewVBox(s.Workflow, errLine(e["workflow"])),
		widget.NewLabel("Repeat"), container.NewVBox(s.Repeat, s.every, s.cron),
		widget.NewLabel("Time zone"), container.NewVBox(s.TZ, errLine(e["tz"])),
		widget.NewLabel("Overlap"), container.NewVBox(s.Overlap, hint("If the last run is still going: skip, queue one, allow beside it, or replace it."), errLine(e["overlap"])),
		widget.NewLabel("Catch-up"), container.NewVBox(s.CatchUp, hint("Occurrences missed while no window ran: none, the latest, or all."), errLine(e["catch_up"])),
		widget.NewLabel("Max runtime"), container.NewVBox(s.MaxRuntime, errLine(e["max_runtime"])),
		widget.NewLabel("On overrun"), container.NewVBox(s.OnOverrun, hint("A budget, never proof of death: warn, or cancel the run."), errLine(e["on_overrun"])),
		widget.NewLabel("Next 5 times"), s.Preview,
	)
	actions := container.NewHBox(s.Save, s.Pause, layout.NewSpacer(), s.Delete)
	s.form = container.NewVBox(actions, s.Note, s.Message, errLine(s.Problem), form)
	s.Empty = widget.NewLabel("Choose a schedule, or make a new one.")
	head := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Schedules", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), s.NewButton)
	list := container.NewBorder(head, nil, nil, nil, s.List)
	s.scroll = container.NewVScroll(container.New(clearOfScrollBar{}, container.NewStack(s.Empty, s.form)))
	split := container.NewVSplit(list, s.scroll)
	split.Offset = 0.35
	s.obj = split
	s.form.Hide()
	return s
}

func newScheduleRow() fyne.CanvasObject {
	title := widget.NewLabel("workflow · every 1h")
	title.TextStyle.Bold = true
	title.Truncation = fyne.TextTruncateEllipsis
	detail := widget.NewLabel("next 15:00 · last succeeded · overlap skip · catch-up latest")
	detail.SizeName = theme.SizeNameCaptionText
	detail.Truncation = fyne.TextTruncateEllipsis // it grows (skips, a live run): never the window
	return container.NewBorder(nil, nil, widget.NewIcon(theme.HistoryIcon()), nil, container.NewVBox(title, compact(detail)))
}

func (s *Schedules) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(s.m.doc.Schedules) {
		return
	}
	row := view.ScheduleRowOf(s.m.doc, &s.m.doc.Schedules[i], s.m.opts.Now())
	c := o.(*fyne.Container)
	text := c.Objects[0].(*fyne.Container)
	text.Objects[0].(*widget.Label).SetText(row.Title)
	icon := c.Objects[1].(*widget.Icon)
	if row.Paused {
		icon.SetResource(theme.NewWarningThemedResource(theme.MediaPauseIcon()))
	} else {
		icon.SetResource(theme.NewPrimaryThemedResource(theme.HistoryIcon()))
	}
	text.Objects[1].(*fyne.Container).Objects[0].(*widget.Label).SetText(row.Detail + view.SkipText(s.m.skips[s.m.doc.Schedules[i].ID]))
}

// render refreshes the list and the workflow choices; an unedited editor follows the
// newest saved schedule.
func (s *Schedules) render() {
	s.Workflow.SetAll(view.WorkflowNames(s.m.doc))
	s.List.Refresh()
	if sc, closed := view.ScheduleFollow(s.m.doc, s.id, s.open, s.dirty); sc != nil {
		s.fill(sc)
	} else if closed != "" {
		s.close(closed)
	}
	s.updateButtons()
}

func (s *Schedules) close(msg string) {
	s.open, s.id, s.dirty = false, "", false
	s.List.UnselectAll() // a row selected still would not open again when tapped
	s.form.Hide()
	s.Empty.Show()
	s.Message.SetText(msg)
}

func (s *Schedules) newDraft() {
	s.id = ""
	draft := view.NewSchedule(s.m.doc, s.m.selWF)
	s.fill(&draft)
	s.dirty = true
	s.Message.SetText("New schedule, not saved yet.")
	s.updateButtons()
}

func (s *Schedules) load(sc *store.Schedule) {
	s.id = sc.ID
	s.fill(sc)
	s.dirty = false
	s.Message.SetText("")
	s.updateButtons()
}

func (s *Schedules) fill(sc *store.Schedule) {
	f := view.ScheduleFormOf(sc)
	s.loading = true
	s.open = true
	s.Workflow.SetSelected(f.Workflow)
	s.Repeat.SetSelected(f.Repeat)
	s.showRepeat()
	s.Every.SetText(f.Every)
	s.Cron.SetText(f.Cron)
	s.TZ.SetText(f.TZ)
	s.Overlap.SetSelected(f.Overlap)
	s.CatchUp.SetSelected(f.CatchUp)
	s.MaxRuntime.SetText(f.MaxRuntime)
	s.OnOverrun.SetSelected(f.OnOverrun)
	s.loading = false
	s.Empty.Hide()
	s.form.Show()
	s.check()
}

// showRepeat shows the field of the chosen repeat, Every or Cron, and hides the other.
func (s *Schedules) showRepeat() {
	if s.Repeat.Selected == view.RepeatCron {
		s.every.Hide()
		s.cron.Show()
	} else {
		s.cron.Hide()
		s.every.Show()
	}
}

func (s *Schedules) changed() {
	if s.loading || !s.open {
		return
	}
	s.dirty = true
	if s.id != "" {
		s.Message.SetText(view.UnsavedText) // not "Saved." above the problems of an edit
	}
	s.check()
	s.updateButtons()
}

// typed is the schedule as typed.
func (s *Schedules) typed() view.ScheduleForm {
	return view.ScheduleForm{ID: s.id, Workflow: s.Workflow.Selected, Every: s.Every.Text, Cron: s.Cron.Text, TZ: s.TZ.Text,
		MaxRuntime: s.MaxRuntime.Text, Overlap: s.Overlap.Selected, CatchUp: s.CatchUp.Selected, OnOverrun: s.OnOverrun.Selected,
		Repeat: s.Repeat.Selected}
}

// check validates the draft with the core's rules, shows every problem beside its field
// (and how many at the top), and previews its next occurrences.
func (s *Schedules) check() {
	f := s.typed()
	c := f.Check(s.m.doc, s.m.opts.Now())
	if !c.KeepPreview {
		s.Preview.SetText(c.Preview)
	}
	s.valid = c.Valid()
	s.showProblems(c.Problems, view.FixText(c.Problems, s.has))
}

// has reports whether the form has a message label for field.
func (s *Schedules) has(field string) bool { _, ok := s.Errors[field]; return ok }

// showProblems shows each message of errs beside its field, clears the others, and shows
// top at the top of the form ("" clears it).
func (s *Schedules) showProblems(errs map[string]string, top string) {
	for k, l := range s.Errors {
		setProblem(l, errs[k])
	}
	setProblem(s.Problem, top)
}

func (s *Schedules) updateButtons() {
	c := view.ScheduleControlsFor(s.m.writeable, s.m.st, s.m.doc, s.id, s.open, s.dirty, s.valid)
	enable(s.Save, c.Save)
	enable(s.Pause, c.Pause)
	enable(s.Delete, c.Delete)
	if c.Resume {
		s.Pause.SetText("Resume")
		s.Pause.SetIcon(theme.MediaPlayIcon())
	} else {
		s.Pause.SetText("Pause")
		s.Pause.SetIcon(theme.MediaPauseIcon())
	}
	if c.ShowNote {
		s.Note.SetText(c.Note)
		s.Note.Show()
	} else {
		s.Note.Hide()
	}
}

func (s *Schedules) core() *host.Intents { return s.m.core.Intents() }

// save saves the schedule open in the form. Ctrl+S calls it too, so it does nothing when
// no schedule is open: the closed form still holds the last one's fields.
func (s *Schedules) save() {
	f := s.typed()
	sc, errs := f.Draft(s.m.doc)
	core := s.core()
	if !s.open || len(errs) > 0 || !s.m.writeable || core == nil {
		return
	}
	isNew := s.id == ""
	s.m.Undo.drop()
	var saved store.Schedule
	s.m.runAsync(func() error {
		var err error
		if isNew {
			saved, _, err = core.AddSchedule(context.Background(), sc)
		} else {
			_, err = core.UpdateSchedule(context.Background(), sc)
			saved = sc
		}
		return err
	}, func(err error) {
		if err != nil {
			fields, msg := view.SaveError(err, s.has)
			if len(fields) > 0 {
				s.showProblems(fields, "")
			}
			s.Message.SetText(msg)
			return
		}
		s.m.freshDoc()
		if cur := s.m.doc.Schedule(saved.ID); cur != nil {
			s.load(cur)
		}
		s.Message.SetText("Saved.")
		s.m.render(nil)
	})
}

func (s *Schedules) togglePause() {
	cur := s.m.doc.Schedule(s.id)
	core := s.core()
	if cur == nil || core == nil || !s.m.writeable {
		return
	}
	id, paused := cur.ID, !cur.Paused
	s.m.runAsync(func() error { _, err := core.PauseSchedule(context.Background(), id, paused); return err }, func(err error) {
		if err != nil {
			s.Message.SetText(view.ErrText(err))
		} else {
			s.Message.SetText(view.PausedText(paused))
		}
		s.m.freshDoc()
		s.m.render(nil)
	})
}

func (s *Schedules) delete() {
	core := s.core()
	if s.id == "" || core == nil || !s.m.writeable {
		return
	}
	id := s.id
	title, question := view.DeleteScheduleQuestion()
	var gone store.Schedule
	if sc := s.m.doc.Schedule(id); sc != nil {
		gone = sc.Clone()
	}
	s.m.opts.Confirm(title, question, func(ok bool) {
		if !ok {
			return
		}
		s.m.runAsync(func() error { _, err := core.DeleteSchedule(context.Background(), id); return err }, func(err error) {
			if err != nil {
				s.Message.SetText(view.ErrText(err))
				return
			}
			s.m.offerScheduleUndo(gone)
			s.m.freshDoc()
			s.close("Deleted.")
			s.m.render(nil)
		})
	})
}
