package workflow

// Cron expressions: what is wrong with one, in plain words, and which rule and zone a
// schedule's expression runs by.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"baton/store"
)

// cronField is one of the five fields of a cron expression, with its bounds and the
// names it accepts (as github.com/robfig/cron's standard parser reads them).
type cronField struct {
	name     string
	min, max int
	names    []string // names[i] stands for min+i
}

var cronFields = [5]cronField{
	{"minute", 0, 59, nil},
	{"hour", 0, 23, nil},
	{"day of month", 1, 31, nil},
	{"month", 1, 12, []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
	{"weekday", 0, 6, []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}},
}

// bounds says which values the field takes: "0–59", "1–12 or jan–dec".
func (f cronField) bounds() string {
	b := fmt.Sprintf("%d–%d", f.min, f.max)
	if f.names != nil {
		b += " or " + f.names[0] + "–" + f.names[len(f.names)-1]
	}
	return b
}

// value reads one value of the field: a number or a name.
func (f cronField) value(s string) (int, bool) {
	for i, n := range f.names {
		if strings.EqualFold(s, n) {
			return f.min + i, true
		}
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}

// problems lists what is wrong with expr as the value of this field, in plain words.
func (f cronField) problems(expr string) []string {
	var out []string
	parts := strings.FieldsFunc(expr, func(r rune) bool { return r == ',' })
	if len(parts) == 0 {
		return []string{fmt.Sprintf("%s is empty; write %s or *", f.name, f.bounds())}
	}
	for _, part := range parts {
		rangeStep := strings.Split(part, "/")
		if len(rangeStep) > 2 {
			out = append(out, fmt.Sprintf("%s %q has more than one /", f.name, part))
			continue
		}
		if len(rangeStep) == 2 {
			if n, err := strconv.Atoi(rangeStep[1]); err != nil || n < 1 {
				out = append(out, fmt.Sprintf("%s step after / must be a whole number of at least 1, got %q", f.name, rangeStep[1]))
			}
		}
		lowHigh := strings.Split(rangeStep[0], "-")
		if lowHigh[0] == "*" || lowHigh[0] == "?" {
			continue
		}
		if len(lowHigh) > 2 {
			out = append(out, fmt.Sprintf("%s %q has more than one -", f.name, part))
			continue
		}
		vals := make([]int, 0, 2)
		for _, t := range lowHigh {
			v, ok := f.value(t)
			if !ok {
				out = append(out, fmt.Sprintf("%s must be %s, got %q", f.name, f.bounds(), part))
				break
			}
			if v < f.min || v > f.max {
				out = append(out, fmt.Sprintf("%s must be %s, got %d", f.name, f.bounds(), v))
				break
			}
			vals = append(vals, v)
		}
		if len(vals) == 2 && vals[0] > vals[1] {
			out = append(out, fmt.Sprintf("%s range %s goes backwards; write the smaller value first", f.name, rangeStep[0]))
		}
	}
	return out
}

// CronProblem says in plain words what is wrong with a cron expression, or "" if nothing
// is: "minute must be 0–59, got 61". It accepts what the scheduler runs: five fields
// (minute hour day-of-month month weekday), the shortcuts @hourly, @daily, @weekly,
// @monthly, @yearly and @every DURATION, and a TZ= or CRON_TZ= prefix.
func CronProblem(spec string) string {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return "is empty; write five fields such as 0 3 * * *"
	}
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		prefix, rest, ok := strings.Cut(spec, " ")
		_, tz, _ := strings.Cut(prefix, "=")
		if _, err := time.LoadLocation(tz); err != nil || tz == "" {
			return fmt.Sprintf("unknown time zone %q in %s", tz, prefix)
		}
		if spec = strings.TrimSpace(rest); !ok || spec == "" {
			return fmt.Sprintf("after %s give the schedule, such as %s 0 3 * * *", prefix, prefix)
		}
	}
	if strings.HasPrefix(spec, "@") {
		if d, text, ok := everyOf(spec); ok {
			if _, err := time.ParseDuration(text); err != nil {
				return fmt.Sprintf("@every needs a duration such as @every 1h30m, got %q", text)
			}
			if msg := everyProblem(d); msg != "" {
				return "@every " + msg + " (the rule of every)"
			}
			return ""
		}
		if _, err := cron.ParseStandard(spec); err == nil {
			return ""
		}
		return fmt.Sprintf("unknown shortcut %q; use @hourly, @daily, @weekly, @monthly, @yearly or @every 1h", spec)
	}
	fields := strings.Fields(spec)
	if len(fields) != len(cronFields) {
		return fmt.Sprintf("needs 5 fields (minute hour day-of-month month weekday), got %d", len(fields))
	}
	var out []string
	for i, f := range fields {
		out = append(out, cronFields[i].problems(f)...)
	}
	if len(out) == 0 {
		if _, err := cron.ParseStandard(spec); err != nil { // a form the checks above let through
			out = append(out, "is not a cron expression Baton understands ("+err.Error()+")")
		}
	}
	return strings.Join(out, "; ")
}

// cronRuleOf compiles the cron expression of s (which CronProblem accepts) in its zone;
// it returns nil for an every-schedule or "@every", which follow their duration.
func cronRuleOf(s *store.Schedule) (*cronRule, error) {
	if s.Cron == "" {
		return nil, nil
	}
	if _, _, ok := everyOf(s.Cron); ok {
		return nil, nil
	}
	if msg := CronProblem(s.Cron); msg != "" {
		return nil, fmt.Errorf("cron %q: %s", s.Cron, msg)
	}
	loc, err := location(scheduleZone(s))
	if err != nil {
		return nil, err
	}
	_, expr, _ := splitZonePrefix(s.Cron)
	return compileCron(expr, loc)
}

// scheduleZone is the zone s runs in: its tz, or the zone its expression's prefix names
// (a document written before prefixes were moved into tz).
func scheduleZone(s *store.Schedule) string {
	if zone, _, ok := splitZonePrefix(s.Cron); ok {
		return zone
	}
	return s.TZ
}

// everyOfSchedule returns the duration of an every-schedule or of a cron "@every".
func everyOfSchedule(s *store.Schedule) (time.Duration, bool) {
	if s.Cron == "" {
		return s.Every.D(), true
	}
	if d, _, ok := everyOf(s.Cron); ok {
		return d, true
	}
	return 0, false
}

func location(tz string) (*time.Location, error) {
	if tz == "" {
		return time.Local, nil
	}
	return time.LoadLocation(tz)
}
