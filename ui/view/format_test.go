package view

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"baton/host"
	"baton/store"
)

// at is a local time on 4 May 2026, so that Clock and Stamp format it as local hours.
func at(h, m, s int) time.Time { return time.Date(2026, 5, 4, h, m, s, 0, time.Local) }

func TestHuman(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ms"},
		{41 * time.Millisecond, "41 ms"},
		{999 * time.Millisecond, "999 ms"},
		{time.Second, "1.0 s"},
		{3200 * time.Millisecond, "3.2 s"},
		{9500 * time.Millisecond, "9.5 s"},
		{10 * time.Second, "10 s"},
		{59 * time.Second, "59 s"},
		{time.Minute, "1 min 00 s"},
		{4*time.Minute + 5*time.Second, "4 min 05 s"},
		{time.Hour, "1 h 00 min"},
		{2*time.Hour + 10*time.Minute + 59*time.Second, "2 h 10 min"},
	} {
		if got := Human(c.d); got != c.want {
			t.Errorf("Human(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestRunDuration(t *testing.T) {
	now := at(12, 0, 0)
	for _, c := range []struct {
		name string
		r    store.Run
		want time.Duration
	}{
		{"queued, never started", store.Run{Created: at(11, 0, 0)}, 0},
		{"running: so far", store.Run{Started: at(11, 59, 0)}, time.Minute},
		{"ended", store.Run{Started: at(10, 0, 0), Ended: at(10, 0, 30)}, 30 * time.Second},
		{"clock went back: never negative", store.Run{Started: at(12, 0, 5)}, 0},
	} {
		if got := RunDuration(&c.r, now); got != c.want {
			t.Errorf("%s: RunDuration = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestStepTextAndProgress(t *testing.T) {
	for _, c := range []struct {
		status      string
		step, steps int
		text        string
		progress    float64
	}{
		{store.StatusQueued, 0, 0, "", 0},
		{store.StatusRunning, 1, 0, "", 0},
		{store.StatusQueued, 0, 4, "waiting", 0},
		{store.StatusRunning, 1, 4, "step 2 of 4", 0.25},
		{store.StatusSucceeded, 3, 4, "done, 4 steps", 1},
		{store.StatusSucceeded, 0, 1, "done, 1 step", 1},
		{store.StatusFailed, 2, 4, "failed at step 3 of 4", 0.5},
		{store.StatusCancelled, 0, 2, "cancelled at step 1 of 2", 0},
	} {
		r := store.Run{Status: c.status, Step: c.step, Steps: c.steps}
		if got := StepText(&r); got != c.text {
			t.Errorf("StepText(%s, step %d of %d) = %q, want %q", c.status, c.step, c.steps, got, c.text)
		}
		if got := Progress(&r); got != c.progress {
			t.Errorf("Progress(%s, step %d of %d) = %v, want %v", c.status, c.step, c.steps, got, c.progress)
		}
	}
}

func TestOwnerText(t *testing.T) {
	for _, c := range []struct {
		pid, self int
		want      string
	}{
		{0, 10, ""},
		{10, 10, "pid 10 (this window)"},
		{11, 10, "pid 11"},
	} {
		if got := OwnerText(&store.Run{OwnerPID: c.pid}, c.self); got != c.want {
			t.Errorf("OwnerText(pid %d, self %d) = %q, want %q", c.pid, c.self, got, c.want)
		}
	}
}

func TestClockAndStamp(t *testing.T) {
	now := at(23, 0, 0)
	for _, c := range []struct {
		t            time.Time
		clock, stamp string
	}{
		{at(14, 2, 9), "14:02", "14:02:09"},
		{at(0, 0, 0), "00:00", "00:00:00"},
		{at(14, 2, 9).AddDate(0, 0, -1), "3 May 14:02", "3 May 14:02:09"},
		{at(14, 2, 9).AddDate(-1, 0, 0), "4 May 14:02", "4 May 14:02:09"}, // same day of another year
	} {
		if got := Clock(c.t, now); got != c.clock {
			t.Errorf("Clock(%v) = %q, want %q", c.t, got, c.clock)
		}
		if got := Stamp(c.t, now); got != c.stamp {
			t.Errorf("Stamp(%v) = %q, want %q", c.t, got, c.stamp)
		}
	}
}

func TestContainsFold(t *testing.T) {
	for _, c := range []struct {
		s, sub string
		want   bool
	}{
		{"Backup photos", "", true},
		{"Backup photos", "PHOTO", true},
		{"Backup photos", "backup", true},
		{"Backup photos", "photos!", false},
		{"Sauvegarde été", "ÉTÉ", true},
		{"été", "x", false},
		{"", "a", false},
	} {
		if got := ContainsFold(c.s, c.sub); got != c.want {
			t.Errorf("ContainsFold(%q, %q) = %v, want %v", c.s, c.sub, got, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 runs"}, {1, "1 run"}, {2, "2 runs"}} {
		if got := Plural(c.n, "run", "runs"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestStatusTone(t *testing.T) {
	for status, want := range map[string]Tone{
		store.StatusSucceeded: ToneSuccess, store.StatusFailed: ToneError, store.StatusRunning: TonePrimary,
		store.StatusCancelled: ToneWarning, store.StatusQueued: ToneDisabled, "something new": ToneDisabled,
	} {
		if got := StatusTone(status); got != want {
			t.Errorf("StatusTone(%q) = %v, want %v", status, got, want)
		}
	}
}

func TestErrText(t *testing.T) {
	ro := &host.ReadOnlyError{Role: host.RoleReader, WriterPID: 7}
	for _, c := range []struct {
		err  error
		want string
	}{
		{errors.New("disk full"), "disk full"},
		{ro, ro.Error()},
		// A wrapped read-only error says only who writes, not the wrapping.
		{fmt.Errorf("save: %w", ro), "read-only: window pid 7 is the writer; make changes there"},
	} {
		if got := ErrText(c.err); got != c.want {
			t.Errorf("ErrText(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
