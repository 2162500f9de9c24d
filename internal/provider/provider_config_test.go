package provider

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func TestSettings_defaults(t *testing.T) {
	s, diags := providerModel{Host: types.StringValue("https://h")}.settings()
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.FederationNamespace != "kube-federation-system" || s.FieldManager != "terraform-provider-kubefed" ||
		s.MaxParallelClusters != 16 || s.RequestTimeout != 30*time.Second ||
		s.Connection.QPS != 50 || s.Connection.Burst != 100 || s.Connection.Timeout != 30*time.Second {
		t.Fatalf("defaults not applied: %+v", s)
	}
}

func TestSettings_environmentFallback(t *testing.T) {
	t.Setenv("KUBE_HOST", "https://from-env")
	t.Setenv("KUBE_TOKEN", "env-token")
	t.Setenv("KUBE_INSECURE", "true")
	s, diags := providerModel{Token: types.StringValue("attribute-token")}.settings()
	if diags.HasError() {
		t.Fatal(diags)
	}
	if s.Connection.Host != "https://from-env" || s.Connection.Token != "attribute-token" || !s.Connection.Insecure {
		t.Fatalf("attributes win, environment fills the rest: %+v", s.Connection)
	}
}

func TestSettings_errors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model providerModel
		env   map[string]string
		want  string
	}{
		{"bad insecure env", providerModel{Host: types.StringValue("h")}, map[string]string{"KUBE_INSECURE": "maybe"},
			`KUBE_INSECURE: "maybe" is not a boolean`},
		{"exec without command", providerModel{Host: types.StringValue("h"), Exec: &execModel{
			Args: types.ListNull(types.StringType), Env: types.MapNull(types.StringType)}}, nil,
			"The exec block needs a command"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			_, diags := tc.model.settings()
			if !diags.HasError() {
				t.Fatal("want an error")
			}
			var text string
			for _, d := range diags.Errors() {
				text += d.Summary() + ": " + d.Detail()
			}
			if !strings.Contains(text, tc.want) {
				t.Fatalf("%q lacks %q", text, tc.want)
			}
		})
	}
}

func TestSettings_unknownConnectionIsNotAnError(t *testing.T) {
	model := providerModel{Host: types.StringUnknown()}
	if !model.hasUnknownConnection() {
		t.Fatal("an unknown host is an unknown connection")
	}
	if _, diags := model.settings(); diags.HasError() {
		t.Fatalf("unknown values must not fail configuration: %v", diags)
	}
}

func TestSettings_nothingSetIsNotAnErrorYet(t *testing.T) {
	s, diags := providerModel{}.settings()
	if diags.HasError() || !s.Connection.IsEmpty() {
		t.Fatalf("functions work without a host: %v", diags)
	}
}

func TestRequestTimeoutIsCheckedAtValidate(t *testing.T) {
	ctx := context.Background()
	resp := &xattr.ValidateAttributeResponse{}
	timetypes.NewGoDurationValueFromStringMust("1m").ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: path.Root("request_timeout")}, resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("1m is a duration: %v", resp.Diagnostics)
	}
	bad := timetypes.GoDuration{StringValue: types.StringValue("soon")}
	bad.ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: path.Root("request_timeout")}, resp)
	if !resp.Diagnostics.HasError() {
		t.Error(`"soon" must be refused at validate`)
	}
	if got := stringError(t, positiveDuration{}, types.StringValue("-1s")); !strings.Contains(got, `"-1s" is not a positive duration`) {
		t.Errorf("negative timeout: %q", got)
	}
	if got := stringError(t, positiveDuration{}, types.StringValue("30s")); got != "" {
		t.Errorf("30s refused: %q", got)
	}
}
