package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A registration's token is stored in the host and used by every later run
// to reach the member, so a short-lived one (a cloud provider's EKS, GKE or
// AKS token) stops working soon after the apply that stored it. The plan
// warns when the token's own exp claim says so.

// tokenExpiringWithin is how close to its expiry a stored token is worth a
// warning: about the time a plan and its apply take.
const tokenExpiringWithin = 10 * time.Minute

// tokenLife is what a token's exp claim says about it at a moment.
type tokenLife int

const (
	// tokenLasts: not a JWT, no exp claim, or valid beyond the margin.
	tokenLasts tokenLife = iota
	tokenExpiring
	tokenExpired
)

// tokenLifeAt reads the exp claim of token, without verifying its
// signature (the member does that), and says whether it has expired at
// now or expires within tokenExpiringWithin, and when.
func tokenLifeAt(token string, now time.Time) (tokenLife, time.Time) {
	claims := jwt.RegisteredClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(token, &claims); err != nil || claims.ExpiresAt == nil {
		return tokenLasts, time.Time{}
	}
	expires := claims.ExpiresAt.Time
	switch {
	case !now.Before(expires):
		return tokenExpired, expires
	case expires.Sub(now) <= tokenExpiringWithin:
		return tokenExpiring, expires
	default:
		return tokenLasts, expires
	}
}

// warnShortLivedTokens checks the registration's token, or its token_wo,
// which the plan does not hold but the configuration does. A token known
// only at apply is not checked.
func warnShortLivedTokens(ctx context.Context, config tfsdk.Config, plan *federationClusterModel, now time.Time, diags *diag.Diagnostics) {
	name := plan.Name.ValueString()
	if !plan.Token.IsNull() && !plan.Token.IsUnknown() {
		warnShortLivedToken(name, path.Root("token"), plan.Token.ValueString(), now, diags)
	}
	var writeOnly types.String
	diags.Append(config.GetAttribute(ctx, path.Root("token_wo"), &writeOnly)...)
	if !writeOnly.IsNull() && !writeOnly.IsUnknown() {
		warnShortLivedToken(name, path.Root("token_wo"), writeOnly.ValueString(), now, diags)
	}
}

// warnShortLivedToken warns when the token that attribute gives cluster has
// expired at now or expires soon; it says nothing of any other token.
func warnShortLivedToken(cluster string, attribute path.Path, token string, now time.Time, diags *diag.Diagnostics) {
	life, expires := tokenLifeAt(token, now)
	var summary, when string
	switch life {
	case tokenExpired:
		summary = fmt.Sprintf("The token of cluster %q has expired", cluster)
		when = fmt.Sprintf("expired at %s, %s ago", expires.UTC().Format(time.RFC3339), roughly(now.Sub(expires)))
	case tokenExpiring:
		summary = fmt.Sprintf("The token of cluster %q expires soon", cluster)
		when = fmt.Sprintf("expires at %s, in %s", expires.UTC().Format(time.RFC3339), roughly(expires.Sub(now)))
	default:
		return
	}
	diags.AddAttributeWarning(attribute, summary, fmt.Sprintf("The bearer token in %s %s, by its exp claim. The federation "+
		"reaches the cluster with the token stored in the host: once it has expired, the next refresh finds the cluster not "+
		"ready, and objects are neither placed nor written there. Register the cluster with join instead, whose exec (such "+
		"as `aws eks get-token`) or join.token_wo, read afresh on each run, is used at apply only to create a ServiceAccount "+
		"token that does not expire; or give a token that lasts.", attribute, when))
}

// roughly is d to the minute, as "12m" or "1h5m".
func roughly(d time.Duration) string {
	if d = d.Round(time.Minute); d < time.Minute {
		return "less than a minute"
	}
	return strings.TrimSuffix(d.String(), "0s")
}
