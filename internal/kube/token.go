package kube

import (
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// A bearer token stored for later runs stops working once it expires: a
// cloud provider's short-lived token soon after the run that stored it.
// Where the token is a JWT, its own exp claim tells when.

// TokenExpiringWithin is how close to its expiry a stored token is worth a
// warning: about the time a plan and its apply take.
const TokenExpiringWithin = 10 * time.Minute

// TokenLife is what a token's exp claim says about it at a moment.
type TokenLife int

const (
	// TokenLasts: not a JWT, no exp claim, or valid beyond the margin.
	TokenLasts TokenLife = iota
	// TokenExpiring: valid for TokenExpiringWithin at most.
	TokenExpiring
	// TokenExpired: past its exp claim.
	TokenExpired
)

// TokenLifeAt reads the exp claim of token, without verifying its
// signature (the member does that), and says whether it has expired at
// now or expires within TokenExpiringWithin, and when.
func TokenLifeAt(token string, now time.Time) (TokenLife, time.Time) {
	claims := jwt.RegisteredClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, &claims); err != nil || claims.ExpiresAt == nil {
		return TokenLasts, time.Time{}
	}
	expires := claims.ExpiresAt.Time
	switch {
	case !now.Before(expires):
		return TokenExpired, expires
	case expires.Sub(now) <= TokenExpiringWithin:
		return TokenExpiring, expires
	default:
		return TokenLasts, expires
	}
}

// Roughly is d to the minute, as "12m" or "1h5m".
func Roughly(d time.Duration) string {
	if d = d.Round(time.Minute); d < time.Minute {
		return "less than a minute"
	}
	return strings.TrimSuffix(d.String(), "0s")
}
