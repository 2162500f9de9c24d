// Package overlap runs independent work at once: requests that need not
// wait for each other (a host read beside the members' reads, one object's
// writes beside another's) cost one round trip together instead of one
// each. It is the one place the provider starts goroutines for that.
package overlap

import "sync"

// Start runs work in the background and returns a function that waits for
// it to end. Calling the function more than once is fine.
func Start(work func()) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		work()
	}()
	return func() { <-done }
}

// All runs each piece of work at once and returns when all have ended.
func All(work ...func()) {
	var wg sync.WaitGroup
	for _, w := range work {
		wg.Go(w)
	}
	wg.Wait()
}

// Each runs work for each index below n, at most limit at once (no bound
// when limit is not positive), and returns when all have ended.
func Each(n, limit int, work func(i int)) {
	if limit <= 0 || limit > n {
		limit = n
	}
	slots := make(chan struct{}, max(limit, 1))
	var wg sync.WaitGroup
	for i := range n {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			work(i)
		})
	}
	wg.Wait()
}
