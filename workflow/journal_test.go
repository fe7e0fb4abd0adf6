package workflow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"baton/store"
)

// Journal folding, on files written by hand: what a crash can leave is read, anything
// else malformed is refused naming the file and line.

const (
	jStart     = `{"type":"start","at":"2025-01-01T00:00:00Z","pid":10,"start":99,"boot":"b"}` + "\n"
	jStep0     = `{"type":"step_start","at":"2025-01-01T00:00:01Z","step":0,"pid":11,"pgid":11,"start":100}` + "\n"
	jStep0End  = `{"type":"step_end","at":"2025-01-01T00:00:02Z","step":0,"exit":0,"error":""}` + "\n"
	jStep1     = `{"type":"step_start","at":"2025-01-01T00:00:03Z","step":1,"pid":12,"pgid":12,"start":101}` + "\n"
	jStep1Kill = `{"type":"step_end","at":"2025-01-01T00:00:04Z","step":1,"exit":null,"error":"killed"}` + "\n"
	jEndFailed = `{"type":"end","at":"2025-01-01T00:00:05Z","status":"failed","error":"killed","exit":0}` + "\n"
)

func writeJournal(t *testing.T, content string) (home, id string) {
	t.Helper()
	home, id = t.TempDir(), "r1-test"
	if err := os.MkdirAll(filepath.Join(home, "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(journalPath(home, id), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, id
}

// TestReadJournalFolds: a whole journal folds into the run's story.
func TestReadJournalFolds(t *testing.T) {
	home, id := writeJournal(t, jStart+jStep0+jStep0End+jStep1+jStep1Kill+jEndFailed)
	j, err := ReadJournal(home, id)
	if err != nil {
		t.Fatal(err)
	}
	if j.SupervisorPID != 10 || j.SupervisorStart != 99 || j.Boot != "b" || !j.Ended || j.Torn ||
		j.Status != store.StatusFailed || j.Error != "killed" || j.Exit == nil || *j.Exit != 0 || len(j.Steps) != 2 {
		t.Fatalf("folded %+v", j)
	}
	s0, s1 := j.Steps[0], j.Steps[1]
	if s0.PID != 11 || s0.PGID != 11 || s0.Start != 100 || !s0.Ended || s0.Exit == nil || *s0.Exit != 0 {
		t.Errorf("step 0: %+v", s0)
	}
	if s1.PID != 12 || !s1.Ended || s1.Exit != nil || s1.Error != "killed" {
		t.Errorf("step 1: %+v", s1)
	}
}

// TestReadJournalIgnoresTornLastLine: a last line without its newline (a crash in the
// middle of an append) is ignored, whether it parses or not; what came before stands.
func TestReadJournalIgnoresTornLastLine(t *testing.T) {
	for name, tail := range map[string]string{
		"cut in the middle":   `{"type":"step_end","at":"2025-01-01T00:00:02Z","st`,
		"cut before newline":  strings.TrimSuffix(jStep0End, "\n"),
		"zeros from the disk": "\x00\x00\x00\x00",
	} {
		t.Run(name, func(t *testing.T) {
			home, id := writeJournal(t, jStart+jStep0+tail)
			j, err := ReadJournal(home, id)
			if err != nil {
				t.Fatalf("torn tail refused: %v", err)
			}
			if !j.Torn || j.Ended || len(j.Steps) != 1 || j.Steps[0].Ended || j.Steps[0].PID != 11 {
				t.Fatalf("folded %+v; want step 0 started, not ended, tail torn", j)
			}
		})
	}
}

// TestReadJournalRefusesBadLines: a bad complete line is an ErrJournal naming the file and
// its line number.
func TestReadJournalRefusesBadLines(t *testing.T) {
	for _, c := range []struct {
		name, content, line, why string
	}{
		{"garbage in the middle", jStart + "not json\n" + jStep0, "line 2", "invalid character"},
		{"no start record", jStep0, "line 1", "before the start record"},
		{"two starts", jStart + jStart, "line 2", "second start"},
		{"step skipped", jStart + jStep1, "line 2", "out of order"},
		{"step end of another step", jStart + jStep0 + strings.Replace(jStep0End, `"step":0`, `"step":1`, 1), "line 3", "does not match"},
		{"end while a step runs", jStart + jStep0 + jEndFailed, "line 3", "has not ended"},
		{"record after the end", jStart + jEndFailed + jStep0, "line 3", "after the end"},
		{"unknown status", jStart + strings.Replace(jEndFailed, "failed", "exploded", 1), "line 2", "unknown status"},
		{"unknown type", jStart + `{"type":"nap"}` + "\n", "line 2", "unknown record type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			home, id := writeJournal(t, c.content)
			_, err := ReadJournal(home, id)
			if !errors.Is(err, ErrJournal) || !strings.Contains(err.Error(), journalPath(home, id)+" "+c.line+":") ||
				!strings.Contains(err.Error(), c.why) {
				t.Fatalf("error %v; want ErrJournal naming the file, %s and %q", err, c.line, c.why)
			}
		})
	}
}

// TestReadJournalMissing: no journal is fs.ErrNotExist, not an empty run.
func TestReadJournalMissing(t *testing.T) {
	if _, err := ReadJournal(t.TempDir(), "r1-none"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing journal: %v, want ErrNotExist", err)
	}
}
