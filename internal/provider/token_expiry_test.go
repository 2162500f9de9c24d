package provider

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

// fakeJWT is a token of three base64url parts whose payload is claims; its
// signature is not one, as nothing here verifies it.
func fakeJWT(claims string) string {
	part := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	return part(`{"alg":"RS256","typ":"JWT"}`) + "." + part(claims) + "." + part("not a signature")
}

func TestWarnShortLivedToken(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		token string
		want  []string
	}{
		{name: "expired", token: fakeJWT(`{"exp":1772365500}`),
			want: []string{`The token of cluster "berlin" has expired`, "token expired at 2026-03-01T11:45:00Z, 15m ago", "join", "exec"}},
		{name: "expiring", token: fakeJWT(`{"exp":1772366520}`),
			want: []string{`The token of cluster "berlin" expires soon`, "token expires at 2026-03-01T12:02:00Z, in 2m", "join.token_wo"}},
		{name: "lasting", token: fakeJWT(`{"exp":1772452800}`)},
		{name: "not a JWT", token: "0123456789abcdef"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var diags diag.Diagnostics
			warnShortLivedToken("berlin", path.Root("token"), tt.token, now, &diags)
			if len(tt.want) == 0 {
				if len(diags) != 0 {
					t.Fatalf("warned %v", diags)
				}
				return
			}
			if len(diags) != 1 || diags.WarningsCount() != 1 {
				t.Fatalf("diagnostics %v, want one warning", diags)
			}
			got := diags[0].Summary() + "\n" + diags[0].Detail()
			for _, want := range tt.want {
				if !strings.Contains(got, want) {
					t.Errorf("warning %q does not say %q", got, want)
				}
			}
			if at := diags[0].(diag.DiagnosticWithPath).Path(); !at.Equal(path.Root("token")) {
				t.Errorf("warning at %s, want token", at)
			}
		})
	}
}
