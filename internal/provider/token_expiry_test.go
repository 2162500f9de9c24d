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

func TestTokenLifeAt(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		token       string
		want        tokenLife
		wantExpires time.Time
	}{
		{name: "static token of a lab member", token: "0123456789abcdef", want: tokenLasts},
		{name: "three parts that are not JSON", token: "abc.def.ghi", want: tokenLasts},
		{name: "legacy service account token without exp", token: fakeJWT(`{"iss":"kubernetes/serviceaccount","sub":"system:serviceaccount:kube-federation-system:berlin"}`), want: tokenLasts},
		{name: "exp that is not a number", token: fakeJWT(`{"exp":"tomorrow"}`), want: tokenLasts},
		{name: "EKS token expired an hour ago", token: fakeJWT(`{"exp":1772362800}`), want: tokenExpired,
			wantExpires: now.Add(-time.Hour)},
		{name: "expires this very second", token: fakeJWT(`{"exp":1772366400}`), want: tokenExpired, wantExpires: now},
		{name: "GKE token that expires in five minutes", token: fakeJWT(`{"exp":1772366700}`), want: tokenExpiring,
			wantExpires: now.Add(5 * time.Minute)},
		{name: "expires at the margin", token: fakeJWT(`{"exp":1772367000}`), want: tokenExpiring,
			wantExpires: now.Add(tokenExpiringWithin)},
		{name: "AKS token valid for the hour", token: fakeJWT(`{"exp":1772370000}`), want: tokenLasts,
			wantExpires: now.Add(time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, expires := tokenLifeAt(tt.token, now)
			if got != tt.want || !expires.Equal(tt.wantExpires) {
				t.Errorf("tokenLifeAt = %v, %v; want %v, %v", got, expires, tt.want, tt.wantExpires)
			}
		})
	}
}

// The warning names the cluster, the attribute and the moment, and says
// what to do; a token that lasts gets none.
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
