package roundtrips

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

var t0 = time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC)

// at is a request to path from start to end, in milliseconds after t0.
func at(path string, start, end int) kube.TracedRequest {
	return kube.TracedRequest{Server: "h:1", Method: "GET", Path: path,
		Start: t0.Add(time.Duration(start) * time.Millisecond), End: t0.Add(time.Duration(end) * time.Millisecond)}
}

func paths(chain []kube.TracedRequest) string {
	var out []string
	for _, r := range chain {
		out = append(out, r.Path)
	}
	return strings.Join(out, " ")
}

func TestSequence(t *testing.T) {
	for _, tc := range []struct {
		name     string
		requests []kube.TracedRequest
		want     string
	}{
		{"no request", nil, ""},
		{"one", []kube.TracedRequest{at("a", 0, 80)}, "a"},
		{"overlapping requests are one round trip", []kube.TracedRequest{at("a", 0, 80), at("b", 2, 83), at("c", 5, 90)}, "a"},
		{"one after another", []kube.TracedRequest{at("a", 0, 80), at("b", 81, 160), at("c", 161, 240)}, "a b c"},
		{"a request that starts as the other ends follows it", []kube.TracedRequest{at("a", 0, 80), at("b", 80, 160)}, "a b"},
		{"the longest of two branches", []kube.TracedRequest{
			at("list", 0, 80), at("get", 81, 160), at("write", 161, 240), at("probe", 81, 170),
		}, "list get write"},
		{"a long request against two short ones in sequence", []kube.TracedRequest{
			at("long", 0, 300), at("s1", 1, 80), at("s2", 81, 160),
		}, "s1 s2"},
		{"order of the input does not matter", []kube.TracedRequest{at("c", 161, 240), at("a", 0, 80), at("b", 81, 160)}, "a b c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := paths(Sequence(tc.requests)); got != tc.want {
				t.Errorf("Sequence = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReadAndProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace")
	if got, err := Read(path); err != nil || got != nil {
		t.Fatalf("a missing trace reads as %v, %v; want nothing", got, err)
	}
	lines := `{"pid":7,"server":"h:1","method":"GET","path":"/a","start":"2026-12-06T00:00:00Z","end":"2026-12-06T00:00:00.08Z","status":200}
{"pid":9,"server":"m:2","method":"PATCH","path":"/b","start":"2026-12-06T00:00:01Z","end":"2026-12-06T00:00:01.08Z"}
{"pid":7,"server":"m:2","method":"GET","path":"/c","start":"2026-12-06T00:00:02Z","end":"2026-12-06T00:00:02.08Z"}
`
	if err := os.WriteFile(path, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].Method != "PATCH" || got[0].Status != 200 || got[2].End.Sub(got[2].Start) != 80*time.Millisecond {
		t.Fatalf("Read = %+v", got)
	}
	if pids := Processes(got); len(pids) != 2 || pids[0] != 7 || pids[1] != 9 {
		t.Errorf("Processes = %v, want [7 9]", pids)
	}
	onM := Filter(got, func(r kube.TracedRequest) bool { return r.Server == "m:2" })
	if paths(onM) != "/b /c" {
		t.Errorf("Filter = %q", paths(onM))
	}
	if d := Describe(Sequence(got), map[string]string{"h:1": "host"}); !strings.Contains(d, "host") || !strings.Contains(d, "m:2") {
		t.Errorf("Describe = %q, want the host named and the other server by address", d)
	}
	if err := os.WriteFile(path, []byte("not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a broken trace reads with %v, want an error naming line 1", err)
	}
}
