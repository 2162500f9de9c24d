package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

var (
	_ validator.String = dnsSubdomainValidator{}
	_ validator.List   = uniqueNamesValidator{}
	_ validator.Map    = clusterKeysValidator{}
)

// Messages of the name checks, one per rule, so tests can pin them.
const (
	msgDNSSubdomain = "must be a DNS-1123 subdomain: at most 253 lowercase letters, digits, '-' and '.', each part between dots " +
		"starting and ending with a letter or digit (got %q)"
	msgDuplicateName = "%q is listed more than once: list each cluster once"
	msgClusterKey    = "key %q must be a cluster's name, a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting " +
		"and ending with a letter or digit"
	msgClusterKeyOrAll = msgClusterKey + `, or "*" for every other cluster`
)

// dnsSubdomainValidator accepts a DNS-1123 subdomain, which is what the
// name of most Kubernetes objects must be, custom resources' included: the
// host refuses any other name at apply.
type dnsSubdomainValidator struct{}

func (dnsSubdomainValidator) Description(context.Context) string { return "a DNS-1123 subdomain" }

func (v dnsSubdomainValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (dnsSubdomainValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	if len(validation.IsDNS1123Subdomain(value)) > 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid name", nestedPath(req.Path)+fmt.Sprintf(msgDNSSubdomain, value))
	}
}

// uniqueNamesValidator refuses a list of cluster names that names one
// twice: it is almost always a copy-and-paste slip, and the placement it
// describes would read the same without it.
type uniqueNamesValidator struct{}

func (uniqueNamesValidator) Description(context.Context) string { return "names listed once each" }

func (v uniqueNamesValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (uniqueNamesValidator) ValidateList(_ context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	var names []string
	for _, e := range req.ConfigValue.Elements() {
		if s, ok := e.(types.String); ok && !s.IsNull() && !s.IsUnknown() {
			names = append(names, s.ValueString())
		}
	}
	for _, name := range federation.DuplicateNames(names) {
		resp.Diagnostics.AddAttributeError(req.Path, "Duplicate cluster name", req.Path.String()+": "+fmt.Sprintf(msgDuplicateName, name))
	}
}

// clusterKeysValidator checks that the keys of a map by cluster are
// cluster names; with all, "*" stands for every cluster without its own key.
type clusterKeysValidator struct{ all bool }

func (v clusterKeysValidator) Description(context.Context) string {
	if v.all {
		return `cluster names, or "*", as keys`
	}
	return "cluster names as keys"
}

func (v clusterKeysValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v clusterKeysValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	for key := range req.ConfigValue.Elements() {
		if msg := v.keyProblem(key); msg != "" {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(key), "Invalid cluster name", req.Path.String()+": "+msg)
		}
	}
}

// keyProblem says what is wrong with key, or returns "".
func (v clusterKeysValidator) keyProblem(key string) string {
	switch {
	case v.all && key == "*":
		return ""
	case len(validation.IsDNS1123Label(key)) == 0:
		return ""
	case v.all:
		return fmt.Sprintf(msgClusterKeyOrAll, key)
	}
	return fmt.Sprintf(msgClusterKey, key)
}

// validateTemplateNames reports the template's name problems at the
// attribute that holds it.
func validateTemplateNames(diags *diag.Diagnostics, templateAt path.Path, id federation.Identity) {
	for _, problem := range id.NameProblems() {
		diags.AddAttributeError(templateAt, "Invalid template", problem)
	}
}
