package view

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"baton/store"
	"baton/workflow"
)

// StepDraft is one step as typed in the editor: text stays text until it is saved.
type StepDraft struct {
	Name, Timeout, Dir, Env string
	Argv                    []string
}

// WorkflowForm is a workflow as typed in the editor. KeepRuns and KeepFor are its own
// retention ("" for the home's default).
type WorkflowForm struct {
	Name, MaxConcurrent, OnOwnerLost string
	KeepRuns, KeepFor                string
	Steps                            []StepDraft
}

// FormOf is the form that shows w: what the editor's fields hold for it. The steps are
// appended to steps (pass the editor's old slice, emptied, to reuse it).
func FormOf(w *store.Workflow, steps []StepDraft) WorkflowForm {
	f := WorkflowForm{Name: w.Name, MaxConcurrent: strconv.Itoa(w.MaxConcurrent), OnOwnerLost: w.OnOwnerLost, Steps: steps}
	if r := w.Retention; r != nil {
		if r.KeepRuns > 0 {
			f.KeepRuns = strconv.Itoa(r.KeepRuns)
		}
		f.KeepFor = DurText(r.KeepFor)
	}
	for _, s := range w.Steps {
		d := StepDraft{Name: s.Name, Dir: s.Dir, Argv: slices.Clone(s.Argv), Env: EnvText(s.Env)}
		d.Timeout = DurText(s.Timeout)
		if len(d.Argv) == 0 {
			d.Argv = []string{""}
		}
		f.Steps = append(f.Steps, d)
	}
	return f
}

// EnvText is an environment as the editor shows it: NAME=value lines, sorted.
func EnvText(env map[string]string) string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, env[k])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Draft returns the definition as typed, and the messages of fields that do not parse,
// keyed by the field's name as the core spells it (max_concurrent, steps[0].timeout,
// steps[0].env, retention.keep_runs).
func (f *WorkflowForm) Draft() (store.Workflow, map[string]string) {
	errs := map[string]string{}
	w := store.Workflow{Name: strings.TrimSpace(f.Name), OnOwnerLost: f.OnOwnerLost}
	if t := strings.TrimSpace(f.MaxConcurrent); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil {
			errs["max_concurrent"] = fmt.Sprintf("must be a whole number such as 1 or 4, not %q", t)
		}
		w.MaxConcurrent = n
	}
	w.Retention = f.retention(errs)
	for i, d := range f.Steps {
		s := store.Step{Name: strings.TrimSpace(d.Name), Dir: strings.TrimSpace(d.Dir), Argv: trimArgv(d.Argv)}
		if t := strings.TrimSpace(d.Timeout); t != "" {
			v, err := ParseDur(t)
			switch {
			case err != nil:
				errs[StepField(i, "timeout")] = fmt.Sprintf("must be a duration such as 30s, 10m or 1h30m, not %q", t)
			case v < 0:
				errs[StepField(i, "timeout")] = "must not be negative"
			}
			s.Timeout = store.Duration(v)
		}
		env, msg := parseEnv(d.Env)
		if msg != "" {
			errs[StepField(i, "env")] = msg
		}
		s.Env = env
		w.Steps = append(w.Steps, s)
	}
	return w, errs
}

// retention is the workflow's own retention as typed: nil when both fields are empty (the
// home's default). Fields that do not parse add their message to errs.
func (f *WorkflowForm) retention(errs map[string]string) *store.Retention {
	var r store.Retention
	if t := strings.TrimSpace(f.KeepRuns); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil {
			errs["retention.keep_runs"] = fmt.Sprintf("must be a whole number such as 100, not %q", t)
		}
		r.KeepRuns = n
	}
	if t := strings.TrimSpace(f.KeepFor); t != "" {
		v, err := ParseDur(t)
		if err != nil {
			errs["retention.keep_for"] = fmt.Sprintf("must be a duration such as 30d or 720h, not %q", t)
		}
		r.KeepFor = store.Duration(v)
	}
	if r == (store.Retention{}) {
		return nil
	}
	return &r
}

// StepField is the name of field f (argv, timeout, env) of step i as the core spells
// it: "steps[0].argv".
func StepField(i int, f string) string { return fmt.Sprintf("steps[%d].%s", i, f) }

// Validate returns the definition as typed and every message, keyed by field: the
// parsing messages of Draft, and every rule of the core (workflow.Normalize) it breaks in
// a field that parses. With doc (a new workflow's), a name another workflow of doc has
// is a problem too (workflow.NameTaken). The editor adds only parsing; the rules are the
// core's, read from its store.FieldErrors.
func (f *WorkflowForm) Validate(doc *store.Doc) (store.Workflow, map[string]string) {
	w, errs := f.Draft()
	c := w.Clone()
	add := func(err error) {
		core, ok := FieldProblems(err)
		if !ok {
			core = map[string]string{"": ErrText(err)}
		}
		for k, msg := range core {
			if _, parsed := errs[k]; !parsed {
				errs[k] = msg
			}
		}
	}
	if err := workflow.Normalize(&c); err != nil {
		add(err)
	}
	if _, bad := errs["name"]; !bad && doc != nil {
		if err := workflow.NameTaken(doc, c.Name); err != nil {
			add(err)
		}
	}
	return w, errs
}

// trimArgv drops empty trailing arguments (the blank field left for typing the next one).
func trimArgv(a []string) []string {
	out := slices.Clone(a)
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func parseEnv(text string) (map[string]string, string) {
	var env map[string]string
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return env, fmt.Sprintf("line %d: write NAME=value, one per line (got %q)", n+1, line)
		}
		if env == nil {
			env = map[string]string{}
		}
		env[strings.TrimSpace(k)] = v
	}
	return env, ""
}

// FieldProblems returns the broken rules an error of the core names, keyed by field as
// the core spells it (two rules of one field are joined), and whether it names any. It
// reads the core's store.FieldErrors (errors.As), never the error's text.
func FieldProblems(err error) (map[string]string, bool) {
	var fe store.FieldErrors
	if !errors.As(err, &fe) || len(fe) == 0 {
		return nil, false
	}
	out := make(map[string]string, len(fe))
	for _, e := range fe {
		if old, ok := out[e.Field]; ok {
			out[e.Field] = old + "; " + e.Message
		} else {
			out[e.Field] = e.Message
		}
	}
	return out, true
}

// FixText says what to do about the problems errs of a form whose fields are has: how
// many are marked beside their fields ("Fix the 2 problems marked below."), and in words
// those the form has no place for. It is "" when errs is empty.
func FixText(errs map[string]string, has func(field string) bool) string {
	marked := 0
	var other []string
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		switch {
		case has(k):
			marked++
		case k == "":
			other = append(other, errs[k])
		default:
			other = append(other, k+": "+errs[k])
		}
	}
	var parts []string
	switch {
	case marked == 1:
		parts = append(parts, "Fix the problem marked below.")
	case marked > 1:
		parts = append(parts, fmt.Sprintf("Fix the %d problems marked below.", marked))
	}
	if len(other) > 0 {
		parts = append(parts, strings.Join(other, "; "))
	}
	return strings.Join(parts, " ")
}

// ProblemsText is a form's message when Save is pressed while it has the problems errs:
// "Not saved. Fix the 2 problems marked below."
func ProblemsText(errs map[string]string, has func(field string) bool) string {
	t := FixText(errs, has)
	if strings.HasPrefix(t, "Fix the ") {
		return "Not saved. " + t
	}
	return "Not saved: " + t
}

// SaveError says where the errors the core returned for a save are shown: each rule
// broken (invalid or conflict) that names a field the form has (has) goes beside that
// field (fields); message is the form's message in every case.
func SaveError(err error, has func(field string) bool) (fields map[string]string, message string) {
	errs, ok := FieldProblems(err)
	if !ok || !(errors.Is(err, workflow.ErrInvalid) || errors.Is(err, workflow.ErrConflict)) {
		return nil, NotSavedText(err)
	}
	fields = make(map[string]string, len(errs))
	for k, msg := range errs {
		if has(k) {
			fields[k] = msg
		}
	}
	return fields, ProblemsText(errs, has)
}

// NotSavedText says that a save failed, and why.
func NotSavedText(err error) string { return "Not saved: " + ErrText(err) }

// SameWorkflow reports whether two definitions are the same: the same JSON, so a
// pointer field (Retention) compares by what it points to.
func SameWorkflow(a, b *store.Workflow) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// EditorControls are which of the editor's controls are enabled, and whether it shows
// why it may not save.
type EditorControls struct {
	Save, Revert, RunNow, Duplicate, Delete, AddStep bool
	// Rename needs a saved workflow without unsaved edits: a rename saves only the name.
	Rename       bool
	ReadOnlyNote bool
}

// EditorControlsFor decides the editor's controls: writable says the window may write;
// open that a workflow or draft is open; dirty that it has unsaved edits; existing is
// the saved workflow open ("" for a new draft). Typing is never disabled, only saving.
func EditorControlsFor(writable, open, dirty bool, existing string) EditorControls {
	return EditorControls{
		Save:         writable && open && (dirty || existing == ""),
		Revert:       dirty && existing != "",
		RunNow:       existing != "", // a read-only window forwards it to the writer
		Duplicate:    existing != "",
		Delete:       writable && existing != "",
		AddStep:      open,
		Rename:       writable && existing != "" && !dirty,
		ReadOnlyNote: !writable && open,
	}
}

// StepMoves says whether step i of n may move up and down.
func StepMoves(i, n int) (up, down bool) { return i > 0, i < n-1 }

// MoveStep swaps step i with the one delta away, if there is one, and reports whether it did.
func MoveStep(steps []StepDraft, i, delta int) bool {
	j := i + delta
	if j < 0 || j >= len(steps) {
		return false
	}
	steps[i], steps[j] = steps[j], steps[i]
	return true
}

// RemoveArg removes argument j; a step keeps one (empty) argument to type into.
func RemoveArg(argv []string, j int) []string {
	argv = slices.Delete(argv, j, j+1)
	if len(argv) == 0 {
		argv = []string{""}
	}
	return argv
}

// EmptyEditorText is the editor's empty state after msg ("" keeps the first text).
func EmptyEditorText(msg string) string {
	return msg + " Choose a workflow on the left, or make a new one (Ctrl+N)."
}

// UnsavedText is a form's message once the person edits what was saved.
const UnsavedText = "Changed, not saved yet."

// SavedText is the editor's message after a save; newer says the person typed since the
// save began (their newer edits stay, unsaved).
func SavedText(newer bool) string {
	if newer {
		return "Saved; your newer changes are not saved yet."
	}
	return "Saved."
}

// Follow is what the editor does with a new snapshot.
type Follow int

// Follow actions.
const (
	FollowKeep   Follow = iota // nothing changed that the editor shows
	FollowClose                // the workflow was deleted and not edited: close with the message
	FollowOrphan               // the workflow was deleted while edited: keep the edit as a new draft, say so
	FollowRebase               // the workflow changed while edited: the edit wins; say so, take the new base
	FollowLoad                 // the workflow changed and was not edited: show the new definition
)

// EditorFollow decides what an editor does with snapshot doc: open says a workflow or a
// draft is open, existing names the saved workflow open ("" for a new draft), base is the
// definition it was opened from and dirty says it was edited since. It returns the
// workflow now saved (for FollowRebase and FollowLoad) and the message to show.
func EditorFollow(doc *store.Doc, open bool, existing string, base *store.Workflow, dirty bool) (Follow, *store.Workflow, string) {
	if !open || existing == "" {
		return FollowKeep, nil, ""
	}
	w := doc.Workflow(existing)
	switch {
	case w == nil && !dirty:
		return FollowClose, nil, fmt.Sprintf("%q was deleted.", existing)
	case w == nil:
		return FollowOrphan, nil, fmt.Sprintf("%q was deleted by the writer; saving adds it back.", existing)
	case SameWorkflow(w, base):
		return FollowKeep, nil, ""
	case dirty:
		return FollowRebase, w, "This workflow changed since you opened it; saving replaces that change with yours."
	}
	return FollowLoad, w, ""
}

// ownerLost are the choices of on_owner_lost, in the order the editor offers them: the
// core's value and what the person reads.
var ownerLost = []struct{ value, label, hint string }{
	{"fail", "Fail",
		"If the window running it crashes, the run's commands are stopped and the run is recorded as failed. Closing the window cancels it (you are asked first)."},
	{"requeue", "Run again",
		"If the window running it crashes, the run's commands are stopped and the run is queued to start again from its first step. Closing the window cancels it (you are asked first)."},
	{"adopt", "Keep running",
		"The run goes on when the window running it closes or crashes; the next window that writes follows it to the end."},
}

// OwnerLostTitle is the label of the on_owner_lost choice in the editor.
const OwnerLostTitle = "When the window running it closes or crashes"

// OwnerLostOptions are the editor's choices for on_owner_lost, in plain words. A value
// the editor does not know (current, from a newer Baton) is offered as it is, so loading
// a workflow never changes its policy behind the person's back.
func OwnerLostOptions(current string) []string {
	out := make([]string, 0, len(ownerLost)+1)
	for _, c := range ownerLost {
		out = append(out, c.label)
	}
	if l := OwnerLostLabel(current); !slices.Contains(out, l) {
		out = append(out, l)
	}
	return out
}

// OwnerLostLabel is the editor's choice that shows on_owner_lost value v: "Keep running"
// for "adopt". An empty value is the core's default, "fail"; an unknown one is shown as
// it is.
func OwnerLostLabel(v string) string {
	if v == "" {
		v = "fail"
	}
	for _, c := range ownerLost {
		if c.value == v {
			return c.label
		}
	}
	return v
}

// OwnerLostValue is the on_owner_lost value of the editor's choice label: "adopt" for
// "Keep running". A label it does not know is taken as the value itself.
func OwnerLostValue(label string) string {
	for _, c := range ownerLost {
		if c.label == label {
			return c.value
		}
	}
	return label
}

// OwnerLostHint says what on_owner_lost value v does, in words ("" for a value the
// editor does not know).
func OwnerLostHint(v string) string {
	if v == "" {
		v = "fail"
	}
	for _, c := range ownerLost {
		if c.value == v {
			return c.hint
		}
	}
	return ""
}

// RenamedTo is the new name of workflow name when snapshot doc shows it renamed since
// snapshot prev: name is gone, and exactly one workflow that prev did not have has its
// definition. It is "" otherwise: name is still there, was deleted, or prev is nil.
func RenamedTo(prev, doc *store.Doc, name string) string {
	if prev == nil || name == "" || doc.Workflow(name) != nil {
		return ""
	}
	old := prev.Workflow(name)
	if old == nil {
		return ""
	}
	found := ""
	for _, w := range doc.Workflows {
		if prev.Workflow(w.Name) != nil {
			continue
		}
		to := w.Name
		w.Name = name
		if SameWorkflow(&w, old) {
			if found != "" {
				return "" // two candidates: no telling which
			}
			found = to
		}
	}
	return found
}

// RenamedText is the editor's message after workflow from was renamed to.
func RenamedText(from string) string {
	return fmt.Sprintf("Renamed from %q; its runs and schedules follow.", from)
}

// NotRenamedText says that a rename failed, and why.
func NotRenamedText(err error) string { return "Not renamed: " + ErrText(err) }

// MaskedEnv is an environment as typed ("NAME=value" lines) with the value of each
// secret-named variable (workflow.IsSecretName) shown as workflow.SecretMask, as the log
// shows it; secret reports whether there was one to mask.
func MaskedEnv(env string) (masked string, secret bool) {
	lines := strings.Split(env, "\n")
	for i, l := range lines {
		if k, v, ok := strings.Cut(l, "="); ok && v != "" && workflow.IsSecretName(strings.TrimSpace(k)) {
			lines[i], secret = k+"="+workflow.SecretMask, true
		}
	}
	return strings.Join(lines, "\n"), secret
}
