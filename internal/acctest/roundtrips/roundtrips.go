// Package roundtrips reads the provider's request trace and finds in it the
// requests that waited for each other: the round trips a far cluster adds to
// a run one after another. Requests that overlap cost one round trip
// together however many there are.
package roundtrips

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// Read reads a trace file written under kube.RequestTraceEnv; a missing
// file is an empty trace.
func Read(path string) ([]kube.TracedRequest, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []kube.TracedRequest
	scanner := bufio.NewScanner(f)
	scanner.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; scanner.Scan(); n++ {
		var r kube.TracedRequest
		if err := json.Unmarshal(scanner.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		out = append(out, r)
	}
	return out, scanner.Err()
}

// Sequence is the longest chain of requests of a trace in which each
// request started after the one before it had its answer, in that order:
// the round trips the trace had to make one after another. Of chains of
// one length it is the one that ends first.
func Sequence(requests []kube.TracedRequest) []kube.TracedRequest {
	byEnd := slices.Clone(requests)
	slices.SortStableFunc(byEnd, func(a, b kube.TracedRequest) int {
		if c := a.End.Compare(b.End); c != 0 {
			return c
		}
		return a.Start.Compare(b.Start)
	})
	length, previous := make([]int, len(byEnd)), make([]int, len(byEnd))
	best := -1
	for i, r := range byEnd {
		length[i], previous[i] = 1, -1
		for j := range i {
			if !byEnd[j].End.After(r.Start) && length[j]+1 > length[i] {
				length[i], previous[i] = length[j]+1, j
			}
		}
		if best < 0 || length[i] > length[best] {
			best = i
		}
	}
	var chain []kube.TracedRequest
	for i := best; i >= 0; i = previous[i] {
		chain = append(chain, byEnd[i])
	}
	slices.Reverse(chain)
	return chain
}

// Filter returns the requests keep accepts, in order.
func Filter(requests []kube.TracedRequest, keep func(kube.TracedRequest) bool) []kube.TracedRequest {
	var out []kube.TracedRequest
	for _, r := range requests {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// Processes lists the provider processes of a trace in the order they
// first sent a request.
func Processes(requests []kube.TracedRequest) []int {
	var pids []int
	for _, r := range requests {
		if !slices.Contains(pids, r.Process) {
			pids = append(pids, r.Process)
		}
	}
	return pids
}

// Describe writes a chain one request a line, naming each server by the
// name names gives it (its address when names has none): when it started
// after the first, how long it took, the method and path.
func Describe(chain []kube.TracedRequest, names map[string]string) string {
	var b strings.Builder
	for _, r := range chain {
		name := names[r.Server]
		if name == "" {
			name = r.Server
		}
		dryRun := ""
		if r.DryRun {
			dryRun = " (dry run)"
		}
		fmt.Fprintf(&b, "  +%-6s %6s  %-14s %s %s%s\n", r.Start.Sub(chain[0].Start).Round(time.Millisecond),
			r.End.Sub(r.Start).Round(time.Millisecond), name, r.Method, r.Path, dryRun)
	}
	return b.String()
}
