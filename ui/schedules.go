package ui

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"baton/store"
	"baton/workflow"
)

// Schedules is the Schedules tab: a list with next due time, last outcome, policies and
// paused state, and an editor with a preview of the next occurrences. UI goroutine only.
type Schedules struct {
	List       *widget.List
	NewButton  *widget.Button
	Workflow   *widget.Select
	Every      *widget.Entry
	Cron       *widget.Entry
	TZ         *widget.Entry
	Overlap    *widget.Select
	CatchUp    *widget.Select
	MaxRuntime *widget.Entry
	OnOverrun  *widget.Select
	Preview    *widget.Label
	Problem    *widget.Label
	Message    *widget.Label
	Note       *widget.Label
	Save       *widget.Button
	Pause      *widget.Button
	Delete     *widget.Button

	m       *Main
	obj     fyne.CanvasObject
	form    fyne.CanvasObject
	id      string // schedule being edited; "" for a new one
	open    bool
	dirty   bool
	loading bool
	valid   bool
}

// ScheduleCore is what the Schedules tab needs of the core; *host.Window implements it.
type ScheduleCore interface {
	AddSchedule(store.Schedule) (store.Schedule, uint64, error)
	UpdateSchedule(store.Schedule) (uint64, error)
	DeleteSchedule(id string) (uint64, error)
	PauseSchedule(id string, paused bool) (uint64, error)
}

func newSchedules(m *Main) *Schedules {
	s := &Schedules{m: m}
	s.List = widget.NewList(func() int { return len(m.doc.Schedules) }, newScheduleRow, s.updateRow)
	s.List.OnSelected = func(i widget.ListItemID) {
		if i < len(m.doc.Schedules) && !m.syncing {
			s.load(&m.doc.Schedules[i])
		}
	}
	s.NewButton = widget.NewButtonWithIcon("New schedule", theme.ContentAddIcon(), s.newDraft)
	s.Workflow = widget.NewSelect(nil, func(string) { s.changed() })
	entry := func(ph string) *widget.Entry {
		e := widget.NewEntry()
		e.SetPlaceHolder(ph)
		e.OnChanged = func(string) { s.changed() }
		return e
	}
	s.Every = entry("e.g. 1h or 15m (or use cron)")
	s.Cron = entry("e.g. 0 3 * * * (minute hour day month weekday)")
	s.TZ = entry("local time (or e.g. Europe/Paris)")
	s.MaxRuntime = entry("no budget (e.g. 2h)")
	sel := func(opts ...string) *widget.Select {
		return widget.NewSelect(opts, func(string) { s.changed() })
	}
	s.Overlap = sel(workflow.OverlapSkip, workflow.OverlapQueue, workflow.OverlapAllow, workflow.OverlapReplace)
	s.CatchUp = sel(workflow.CatchUpNone, workflow.CatchUpLatest, workflow.CatchUpAll)
	s.OnOverrun = sel("warn", "cancel")
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
	form := container.New(layout.NewFormLayout(),
		widget.NewLabel("Workflow"), s.Workflow,
		widget.NewLabel("Every"), s.Every,
		widget.NewLabel("Cron"), s.Cron,
		widget.NewLabel("Time zone"), s.TZ,
		widget.NewLabel("Overlap"), container.NewVBox(s.Overlap, hint("If the last run is still going: skip, queue one, allow beside it, or replace it.")),
		widget.NewLabel("Catch-up"), container.NewVBox(s.CatchUp, hint("Occurrences missed while no window ran: none, the latest, or all.")),
		widget.NewLabel("Max runtime"), s.MaxRuntime,
		widget.NewLabel("On overrun"), container.NewVBox(s.OnOverrun, hint("A budget, never proof of death: warn, or cancel the run.")),
		widget.NewLabel("Next 5 times"), s.Preview,
	)
	actions := container.NewHBox(s.Save, s.Pause, layout.NewSpacer(), s.Delete)
	s.form = container.NewVBox(actions, s.Note, s.Message, s.Problem, form)
	empty := widget.NewLabel("Choose a schedule, or make a new one.")
	head := container.NewBorder(nil, nil, widget.NewLabelWithStyle("Schedules", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), s.NewButton)
	list := container.NewBorder(head, nil, nil, nil, s.List)
	split := container.NewVSplit(list, container.NewVScroll(container.NewStack(empty, s.form)))
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
	return container.NewBorder(nil, nil, widget.NewIcon(theme.HistoryIcon()), detail, title)
}

func (s *Schedules) updateRow(i widget.ListItemID, o fyne.CanvasObject) {
	if i >= len(s.m.doc.Schedules) {
		return
	}
	sc := &s.m.doc.Schedules[i]
	c := o.(*fyne.Container)
	c.Objects[0].(*widget.Label).SetText(sc.Workflow + " · " + cadence(sc))
	icon := c.Objects[1].(*widget.Icon)
	if sc.Paused {
		icon.SetResource(theme.NewWarningThemedResource(theme.MediaPauseIcon()))
	} else {
		icon.SetResource(theme.NewPrimaryThemedResource(theme.HistoryIcon()))
	}
	now := s.m.opts.Now()
	next := "next " + clock(sc.NextDue, now)
	if sc.Paused {
		next = "paused"
	}
	last := "never ran"
	if sc.LastStatus != "" {
		last = "last " + sc.LastStatus
	}
	c.Objects[2].(*widget.Label).SetText(fmt.Sprintf("%s · %s · overlap %s · catch-up %s", next, last, sc.Overlap, sc.CatchUp))
}

func cadence(sc *store.Schedule) string {
	if sc.Cron != "" {
		s := "cron " + sc.Cron
		if sc.TZ != "" {
			s += " (" + sc.TZ + ")"
		}
		return s
	}
	return "every " + sc.Every.D().String()
}

// render refreshes the list and the workflow choices; an unedited editor follows the
// newest saved schedule.
func (s *Schedules) render() {
	names := make([]string, 0, len(s.m.doc.Workflows))
	for i := range s.m.doc.Workflows {
		names = append(names, s.m.doc.Workflows[i].Name)
	}
	s.Workflow.Options = names
	s.List.Refresh()
	if s.open && s.id != "" && !s.dirty {
		if sc := s.m.doc.Schedule(s.id); sc != nil {
			s.fill(sc)
		} else {
			s.close("The schedule was deleted.")
		}
	}
	s.updateButtons()
}

func (s *Schedules) close(msg string) {
	s.open, s.id, s.dirty = false, "", false
	s.form.Hide()
	s.Message.SetText(msg)
}

func (s *Schedules) newDraft() {
	s.id = ""
	wf := ""
	if len(s.m.doc.Workflows) > 0 {
		wf = s.m.doc.Workflows[0].Name
	}
	s.fill(&store.Schedule{Workflow: wf, Every: store.Duration(time.Hour), Overlap: workflow.OverlapSkip,
		CatchUp: workflow.CatchUpLatest, OnOverrun: "warn"})
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
	s.loading = true
	s.open = true
	s.Workflow.SetSelected(sc.Workflow)
	s.Every.SetText(durText(sc.Every))
	s.Cron.SetText(sc.Cron)
	s.TZ.SetText(sc.TZ)
	s.Overlap.SetSelected(sc.Overlap)
	s.CatchUp.SetSelected(sc.CatchUp)
	s.MaxRuntime.SetText(durText(sc.MaxRuntime))
	s.OnOverrun.SetSelected(sc.OnOverrun)
	s.loading = false
	s.form.Show()
	s.check()
}

func durText(d store.Duration) string {
	if d == 0 {
		return ""
	}
	return d.D().String()
}

func (s *Schedules) changed() {
	if s.loading || !s.open {
		return
	}
	s.dirty = true
	s.check()
	s.updateButtons()
}

// draft returns the schedule as typed, or what does not parse.
func (s *Schedules) draft() (store.Schedule, string) {
	sc := store.Schedule{ID: s.id, Workflow: s.Workflow.Selected, Cron: strings.TrimSpace(s.Cron.Text), TZ: strings.TrimSpace(s.TZ.Text),
		Overlap: s.Overlap.Selected, CatchUp: s.CatchUp.Selected, OnOverrun: s.OnOverrun.Selected}
	if cur := s.m.doc.Schedule(s.id); cur != nil {
		sc.Paused, sc.Watermark, sc.CatchUpWindow = cur.Paused, cur.Watermark, cur.CatchUpWindow
	}
	for _, f := range []struct {
		name string
		text string
		to   *store.Duration
	}{{"every", s.Every.Text, &sc.Every}, {"max runtime", s.MaxRuntime.Text, &sc.MaxRuntime}} {
		t := strings.TrimSpace(f.text)
		if t == "" {
			continue
		}
		d, err := time.ParseDuration(t)
		if err != nil || d < 0 {
			return sc, fmt.Sprintf("%s: must be a duration such as 15m or 1h, not %q", f.name, t)
		}
		*f.to = store.Duration(d)
	}
	return sc, ""
}

// check validates the draft with the core's rules and previews its next occurrences.
func (s *Schedules) check() {
	sc, problem := s.draft()
	now := s.m.opts.Now()
	if problem == "" {
		c := sc.Clone()
		if cur := s.m.doc.Schedule(s.id); cur != nil && c.Every == cur.Every && c.Cron == cur.Cron {
			c.Created, c.LastDue = cur.Created, cur.LastDue
		}
		if err := workflow.NormalizeSchedule(s.m.doc, &c, now); err != nil {
			_, problem = cut(err.Error(), "schedule: ")
		} else if times, err := workflow.NextTimes(&c, now, 5); err == nil {
			var parts []string
			for _, t := range times {
				parts = append(parts, t.Local().Format("Mon 2 Jan 15:04"))
			}
			s.Preview.SetText(strings.Join(parts, "\n"))
		}
	}
	s.valid = problem == ""
	if problem != "" {
		s.Preview.SetText("—")
		s.Problem.SetText(problem)
		s.Problem.Show()
	} else {
		s.Problem.Hide()
	}
}

func cut(s, sep string) (string, string) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):]
	}
	return "", s
}

func (s *Schedules) updateButtons() {
	w := s.m.writeable
	enable(s.Save, w && s.open && s.valid && (s.dirty || s.id == ""))
	enable(s.Pause, w && s.id != "")
	enable(s.Delete, w && s.id != "")
	if sc := s.m.doc.Schedule(s.id); sc != nil && sc.Paused {
		s.Pause.SetText("Resume")
		s.Pause.SetIcon(theme.MediaPlayIcon())
	} else {
		s.Pause.SetText("Pause")
		s.Pause.SetIcon(theme.MediaPauseIcon())
	}
	if !w && s.open {
		s.Note.SetText(readOnlyReason(s.m.st))
		s.Note.Show()
	} else {
		s.Note.Hide()
	}
}

func (s *Schedules) core() ScheduleCore { sc, _ := s.m.core.(ScheduleCore); return sc }

func (s *Schedules) save() {
	sc, problem := s.draft()
	core := s.core()
	if problem != "" || !s.m.writeable || core == nil {
		return
	}
	isNew := s.id == ""
	var saved store.Schedule
	s.m.runAsync(func() error {
		var err error
		if isNew {
			saved, _, err = core.AddSchedule(sc)
		} else {
			_, err = core.UpdateSchedule(sc)
			saved = sc
		}
		return err
	}, func(err error) {
		if err != nil {
			s.Message.SetText("Not saved: " + errText(err))
			return
		}
		s.m.doc = s.m.core.Snapshot()
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
	s.m.runAsync(func() error { _, err := core.PauseSchedule(id, paused); return err }, func(err error) {
		if err != nil {
			s.Message.SetText(errText(err))
		}
		s.m.doc = s.m.core.Snapshot()
		s.m.render(nil)
	})
}

func (s *Schedules) delete() {
	core := s.core()
	if s.id == "" || core == nil || !s.m.writeable {
		return
	}
	id := s.id
	s.m.opts.Confirm("Delete schedule?", "Delete this schedule? A run it started goes on to its end.", func(ok bool) {
		if !ok {
			return
		}
		s.m.runAsync(func() error { _, err := core.DeleteSchedule(id); return err }, func(err error) {
			if err != nil {
				s.Message.SetText(errText(err))
				return
			}
			s.m.doc = s.m.core.Snapshot()
			s.close("Deleted.")
			s.m.render(nil)
		})
	})
}
