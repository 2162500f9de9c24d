package scheduling

import (
	"errors"
	"testing"
)

// FuzzPlan decodes clusters and preferences from bytes, five per cluster:
// minimum, maximum, weight, current and capacity, where a value of 255 means
// "not given" for maximum, current and capacity. The first five bytes give
// the wildcard preference the same way (its own current and capacity bytes
// are ignored). Inputs the planner rejects must be rejected with an
// *InputError; the others must satisfy checkInvariants.
func FuzzPlan(f *testing.F) {
	f.Fuzz(func(t *testing.T, total uint16, spec []byte, rebalance, balanced bool, key string) {
		in := Input{
			TotalReplicas: int64(total),
			Preferences:   map[string]Preference{},
			Current:       map[string]int64{},
			Capacity:      map[string]int64{},
			Rebalance:     rebalance,
			Key:           key,
			Strategy:      KubeFed,
		}
		if balanced {
			in.Strategy = Balanced
		}
		for i := 0; i+5 <= len(spec) && i < 5*65; i += 5 {
			decodeCluster(&in, i/5, spec[i:i+5])
		}
		res, err := Plan(in)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("Plan error %v is not an *InputError", err)
			}
			return
		}
		checkInvariants(t, in, res)
	})
}
