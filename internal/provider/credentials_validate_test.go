package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// configOfType is a value of typ: v's entries for an object's attributes,
// null where v has none; strings, numbers and booleans as they are.
func configOfType(typ tftypes.Type, v any) tftypes.Value {
	if v == nil {
		return tftypes.NewValue(typ, nil)
	}
	object, ok := typ.(tftypes.Object)
	if !ok {
		return tftypes.NewValue(typ, v)
	}
	given := v.(map[string]any)
	attrs := map[string]tftypes.Value{}
	for name, t := range object.AttributeTypes {
		attrs[name] = configOfType(t, given[name])
	}
	return tftypes.NewValue(typ, attrs)
}

// Each credential given both as a value and write-only, and write-only
// credentials where they have no place, are refused at validate, on the
// attribute, with what to do.
func TestValidateResourceConfig_writeOnlyCredentials(t *testing.T) {
	const cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
	join := func(extra map[string]any) map[string]any {
		j := map[string]any{"host": "https://203.0.113.10:6443"}
		for k, v := range extra {
			j[k] = v
		}
		return j
	}
	cases := []struct {
		name   string
		config map[string]any
		// want is what the one error says, at attribute; none when empty.
		want, attribute string
	}{
		{name: "a write-only key with its certificate", config: map[string]any{"client_certificate": cert, "client_key_wo": "k", "client_key_wo_version": 1}},
		{name: "a write-only token", config: map[string]any{"token_wo": "t"}},
		{name: "a key given both ways", config: map[string]any{"client_certificate": cert, "client_key": "k", "client_key_wo": "k"},
			want: `Attribute "client_key" cannot be specified when "client_key_wo" is specified`, attribute: "client_key_wo"},
		{name: "a token given both ways", config: map[string]any{"token": "t", "token_wo": "t"},
			want: `Attribute "token" cannot be specified when "token_wo" is specified`, attribute: "token_wo"},
		{name: "a key version without a write-only key", config: map[string]any{"token": "t", "client_key_wo_version": 2},
			want: `Attribute "client_key_wo" must be specified when "client_key_wo_version" is specified`, attribute: "client_key_wo_version"},
		{name: "a write-only key and a token", config: map[string]any{"token": "t", "client_certificate": cert, "client_key_wo": "k"},
			want: msgCredBoth, attribute: "token"},
		{name: "a write-only key with join", config: map[string]any{"join": join(map[string]any{"token": "t"}), "client_key_wo": "k"},
			want: "client_key_wo is not set with join", attribute: "client_key_wo"},
		{name: "join with a write-only token", config: map[string]any{"join": join(map[string]any{"token_wo": "t"})}},
		{name: "join with a write-only key", config: map[string]any{"join": join(map[string]any{"client_certificate": cert, "client_key_wo": "k"})}},
		{name: "join's token given both ways", config: map[string]any{"join": join(map[string]any{"token": "t", "token_wo": "t"})},
			want: `Attribute "join.token" cannot be specified when "join.token_wo" is specified`, attribute: "join.token_wo"},
		{name: "join's key given both ways", config: map[string]any{"join": join(map[string]any{"client_key": "k", "client_key_wo": "k"})},
			want: `Attribute "join.client_key" cannot be specified when "join.client_key_wo" is specified`, attribute: "join.client_key_wo"},
		{name: "an empty write-only key", config: map[string]any{"client_certificate": cert, "client_key_wo": ""},
			want: "must not be empty", attribute: "client_key_wo"},
	}
	ctx := context.Background()
	server, _ := identityServer(ctx, t)
	schemas, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := schemas.ResourceSchemas["kubefed_federation_cluster"].ValueType()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.config["name"] = "berlin"
			if tc.config["join"] == nil {
				tc.config["api_endpoint"] = "https://203.0.113.20:6443"
			}
			config, err := tfprotov6.NewDynamicValue(typ, configOfType(typ, tc.config))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := server.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{
				TypeName: "kubefed_federation_cluster", Config: &config,
				ClientCapabilities: &tfprotov6.ValidateResourceConfigClientCapabilities{WriteOnlyAttributesAllowed: true}})
			if err != nil {
				t.Fatal(err)
			}
			var errs []*tfprotov6.Diagnostic
			for _, d := range resp.Diagnostics {
				if d.Severity == tfprotov6.DiagnosticSeverityError {
					errs = append(errs, d)
				}
			}
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Fatalf("refused: %s", described(t, errs))
			case tc.want == "":
			case len(errs) != 1 || !strings.Contains(errs[0].Detail, tc.want) || attributeText(errs[0].Attribute) != tc.attribute:
				t.Fatalf("got %s, want one error saying %q at %s", described(t, errs), tc.want, tc.attribute)
			}
		})
	}
}

// attributeText is a diagnostic's attribute path as the CLI writes it.
func attributeText(p *tftypes.AttributePath) string {
	if p == nil {
		return ""
	}
	var names []string
	for _, step := range p.Steps() {
		if name, ok := step.(tftypes.AttributeName); ok {
			names = append(names, string(name))
		}
	}
	return strings.Join(names, ".")
}
