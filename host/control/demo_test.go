package control

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoRequests feeds testdata/demo.jsonl (the example session of host/README.md, "The
// control channel (v1)") through the control channel of a writer: every request is
// answered ok, and the document holds what it asked for.
func TestDemoRequests(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	w := openStarted(t, t.TempDir())
	var out bytes.Buffer
	c := NewControl(w, &out)
	if err := c.Serve(bytes.NewReader(data)); err == nil {
		t.Fatal("Serve should end at end of input")
	}
	replies := 0
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("reply is not JSON: %q", line)
		}
		if m["ok"] != true {
			t.Fatalf("request failed: %s", line)
		}
		replies++
	}
	if want := strings.Count(strings.TrimSpace(string(data)), "\n") + 1; replies != want {
		t.Fatalf("%d replies to %d requests", replies, want)
	}
	d := w.Snapshot()
	if len(d.Workflows) != 2 || len(d.Schedules) != 2 || len(d.Runs) != 1 {
		t.Fatalf("document: %d workflows, %d schedules, %d runs", len(d.Workflows), len(d.Schedules), len(d.Runs))
	}
}
