package registry

import (
	"context"
	"strings"
	"testing"
)

// A join record is written on the credential Secret before the join, read
// back as interrupted while no KubeFedCluster exists, and survives the
// registration's own write of the Secret; ForgetJoin takes it off.
func TestJoinRecordRoundTrip(t *testing.T) {
	ctx := context.Background()
	r := hostServing(true)
	rec := JoinRecord{Cluster: "berlin", Endpoint: "https://berlin:6443", ServiceAccounts: []string{"kube-federation-system/berlin-host"}}
	if err := r.RecordJoin(ctx, "berlin-credentials", rec); err != nil {
		t.Fatal(err)
	}
	regs, err := r.Registrations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := regs.InterruptedJoins
	if len(got) != 1 || got[0].Cluster != "berlin" || got[0].SecretName != "berlin-credentials" || got[0].Endpoint != rec.Endpoint {
		t.Fatalf("InterruptedJoins = %+v, want the record of berlin", got)
	}
	text := got[0].LeftBehind("kube-federation-system")
	for _, want := range []string{`cluster "berlin"`, "https://berlin:6443", "kubefed-controller-manager:berlin-host",
		"kube-federation-system/berlin-host-reader", "delete the Secret kube-federation-system/berlin-credentials"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q does not say %q", text, want)
		}
	}
	if err := r.ForgetJoin(ctx, "berlin", "berlin-credentials"); err != nil {
		t.Fatal(err)
	}
	if regs, _ := r.Registrations(ctx); len(regs.InterruptedJoins) != 0 {
		t.Errorf("InterruptedJoins after ForgetJoin = %+v, want none", regs.InterruptedJoins)
	}
}

func TestParseJoinRecord(t *testing.T) {
	for _, tc := range []struct {
		value string
		ok    bool
	}{
		{"", false},
		{"not json", false},
		{`{"endpoint":"https://x"}`, false},
		{`{"cluster":"berlin","serviceAccounts":["ns/a"]}`, true},
	} {
		if _, ok := parseJoinRecord(tc.value); ok != tc.ok {
			t.Errorf("parseJoinRecord(%q) ok = %t, want %t", tc.value, ok, tc.ok)
		}
	}
}
