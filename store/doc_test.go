package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestRetentionValidate: a retention setting that cannot mean anything is refused with
// the field named, at the workflow level and the home level; a home-wide cap on a workflow
// is refused; zero fields (the defaults) and nil pass.
func TestRetentionValidate(t *testing.T) {
	ok := Workflow{Name: "n", MaxConcurrent: 1, OnOwnerLost: "fail", Steps: []Step{{Argv: []string{"true"}}}}
	for _, c := range []struct {
		name string
		r    *Retention
		home bool
		want string // "" = valid
	}{
		{"nil", nil, false, ""},
		{"defaults", &Retention{}, false, ""},
		{"workflow", &Retention{KeepRuns: 10, KeepFor: Duration(time.Hour)}, false, ""},
		{"home", &Retention{KeepRuns: 10, MaxHomeBytes: 1 << 30}, true, ""},
		{"negative runs", &Retention{KeepRuns: -1}, false, "retention.keep_runs: must be at least 1 (or 0 for the default), got -1"},
		{"negative age", &Retention{KeepFor: Duration(-time.Hour)}, true, "retention.keep_for: must not be negative, got -1h0m0s"},
		{"cap on a workflow", &Retention{MaxHomeBytes: 1 << 30}, false, "retention.max_home_bytes: is a setting of the whole home, not of one workflow"},
		{"tiny cap", &Retention{MaxHomeBytes: 1000}, true, "retention.max_home_bytes: must be at least 1048576 (1 MiB, or 0 for the default), got 1000"},
		{"negative cap", &Retention{MaxHomeBytes: -5}, true, "retention.max_home_bytes: must be at least 1048576 (1 MiB, or 0 for the default), got -5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			if c.home {
				d := &Doc{Schema: SchemaVersion, Retention: c.r}
				err = d.Validate()
				if c.want != "" && !errors.Is(err, ErrInvalid) {
					t.Errorf("Doc.Validate() = %v, want ErrInvalid", err)
				}
			} else {
				w := ok
				w.Retention = c.r
				err = w.Validate()
			}
			got := ""
			if err != nil {
				var fe FieldErrors
				if !errors.As(err, &fe) || len(fe) != 1 {
					t.Fatalf("error %v is not one FieldError", err)
				}
				got = fe[0].Error()
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestDecodeRefusesBadRetention: a hand-edited workflows.json cannot smuggle in a
// retention the app would refuse.
func TestDecodeRefusesBadRetention(t *testing.T) {
	base := `{"schema":1,"generation":1,"epoch":1,"seq":0,"runs":[],"schedules":[],`
	wf := `{"name":"w","max_concurrent":1,"on_owner_lost":"fail","steps":[{"argv":["true"]}],"retention":%s}`
	if _, err := Decode([]byte(base + `"workflows":[` + fmt.Sprintf(wf, `{"keep_runs":5,"keep_for":"1h"}`) + `],"retention":{"max_home_bytes":2097152}}`)); err != nil {
		t.Fatalf("a good retention is refused: %v", err)
	}
	for _, bad := range []string{
		base + `"workflows":[` + fmt.Sprintf(wf, `{"max_home_bytes":2097152}`) + `]}`,
		base + `"workflows":[` + fmt.Sprintf(wf, `{"keep_runs":-3}`) + `]}`,
		base + `"workflows":[],"retention":{"keep_runs":-1}}`,
		base + `"workflows":[],"retention":{"keep_for":"-1h"}}`,
	} {
		if _, err := Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), "retention.") && !strings.Contains(err.Error(), "negative") {
			t.Errorf("Decode(%s) = %v, want a retention error", bad, err)
		}
	}
}
