package view

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// DurString is a duration as people write it: "1m", "1h30m", "45s", "1.5s", never Go's
// "1m0s". Whole days read as days ("30d", "1d12h"): ParseDur reads every such text back.
func DurString(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	var b strings.Builder
	b.WriteString(sign)
	if days := d / (24 * time.Hour); days > 0 {
		fmt.Fprintf(&b, "%dd", days)
		d -= days * 24 * time.Hour
	}
	if h := d / time.Hour; h > 0 {
		fmt.Fprintf(&b, "%dh", h)
		d -= h * time.Hour
	}
	if m := d / time.Minute; m > 0 {
		fmt.Fprintf(&b, "%dm", m)
		d -= m * time.Minute
	}
	if d > 0 {
		// Go writes what is left below a minute exactly ("45s", "1.5s", "300ms").
		b.WriteString(d.String())
	}
	return b.String()
}

// ParseDur reads a duration as DurString writes it or as Go does: "30d", "1d12h", "1h30m",
// "45s". A day is 24 hours.
func ParseDur(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	days, rest := time.Duration(0), s
	if i := strings.IndexByte(s, 'd'); i > 0 {
		n, err := strconv.ParseUint(s[:i], 10, 31)
		if err != nil {
			return 0, fmt.Errorf("not a duration: %q", s)
		}
		days, rest = time.Duration(n)*24*time.Hour, s[i+1:]
	}
	if rest == "" {
		return days, nil
	}
	v, err := time.ParseDuration(rest)
	if err != nil || (days > 0 && v < 0) {
		return 0, fmt.Errorf("not a duration: %q", s)
	}
	return days + v, nil
}
