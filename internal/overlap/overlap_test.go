package overlap

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Start returns before the work ends, and its wait returns after, every
// time it is called.
func TestStart_waitsForTheWork(t *testing.T) {
	release := make(chan struct{})
	var ended atomic.Bool
	wait := Start(func() {
		<-release
		ended.Store(true)
	})
	if ended.Load() {
		t.Fatal("the work ended before it was released")
	}
	close(release)
	wait()
	wait()
	if !ended.Load() {
		t.Fatal("wait returned before the work ended")
	}
}

// All runs its pieces together: each waits until every one has started,
// which one after another would never happen.
func TestAll_runsTogether(t *testing.T) {
	const n = 4
	var started sync.WaitGroup
	started.Add(n)
	everyone := make(chan struct{})
	go func() { started.Wait(); close(everyone) }()
	var hung atomic.Bool
	work := make([]func(), n)
	for i := range work {
		work[i] = func() {
			started.Done()
			select {
			case <-everyone:
			case <-time.After(time.Minute): // a guard against a hang, not a measure of speed
				hung.Store(true)
			}
		}
	}
	All(work...)
	if hung.Load() {
		t.Fatal("the pieces of work did not run together")
	}
}

// Each runs every index once, and never more than limit at once.
func TestEach_boundsTheWorkAtOnce(t *testing.T) {
	for _, tt := range []struct {
		name     string
		n, limit int
		wantMost int64
	}{
		{"bounded", 30, 10, 10},
		{"no bound", 12, 0, 12},
		{"a bound above the work", 3, 10, 3},
		{"no work", 0, 5, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var running, most atomic.Int64
			seen := make([]atomic.Int64, tt.n)
			var started sync.WaitGroup
			// The first of them each wait until all of the first have
			// started: they must have run together.
			first := tt.n
			if tt.limit > 0 {
				first = min(tt.n, tt.limit)
			}
			started.Add(first)
			all := make(chan struct{})
			go func() { started.Wait(); close(all) }()
			var order atomic.Int64
			Each(tt.n, tt.limit, func(i int) {
				seen[i].Add(1)
				now := running.Add(1)
				defer running.Add(-1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				if order.Add(1) <= int64(first) {
					started.Done()
					select {
					case <-all:
					case <-time.After(time.Minute): // a guard against a hang
					}
				}
			})
			for i := range seen {
				if got := seen[i].Load(); got != 1 {
					t.Fatalf("index %d ran %d times", i, got)
				}
			}
			if most.Load() != tt.wantMost {
				t.Errorf("at most %d ran at once, want %d", most.Load(), tt.wantMost)
			}
		})
	}
}
