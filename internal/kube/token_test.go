package kube

import (
	"encoding/base64"
	"testing"
	"time"
)

func fakeJWT(claims string) string {
	part := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	return part(`{"alg":"RS256","typ":"JWT"}`) + "." + part(claims) + "." + part("not a signature")
}

func TestTokenLifeAt(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name        string
		token       string
		want        TokenLife
		wantExpires time.Time
	}{
		{name: "static token of a lab member", token: "0123456789abcdef", want: TokenLasts},
		{name: "three parts that are not JSON", token: "abc.def.ghi", want: TokenLasts},
		{name: "legacy service account token without exp", token: fakeJWT(`{"iss":"kubernetes/serviceaccount","sub":"system:serviceaccount:kube-federation-system:berlin"}`), want: TokenLasts},
		{name: "exp that is not a number", token: fakeJWT(`{"exp":"tomorrow"}`), want: TokenLasts},
		{name: "EKS token expired an hour ago", token: fakeJWT(`{"exp":1772362800}`), want: TokenExpired,
			wantExpires: now.Add(-time.Hour)},
		{name: "expires this very second", token: fakeJWT(`{"exp":1772366400}`), want: TokenExpired, wantExpires: now},
		{name: "GKE token that expires in five minutes", token: fakeJWT(`{"exp":1772366700}`), want: TokenExpiring,
			wantExpires: now.Add(5 * time.Minute)},
		{name: "expires at the margin", token: fakeJWT(`{"exp":1772367000}`), want: TokenExpiring,
			wantExpires: now.Add(TokenExpiringWithin)},
		{name: "AKS token valid for the hour", token: fakeJWT(`{"exp":1772370000}`), want: TokenLasts,
			wantExpires: now.Add(time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, expires := TokenLifeAt(tt.token, now)
			if got != tt.want || !expires.Equal(tt.wantExpires) {
				t.Errorf("TokenLifeAt = %v, %v; want %v, %v", got, expires, tt.want, tt.wantExpires)
			}
		})
	}
}

// The warning names the cluster, the attribute and the moment, and says
// what to do; a token that lasts gets none.
