package host

import (
	"sync"
	"testing"
)

// TestSubCloseRacesSafely closes subscriptions from several goroutines at once: before
// Close used a sync.Once, two callers could both see the channel open and both close it,
// which panics.
func TestSubCloseRacesSafely(t *testing.T) {
	for range 2000 {
		s := newSub()
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				s.Close()
			}()
		}
		close(start)
		wg.Wait()
		for range s.C { // C closes after Close
		}
	}
}
