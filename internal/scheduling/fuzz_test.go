package scheduling

import (
	"errors"
	"strconv"
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
			b := spec[i : i+5]
			p := Preference{MinReplicas: int64(b[0]), Weight: int64(b[2])}
			if b[1] != 255 {
				p.MaxReplicas = ptr(int64(b[1]))
			}
			if i == 0 {
				if b[0] != 255 {
					in.Preferences[Wildcard] = p
				}
				continue
			}
			name := "c" + strconv.Itoa(i/5)
			in.Clusters = append(in.Clusters, name)
			if b[0] != 255 {
				in.Preferences[name] = p
			}
			if b[3] != 255 {
				in.Current[name] = int64(b[3])
			}
			if b[4] != 255 {
				in.Capacity[name] = int64(b[4])
			}
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
