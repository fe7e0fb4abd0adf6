package view

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"baton/store"
	"baton/workflow"
)

// StepDraft is one step as typed in the editor: text stays text until it is saved.
type StepDraft struct {
	Name, Timeout, Dir, Env string
	Argv                    []string
}

// WorkflowForm is a workflow as typed in the editor.
type WorkflowForm struct {
	Name, MaxConcurrent, OnOwnerLost string
	Steps                            []StepDraft
}

// FormOf is the form that shows w: what the editor's fields hold for it. The steps are
// appended to steps (pass the editor's old slice, emptied, to reuse it).
func FormOf(w *store.Workflow, steps []StepDraft) WorkflowForm {
	f := WorkflowForm{Name: w.Name, MaxConcurrent: strconv.Itoa(w.MaxConcurrent), OnOwnerLost: w.OnOwnerLost, Steps: steps}
	for _, s := range w.Steps {
		d := StepDraft{Name: s.Name, Dir: s.Dir, Argv: slices.Clone(s.Argv), Env: EnvText(s.Env)}
		if s.Timeout > 0 {
			d.Timeout = s.Timeout.D().String()
		}
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
// steps[0].env).
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
	for i, d := range f.Steps {
		s := store.Step{Name: strings.TrimSpace(d.Name), Dir: strings.TrimSpace(d.Dir), Argv: trimArgv(d.Argv)}
		if t := strings.TrimSpace(d.Timeout); t != "" {
			v, err := time.ParseDuration(t)
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

// StepField is the name of field f (argv, timeout, env) of step i as the core spells
// it: "steps[0].argv".
func StepField(i int, f string) string { return fmt.Sprintf("steps[%d].%s", i, f) }

// Validate returns the definition as typed and every message, keyed by field: the
// parsing messages of Draft, else the first rule of the core (workflow.Normalize) it
// breaks. The editor adds only parsing; the rules are the core's.
func (f *WorkflowForm) Validate() (store.Workflow, map[string]string) {
	w, errs := f.Draft()
	if len(errs) == 0 {
		c := w.Clone()
		if err := workflow.Normalize(&c); err != nil {
			k, msg := FieldOf(err)
			errs[k] = msg
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

var fieldRE = regexp.MustCompile(`(name|max_concurrent|on_owner_lost|steps\[\d+\]\.argv|steps): (.*)$`)

// FieldOf finds the field an error of the core names and the message for it; the field
// is "" when the error names none.
func FieldOf(err error) (string, string) {
	s := err.Error()
	if errors.Is(err, workflow.ErrConflict) && strings.Contains(s, "already exists") {
		return "name", "another workflow already has this name"
	}
	if m := fieldRE.FindStringSubmatch(s); m != nil {
		return m[1], m[2]
	}
	return "", s
}

// SaveError says where an error the core returned for a save is shown: a rule broken
// (invalid or conflict) that names a field the editor has (has) goes next to that field
// (field, fieldMsg); message is the editor's message in every case.
func SaveError(err error, has func(field string) bool) (field, fieldMsg, message string) {
	k, msg := FieldOf(err)
	if has(k) && (errors.Is(err, workflow.ErrInvalid) || errors.Is(err, workflow.ErrConflict)) {
		return k, msg, "Not saved: " + msg
	}
	return "", "", NotSavedText(err)
}

// NotSavedText says that a save failed, and why.
func NotSavedText(err error) string { return "Not saved: " + ErrText(err) }

// SameWorkflow reports whether two definitions are the same.
func SameWorkflow(a, b *store.Workflow) bool {
	return fmt.Sprintf("%+v", *a) == fmt.Sprintf("%+v", *b)
}

// EditorControls are which of the editor's controls are enabled, and whether it shows
// why it may not save.
type EditorControls struct {
	Save, Revert, RunNow, Duplicate, Delete, AddStep bool
	ReadOnlyNote                                     bool
}

// EditorControlsFor decides the editor's controls: writable says the window may write;
// open that a workflow or draft is open; dirty that it has unsaved edits; existing is
// the saved workflow open ("" for a new draft). Typing is never disabled, only saving.
func EditorControlsFor(writable, open, dirty bool, existing string) EditorControls {
	return EditorControls{
		Save:         writable && open && (dirty || existing == ""),
		Revert:       dirty && existing != "",
		RunNow:       writable && existing != "",
		Duplicate:    existing != "",
		Delete:       writable && existing != "",
		AddStep:      open,
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
