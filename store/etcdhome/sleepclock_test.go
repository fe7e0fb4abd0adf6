package etcdhome

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSupervisorLostAfterSleep: a machine that slept (suspend) past its supervisor's lease
// gives the run up at its next wake, before asking etcd anything: its steps must not run
// a moment more beside an attempt another machine may have started meanwhile. Go's timers
// and monotonic clock stop during a suspend; the supervisor's deadline also runs on the
// clock that does not (CLOCK_BOOTTIME). The sleep is the clock moving on by itself.
func TestSupervisorLostAfterSleep(t *testing.T) {
	var slept atomic.Int64
	real := sinceBoot
	t.Cleanup(func() { sinceBoot = real }) // after the supervisor's Close (cleanups run last first)
	sinceBoot = func() time.Duration { return real() + time.Duration(slept.Load()) }
	h := newHome(t, Options{Lease: 2 * time.Second})
	s := supervise(t, h, "sleeper")
	select {
	case <-s.Lost():
		t.Fatalf("lost before the sleep: %v", s.Why())
	default:
	}
	slept.Store(int64(time.Minute))
	select {
	case <-s.Lost():
	case <-time.After(20 * time.Second): // a hang, not a speed: the next tick is 1/6 of the lease
		t.Fatal("a supervisor whose machine slept past its lease still holds its run")
	}
	if why := s.Why(); why == nil || !strings.Contains(why.Error(), "slept") {
		t.Fatalf("lost, but why: %v", why)
	}
}
