package propagation

import (
	"testing"
	"time"
)

func TestReclaimPause(t *testing.T) {
	var total time.Duration
	for attempt, want := range map[int]time.Duration{1: 50 * time.Millisecond, 2: 100 * time.Millisecond, 5: 800 * time.Millisecond} {
		if got := reclaimPause(attempt); got != want {
			t.Errorf("reclaimPause(%d) = %v, want %v", attempt, got, want)
		}
	}
	// No pause follows the last attempt.
	for attempt := 1; attempt < reclaimAttempts; attempt++ {
		total += reclaimPause(attempt)
	}
	if total != 1550*time.Millisecond {
		t.Errorf("the pauses of one apply add up to %v, want 1.55s", total)
	}
}
