package fastpath

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// privateState is a resource's private state in the framework's encoding: a
// JSON object of base64-encoded JSON values. Keys that start with a period
// are the framework's own; a plan whose prior private state holds any is
// left to the framework.
type privateState struct {
	data map[string][]byte
}

// parsePrivate decodes private state, or reports false if it is not the
// provider's alone or not what the framework would accept as it stands.
func parsePrivate(raw []byte) (*privateState, bool) {
	p := &privateState{data: map[string][]byte{}}
	if len(raw) == 0 {
		return p, true
	}
	if json.Unmarshal(raw, &p.data) != nil {
		return nil, false
	}
	for key, value := range p.data {
		if frameworkKey(key) || !utf8.Valid(value) || !json.Valid(value) {
			return nil, false
		}
	}
	return p, true
}

func frameworkKey(key string) bool { return strings.HasPrefix(key, ".") }

func (p *privateState) GetKey(_ context.Context, key string) ([]byte, diag.Diagnostics) {
	if frameworkKey(key) {
		return nil, restrictedKey(key)
	}
	return p.data[key], nil
}

// SetKey stores value under key, or removes key when value is empty.
func (p *privateState) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	var diags diag.Diagnostics
	switch {
	case frameworkKey(key):
		return restrictedKey(key)
	case len(value) == 0:
		delete(p.data, key)
	case !utf8.Valid(value):
		diags.AddError("UTF-8 Invalid", "Values stored in private state must be valid UTF-8.\n\n"+
			fmt.Sprintf("The value being supplied for key %q is invalid. Please verify that the value is valid UTF-8.", key))
	case !json.Valid(value):
		diags.AddError("JSON Invalid", "Values stored in private state must be valid JSON.\n\n"+
			fmt.Sprintf("The value being supplied for key %q is invalid. Please verify that the value is valid JSON.", key))
	default:
		p.data[key] = value
	}
	return diags
}

func restrictedKey(key string) diag.Diagnostics {
	return diag.Diagnostics{diag.NewErrorDiagnostic("Restricted Resource Private State Namespace",
		"Using a period ('.') as a prefix for a key used in private state is not allowed.\n\n"+
			fmt.Sprintf("The key %q is invalid. Please check the key you are supplying does not use a a period ('.') as a prefix.", key))}
}

// bytes encodes the private state, or returns nil when it is empty. Every
// value went through SetKey or parsePrivate, so all are valid JSON.
func (p *privateState) bytes() ([]byte, diag.Diagnostics) {
	if len(p.data) == 0 {
		return nil, nil
	}
	raw, err := json.Marshal(p.data)
	if err != nil {
		return nil, diag.Diagnostics{diag.NewErrorDiagnostic("Error Encoding Private State",
			fmt.Sprintf("An error was encountered when encoding private state: %s.", err))}
	}
	return raw, nil
}

// normalisedPaths sorts paths by their text and drops repeats, as the
// framework does with the attributes that require a replacement.
func normalisedPaths(paths path.Paths) path.Paths {
	if len(paths) < 2 {
		return paths
	}
	sorted := slices.Clone(paths)
	slices.SortStableFunc(sorted, func(a, b path.Path) int { return strings.Compare(a.String(), b.String()) })
	return slices.CompactFunc(sorted, func(a, b path.Path) bool { return a.Equal(b) })
}

func attributePaths(ctx context.Context, paths path.Paths) ([]*tftypes.AttributePath, diag.Diagnostics) {
	var out []*tftypes.AttributePath
	for _, p := range paths {
		converted, diags := attributePath(ctx, p)
		if diags.HasError() {
			return out, diags
		}
		out = append(out, converted)
	}
	return out, nil
}

func attributePath(ctx context.Context, p path.Path) (*tftypes.AttributePath, diag.Diagnostics) {
	var steps []tftypes.AttributePathStep
	for _, step := range p.Steps() {
		switch step := step.(type) {
		case path.PathStepAttributeName:
			steps = append(steps, tftypes.AttributeName(string(step)))
		case path.PathStepElementKeyInt:
			steps = append(steps, tftypes.ElementKeyInt(int64(step)))
		case path.PathStepElementKeyString:
			steps = append(steps, tftypes.ElementKeyString(string(step)))
		case path.PathStepElementKeyValue:
			value, err := step.ToTerraformValue(ctx)
			if err != nil {
				return nil, unconvertiblePath(p, err)
			}
			steps = append(steps, tftypes.ElementKeyValue(value))
		default:
			return nil, unconvertiblePath(p, fmt.Errorf("unknown path.PathStep: %#v", step))
		}
	}
	return tftypes.NewAttributePathWithSteps(steps), nil
}

func unconvertiblePath(p path.Path, err error) diag.Diagnostics {
	return diag.Diagnostics{diag.NewErrorDiagnostic("Unable to Convert Attribute Path",
		"An unexpected error occurred while trying to convert an attribute path.\n\n"+
			fmt.Sprintf("Attribute Path: %s\nOriginal Error: %s", p, err))}
}

// diagnostics converts diagnostics to the protocol's, with their attribute
// paths.
func diagnostics(ctx context.Context, diags diag.Diagnostics) []*tfprotov6.Diagnostic {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		converted := &tfprotov6.Diagnostic{Severity: severity(d.Severity()), Summary: d.Summary(), Detail: d.Detail()}
		if withPath, ok := d.(diag.DiagnosticWithPath); ok {
			var pathDiags diag.Diagnostics
			converted.Attribute, pathDiags = attributePath(ctx, withPath.Path())
			out = append(out, diagnostics(ctx, pathDiags)...)
		}
		out = append(out, converted)
	}
	return out
}

func severity(s diag.Severity) tfprotov6.DiagnosticSeverity {
	switch s {
	case diag.SeverityError:
		return tfprotov6.DiagnosticSeverityError
	case diag.SeverityWarning:
		return tfprotov6.DiagnosticSeverityWarning
	}
	return tfprotov6.DiagnosticSeverityInvalid
}

func errorDiagnostic(summary, detail string) *tfprotov6.Diagnostic {
	return &tfprotov6.Diagnostic{Severity: tfprotov6.DiagnosticSeverityError, Summary: summary, Detail: detail}
}
