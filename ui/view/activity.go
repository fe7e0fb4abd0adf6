package view

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"baton/store"
	"baton/workflow"
)

// Activity is one line of the Activity tab.
type Activity struct {
	When string // Stamp of the entry's time
	What string // Describe of the entry
	Open bool   // shown in full, not cut to one line
}

// FindActivity returns the index of the line that reads as a does, or -1.
func FindActivity(as []Activity, a Activity) int {
	for i, b := range as {
		if b.When == a.When && b.What == a.What {
			return i
		}
	}
	return -1
}

// AppendActivity appends the audit entries es (oldest first, as the core's Audit returns
// them) to dst newest first, and returns dst.
func AppendActivity(dst []Activity, es []store.Entry, now time.Time) []Activity {
	for i := len(es) - 1; i >= 0; i-- {
		dst = append(dst, Activity{When: Stamp(es[i].Time, now), What: Describe(es[i])})
	}
	return dst
}

// Describe says what an audit entry records, in words. The takeover and reap records are
// read typed (store.Entry.Decode); the others from the entry's data, whose other details
// are listed after the sentence, so an older or newer entry still shows everything.
func Describe(e store.Entry) string {
	d := e.Data
	who := fmt.Sprintf("Window pid %d", e.PID)
	switch e.Kind {
	case store.KindTakeover:
		var tk store.Takeover
		if e.Decode(&tk) != nil {
			break
		}
		s := who + " became the writer"
		if tk.OldOwner != nil {
			s += fmt.Sprintf(", taking over from pid %d", tk.OldOwner.PID)
		}
		reaped, recorded := 0, 0
		for _, r := range tk.Reaped {
			if r.Action == workflow.ActionRecorded {
				recorded++
			} else {
				reaped++
			}
		}
		if reaped > 0 {
			s += "; it reaped " + Plural(reaped, "run", "runs") + " the old writer left running"
		}
		if recorded > 0 {
			s += "; it recorded " + Plural(recorded, "run", "runs") + " that finished while no window followed " + pick(recorded, "it", "them")
		}
		if ids := runIDs(d["adopted"]); len(ids) > 0 {
			s += "; it adopted " + Plural(len(ids), "run", "runs") + " still going (" + strings.Join(ids, ", ") + ")"
		}
		return s + fmt.Sprintf(" (in %v ms)", tk.TookMS)
	case store.KindReap:
		var r store.Reap
		if e.Decode(&r) != nil {
			break
		}
		switch r.Action {
		case workflow.ActionAdopted:
			return fmt.Sprintf("Run %s of %s was adopted from window pid %d, which closed or died; it keeps running", r.Run, r.Workflow, r.OwnerPID)
		case workflow.ActionRecorded:
			s := fmt.Sprintf("Run %s of %s finished while no window followed it; recorded from its journal", r.Run, r.Workflow)
			if st, ok := d["status"].(string); ok && st != "" {
				if msg, ok := d["error"].(string); ok && msg != "" {
					st += ": " + ErrorText(msg)
				}
				s += " (" + st + ")"
			}
			return s
		case workflow.ActionFailed, workflow.ActionRequeued, "":
			act := "failed"
			if r.Action == workflow.ActionRequeued {
				act = "was queued again"
			}
			return fmt.Sprintf("Run %s of %s %s: its window pid %d had died (%s)", r.Run, r.Workflow, act, r.OwnerPID, r.Evidence)
		}
		return fmt.Sprintf("Run %s of %s: %s, as its window pid %d had died (%s)", r.Run, r.Workflow, r.Action, r.OwnerPID, r.Evidence)
	case store.KindReclaim:
		return fmt.Sprintf("Schedule %v: its run lock was reclaimed from dead window pid %v", d["schedule"], num(d["owner_pid"])) + rest(d, "schedule", "owner_pid")
	case store.KindOverrun:
		s := fmt.Sprintf("Run %v", d["run"])
		if wf, ok := d["workflow"]; ok {
			s += fmt.Sprintf(" of %v", wf)
		}
		return s + " ran past its time budget" + rest(d, "run", "workflow")
	case store.KindSkipped:
		return fmt.Sprintf("Schedule %v skipped an occurrence because a run was still going", d["schedule"]) + rest(d, "schedule")
	case store.KindQueued:
		return fmt.Sprintf("Schedule %v queued an occurrence behind a running run", d["schedule"]) + rest(d, "schedule")
	case store.KindReplace:
		return fmt.Sprintf("Schedule %v replaced its live run with a new occurrence", d["schedule"]) + rest(d, "schedule")
	case store.KindRetention:
		var r store.RetentionPass
		if e.Decode(&r) != nil {
			break
		}
		return retention(r)
	case store.KindCatchUp:
		return fmt.Sprintf("Schedule %v caught up on missed occurrences", d["schedule"]) + rest(d, "schedule")
	case "cancel": // no version of Baton writes it; kept as the Activity tab always read it
		return fmt.Sprintf("Run %v was cancelled", d["run"]) + rest(d, "run")
	case store.KindWorkflowChange:
		var c store.WorkflowChange
		if e.Decode(&c) != nil {
			break
		}
		return workflowChange(c)
	case store.KindScheduleChange:
		var c store.ScheduleChange
		if e.Decode(&c) != nil {
			break
		}
		return scheduleChange(c)
	case store.KindShutdown:
		return who + " closed and stopped writing"
	case "handover": // read from the data: the record is newer than this tab
		s := fmt.Sprintf("Window pid %v handed writing over to window pid %v, which asked for it", num(pidOf(d["from"], e.PID)), num(pidOf(d["to"], "?")))
		if ids := runIDs(d["runs"]); len(ids) > 0 {
			s += fmt.Sprintf("; %s going for it to adopt (%s)", Plural(len(ids), "run was left", "runs were left"), strings.Join(ids, ", "))
		}
		return s + rest(d, "from", "to", "runs", "epoch")
	}
	return fmt.Sprintf("%s: %s", e.Kind, who) + rest(d)
}

// retention says what a retention pass removed, and why.
func retention(r store.RetentionPass) string {
	s := "Retention removed " + Plural(r.LogsRemoved, "run log", "run logs")
	if r.LogBytes > 0 {
		s += " (" + SizeText(r.LogBytes) + ")"
	}
	if r.ArchivedRemoved > 0 {
		s += " and " + Plural(r.ArchivedRemoved, "archived run", "archived runs")
	}
	var why []string
	if r.ByRule > 0 {
		why = append(why, fmt.Sprintf("%d by the workflows' keep rules", r.ByRule))
	}
	if r.ByCap > 0 {
		why = append(why, fmt.Sprintf("%d by the home's size cap", r.ByCap))
	}
	if len(why) > 0 {
		s += ": " + strings.Join(why, ", ")
	}
	if r.Pending > 0 {
		s += "; " + Plural(r.Pending, "run is", "runs are") + " left for the next pass"
	}
	return s + fmt.Sprintf(" (history kept: %s)", SizeText(r.KeptBytes))
}

// SizeText is a size on disk for people: 512 B, 3.4 KB, 12 MB, 1.1 GB (powers of 1024).
func SizeText(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, suffix := float64(n)/unit, "KB"
	for _, next := range []string{"MB", "GB", "TB"} {
		if f < unit {
			break
		}
		f, suffix = f/unit, next
	}
	if f < 10 {
		return fmt.Sprintf("%.1f %s", f, suffix)
	}
	return fmt.Sprintf("%.0f %s", f, suffix)
}

// changeWords says what a person's change did, for the Activity tab.
var changeWords = map[string]string{store.ChangeCreated: "created", store.ChangeUpdated: "changed",
	store.ChangeDeleted: "deleted", store.ChangePaused: "paused", store.ChangeResumed: "resumed"}

// workflowChange says what a person did to a workflow.
func workflowChange(c store.WorkflowChange) string {
	if c.Action == store.ChangeRenamed {
		return fmt.Sprintf("Workflow %q was renamed to %q", c.From, c.Workflow)
	}
	if w, ok := changeWords[c.Action]; ok {
		return fmt.Sprintf("Workflow %q was %s", c.Workflow, w)
	}
	return fmt.Sprintf("Workflow %q: %s", c.Workflow, c.Action)
}

// scheduleChange says what a person did to a schedule, and when an added or changed one
// runs.
func scheduleChange(c store.ScheduleChange) string {
	s := "Schedule " + c.Schedule
	if c.Workflow != "" {
		s += fmt.Sprintf(" of %q", c.Workflow)
	}
	w, ok := changeWords[c.Action]
	if c.Action == store.ChangeCreated {
		w = "added"
	}
	if !ok {
		return s + ": " + c.Action
	}
	s += " was " + w
	switch {
	case c.Every > 0:
		s += ": every " + DurString(c.Every.D())
	case c.Cron != "":
		s += ": cron " + c.Cron
	}
	return s
}

// runIDs reads a list of runs from an entry's data: run ids, or records with a "run".
func runIDs(v any) []string {
	l, _ := v.([]any)
	var ids []string
	for _, x := range l {
		switch x := x.(type) {
		case string:
			ids = append(ids, x)
		case map[string]any:
			if id, ok := x["run"].(string); ok {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// pidOf reads the pid of an owner in an entry's data, or def when there is none.
func pidOf(v any, def any) any {
	if o, ok := v.(map[string]any); ok {
		if p, ok := o["pid"]; ok {
			return p
		}
	}
	return def
}

// rest lists the entry's other details as "; key value" pairs, in a stable order.
func rest(d map[string]any, skip ...string) string {
	var keys []string
	for k := range d {
		if !contains(skip, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "; %s %v", strings.ReplaceAll(k, "_", " "), num(d[k]))
	}
	return b.String()
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// num prints JSON numbers (float64) without a fraction when they are whole.
func num(v any) any {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return int64(f)
	}
	return v
}
