package store

import (
	"errors"
	"slices"
	"testing"
)

// TestWorkflowValidateNamesEveryField: a definition's validation says everything wrong
// with it, each problem naming its field, and the document's validation still wraps
// ErrInvalid around them.
func TestWorkflowValidateNamesEveryField(t *testing.T) {
	w := Workflow{Name: "", MaxConcurrent: 0, OnOwnerLost: "explode", Steps: []Step{{Argv: []string{"true"}}, {}, {Argv: []string{""}}}}
	err := w.Validate()
	var fe FieldErrors
	if !errors.As(err, &fe) {
		t.Fatalf("Validate() = %v, want FieldErrors", err)
	}
	var fields []string
	for _, e := range fe {
		fields = append(fields, e.Field)
	}
	if want := []string{"name", "max_concurrent", "on_owner_lost", "steps[1].argv", "steps[2].argv"}; !slices.Equal(fields, want) {
		t.Errorf("fields %q, want %q", fields, want)
	}
	if got, want := fe.Error(), `name: must not be empty; max_concurrent: must be at least 1, got 0; on_owner_lost: must be "fail", "requeue" or "adopt", got "explode"; steps[1].argv: must name a program (argv is empty); steps[2].argv: must name a program (argv is empty)`; got != want {
		t.Errorf("message:\n got %s\nwant %s", got, want)
	}
	if err := (&Workflow{Name: "n", MaxConcurrent: 1, OnOwnerLost: "fail"}).Validate(); !errors.As(err, &fe) || len(fe) != 1 || fe[0].Field != "steps" {
		t.Errorf("no steps: %v", err)
	}
	ok := Workflow{Name: "n", MaxConcurrent: 1, OnOwnerLost: "fail", Steps: []Step{{Argv: []string{"true"}}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("a valid workflow: %v", err)
	}
	d := &Doc{Schema: SchemaVersion, Workflows: []Workflow{ok, w}}
	err = d.Validate()
	if !errors.Is(err, ErrInvalid) || !errors.As(err, &fe) || len(fe) != 5 {
		t.Errorf("Doc.Validate() = %v, want ErrInvalid around the FieldErrors", err)
	}
	if errors.Is(FieldErrors{{Field: "name", Message: "x"}}, ErrInvalid) {
		t.Error("FieldErrors alone matches ErrInvalid: a conflict wrapping it would read as invalid")
	}
}

func TestSameName(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{{"backup", "backup", true}, {"Backup ", "backup", true}, {" BACKUP", "backup\t", true}, {"back up", "backup", false}, {"backup2", "backup", false}} {
		if got := SameName(c.a, c.b); got != c.same {
			t.Errorf("SameName(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
