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
}

// AppendActivity appends the audit entries es (oldest first, as the core's Audit returns
// them) to dst newest first, and returns dst.
func AppendActivity(dst []Activity, es []store.Entry, now time.Time) []Activity {
	for i := len(es) - 1; i >= 0; i-- {
		dst = append(dst, Activity{When: Stamp(es[i].Time, now), What: Describe(es[i])})
	}
	return dst
}

// Describe says what an audit entry records, in words.
func Describe(e store.Entry) string {
	d := e.Data
	who := fmt.Sprintf("Window pid %d", e.PID)
	switch e.Kind {
	case "takeover":
		s := who + " became the writer"
		if o, ok := d["old_owner"].(map[string]any); ok {
			s += fmt.Sprintf(", taking over from pid %v", num(o["pid"]))
		}
		if n := count(d["reaped"]); n > 0 {
			s += "; it reaped " + Plural(n, "run", "runs") + " the old writer left running"
		}
		return s + fmt.Sprintf(" (epoch %v, %v ms)", num(d["epoch"]), d["took_ms"])
	case "reap":
		act := "failed"
		if a, _ := d["action"].(string); a == workflow.ActionRequeued {
			act = "queued again"
		}
		return fmt.Sprintf("Run %v of %v was %s: its window pid %v had died (%v)", d["run"], d["workflow"], act, num(d["owner_pid"]), d["evidence"])
	case "reclaim":
		return fmt.Sprintf("Schedule %v: its run lock was reclaimed from dead window pid %v", d["schedule"], num(d["owner_pid"])) + rest(d, "schedule", "owner_pid")
	case "overrun":
		return fmt.Sprintf("Run %v of %v ran past its time budget", d["run"], d["workflow"]) + rest(d, "run", "workflow")
	case "skipped":
		return fmt.Sprintf("Schedule %v skipped an occurrence because a run was still going", d["schedule"]) + rest(d, "schedule")
	case "queued":
		return fmt.Sprintf("Schedule %v queued an occurrence behind a running run", d["schedule"]) + rest(d, "schedule")
	case "catch_up":
		return fmt.Sprintf("Schedule %v caught up on missed occurrences", d["schedule"]) + rest(d, "schedule")
	case "cancel":
		return fmt.Sprintf("Run %v was cancelled", d["run"]) + rest(d, "run")
	case "shutdown":
		return who + " closed and stopped writing"
	}
	return fmt.Sprintf("%s: %s", e.Kind, who) + rest(d)
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

func count(v any) int {
	if a, ok := v.([]any); ok {
		return len(a)
	}
	return 0
}
