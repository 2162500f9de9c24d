package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// A registration's token is stored in the host and used by every later run
// to reach the member, so a short-lived one (a cloud provider's EKS, GKE or
// AKS token) stops working soon after the apply that stored it. The plan
// warns when the token's own exp claim says so.

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
	life, expires := kube.TokenLifeAt(token, now)
	var summary, when string
	switch life {
	case kube.TokenExpired:
		summary = fmt.Sprintf("The token of cluster %q has expired", cluster)
		when = fmt.Sprintf("expired at %s, %s ago", expires.UTC().Format(time.RFC3339), kube.Roughly(now.Sub(expires)))
	case kube.TokenExpiring:
		summary = fmt.Sprintf("The token of cluster %q expires soon", cluster)
		when = fmt.Sprintf("expires at %s, in %s", expires.UTC().Format(time.RFC3339), kube.Roughly(expires.Sub(now)))
	default:
		return
	}
	diags.AddAttributeWarning(attribute, summary, fmt.Sprintf("The bearer token in %s %s, by its exp claim. The federation "+
		"reaches the cluster with the token stored in the host: once it has expired, the next refresh finds the cluster not "+
		"ready, and objects are neither placed nor written there. Register the cluster with join instead, whose exec (such "+
		"as `aws eks get-token`) or join.token_wo, read afresh on each run, is used at apply only to create a ServiceAccount "+
		"token that does not expire; or give a token that lasts.", attribute, when))
}
