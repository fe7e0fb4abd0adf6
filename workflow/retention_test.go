package workflow

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"baton/store"
)

var retNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// schedule makes n finished runs of workflow wf, one every period, the newest ending
// at retNow, each costing size bytes; seq rises with time.
func schedule(wf string, n int, period time.Duration, size int64) []Entry {
	out := make([]Entry, n)
	for i := range out {
		out[i] = Entry{ID: fmt.Sprintf("%s-%d", wf, i), Workflow: wf, Seq: uint64(i + 1),
			At: retNow.Add(-time.Duration(n-1-i) * period), Bytes: size}
	}
	return out
}

func dropIDs(v Verdict) []string {
	var ids []string
	for _, e := range v.Drop {
		ids = append(ids, e.ID)
	}
	return ids
}

func idRange(wf string, from, to int) []string {
	var ids []string
	for i := from; i < to; i++ {
		ids = append(ids, fmt.Sprintf("%s-%d", wf, i))
	}
	return ids
}

// TestRetainTable: what is kept is exactly what the policy says.
func TestRetainTable(t *testing.T) {
	day, sec := 24*time.Hour, time.Second
	defaults := Policy{KeepRuns: DefaultKeepRuns, KeepFor: DefaultKeepFor, MaxHomeBytes: DefaultMaxHomeBytes}
	for _, c := range []struct {
		name    string
		entries []Entry
		p       Policy
		drop    []string // oldest first
		byCap   int
	}{
		{"a year of a daily schedule is kept whole", schedule("daily", 365, day, 4096), defaults, nil, 0},
		{"a daily schedule past 1000 runs loses the oldest", schedule("daily", 1003, day, 4096), defaults,
			idRange("daily", 0, 3), 0},
		{"a per-second schedule keeps three days, not more", schedule("sec", 4*86400, sec, 100), defaults,
			idRange("sec", 0, 86400), 0},
		{"newest N keeps old runs of a slow workflow", schedule("w", 10, 30*day, 1),
			Policy{KeepRuns: 4, KeepFor: time.Hour, MaxHomeBytes: 1 << 40}, idRange("w", 0, 6), 0},
		{"younger than D keeps runs past N", schedule("w", 10, time.Minute, 1),
			Policy{KeepRuns: 2, KeepFor: 5*time.Minute + time.Second, MaxHomeBytes: 1 << 40}, idRange("w", 0, 4), 0},
		{"a run exactly D old goes", schedule("w", 3, time.Hour, 1),
			Policy{KeepRuns: 1, KeepFor: 2 * time.Hour, MaxHomeBytes: 1 << 40}, idRange("w", 0, 1), 0},
		{"the size cap drops the oldest first", schedule("w", 10, time.Minute, 100),
			Policy{KeepRuns: 100, KeepFor: day, MaxHomeBytes: 750}, idRange("w", 0, 3), 3},
		{"a workflow's own setting overrides the home's", append(schedule("a", 5, day, 1), schedule("b", 5, day, 1)...),
			Policy{KeepRuns: 100, KeepFor: day, MaxHomeBytes: 1 << 40, workflows: map[string]store.Retention{"b": {KeepRuns: 2}}},
			idRange("b", 0, 3), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Retain(c.entries, c.p, retNow)
			if got := dropIDs(v); !slices.Equal(got, c.drop) {
				t.Errorf("dropped %d %q..., want %d %q...", len(got), head(got), len(c.drop), head(c.drop))
			}
			if v.ByCap != c.byCap || v.ByRule != len(c.drop)-c.byCap {
				t.Errorf("by rule %d, by cap %d; want %d, %d", v.ByRule, v.ByCap, len(c.drop)-c.byCap, c.byCap)
			}
			dropped := map[string]bool{}
			for _, id := range c.drop {
				dropped[id] = true
			}
			var kept int64
			for _, e := range c.entries {
				if !dropped[e.ID] {
					kept += e.Bytes
				}
			}
			if v.KeptBytes != kept {
				t.Errorf("kept bytes %d, want %d", v.KeptBytes, kept)
			}
		})
	}
}

func head(ids []string) []string { return ids[:min(len(ids), 4)] }

// TestRetainNeverDropsActiveRuns: an active run is never dropped, however old, however
// far past N, and whatever the size cap says; the cap drops finished ones around it.
func TestRetainNeverDropsActiveRuns(t *testing.T) {
	es := schedule("w", 10, 24*time.Hour, 1000)
	es[0].Active, es[5].Active = true, true
	v := Retain(es, Policy{KeepRuns: 1, KeepFor: time.Second, MaxHomeBytes: 1}, retNow)
	for _, e := range v.Drop {
		if e.Active {
			t.Errorf("active run %s dropped", e.ID)
		}
	}
	if len(v.Drop) != 8 || v.KeptBytes != 2000 {
		t.Errorf("dropped %q (kept %d bytes), want every finished run, the active ones kept", dropIDs(v), v.KeptBytes)
	}
}

// TestHistoryOfMergesDocumentAndArchive: each run once, the document's copy winning (a
// run archived and still in the document is judged by the document); a run whose status
// is not terminal, or whose id cannot name a file, is never dropped.
func TestHistoryOfMergesDocumentAndArchive(t *testing.T) {
	old := retNow.Add(-365 * 24 * time.Hour)
	d := &store.Doc{Runs: []store.Run{
		{ID: "r1", Workflow: "w", Seq: 1, Status: store.StatusRunning, Created: old},
		{ID: "r2", Workflow: "w", Seq: 2, Status: store.StatusFailed, Created: old, Ended: old.Add(time.Hour)},
	}}
	archived := []store.ArchivedRun{
		{ID: "r1", Workflow: "w", Seq: 1, Status: store.StatusSucceeded, At: old, Bytes: 10},
		{ID: "r0", Workflow: "w", Seq: 0, Status: store.StatusSucceeded, At: old, Bytes: 20},
		{ID: "../x", Workflow: "w", Seq: 3, Status: store.StatusSucceeded, At: old, Bytes: 30},
		{ID: "r4", Workflow: "w", Seq: 4, Status: "weird", At: old, Bytes: 40},
	}
	es := HistoryOf(d, slices.Values(archived), len(archived))
	byID := map[string]Entry{}
	for _, e := range es {
		if _, dup := byID[e.ID]; dup {
			t.Errorf("run %s listed twice", e.ID)
		}
		byID[e.ID] = e
	}
	if len(byID) != 5 || !byID["r1"].Active || byID["r2"].Active || !byID["r2"].At.Equal(old.Add(time.Hour)) ||
		byID["r0"].Active || byID["r0"].Bytes != 20 || !byID["../x"].Active || !byID["r4"].Active {
		t.Errorf("entries %+v", es)
	}
	v := Retain(es, Policy{KeepRuns: 1, KeepFor: time.Second, MaxHomeBytes: 1 << 40}, retNow)
	if got := dropIDs(v); !slices.Equal(got, []string{"r0"}) {
		t.Errorf("dropped %q, want r0 only (r2 is the newest finished run; the others are not provably finished)", got)
	}
}

// TestPolicyOf: the defaults, the home's setting over them, a workflow's over that.
func TestPolicyOf(t *testing.T) {
	d := &store.Doc{Workflows: []store.Workflow{{Name: "a"}, {Name: "b", Retention: &store.Retention{KeepFor: store.Duration(time.Hour)}}}}
	p := PolicyOf(d)
	if n, f := p.Rule("a"); n != DefaultKeepRuns || f != DefaultKeepFor || p.MaxHomeBytes != DefaultMaxHomeBytes {
		t.Errorf("defaults: %d %s %d", n, f, p.MaxHomeBytes)
	}
	d.Retention = &store.Retention{KeepRuns: 7, MaxHomeBytes: 5 << 20}
	p = PolicyOf(d)
	if n, f := p.Rule("a"); n != 7 || f != DefaultKeepFor || p.MaxHomeBytes != 5<<20 {
		t.Errorf("home: %d %s %d", n, f, p.MaxHomeBytes)
	}
	if n, f := p.Rule("b"); n != 7 || f != time.Hour {
		t.Errorf("workflow b: %d %s", n, f)
	}
	if n, f := p.Rule("deleted"); n != 7 || f != DefaultKeepFor {
		t.Errorf("a deleted workflow follows the home: %d %s", n, f)
	}
}
