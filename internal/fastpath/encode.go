package fastpath

import (
	"context"
	"encoding/json"
	"errors"
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
// are the framework's own; a call whose private state holds any is left to
// the framework.
type privateState struct {
	data map[string][]byte
	// misused is set when the resource asked for a key of the framework's
	// or stored a value that is not JSON: the framework says so in its own
	// words, so the call is left to it.
	misused bool
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
		return nil, p.misuse(key)
	}
	return p.data[key], nil
}

// SetKey stores value under key, or removes key when value is empty.
func (p *privateState) SetKey(_ context.Context, key string, value []byte) diag.Diagnostics {
	switch {
	case frameworkKey(key) || len(value) > 0 && (!utf8.Valid(value) || !json.Valid(value)):
		return p.misuse(key)
	case len(value) == 0:
		delete(p.data, key)
	default:
		p.data[key] = value
	}
	return nil
}

func (p *privateState) misuse(key string) diag.Diagnostics {
	p.misused = true
	return diag.Diagnostics{diag.NewErrorDiagnostic("Private state refused",
		fmt.Sprintf("The key %q is the framework's, or its value is not JSON.", key))}
}

// errNotAnswered is why a call that the package started is left to the
// framework after all: the framework would say something the package does
// not.
var errNotAnswered = errors.New("left to the framework")

// bytes encodes the private state, or returns nil when it is empty.
func (p *privateState) bytes() ([]byte, error) {
	if p.misused {
		return nil, errNotAnswered
	}
	if len(p.data) == 0 {
		return nil, nil
	}
	return json.Marshal(p.data)
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

func attributePaths(ctx context.Context, paths path.Paths) ([]*tftypes.AttributePath, error) {
	var out []*tftypes.AttributePath
	for _, p := range paths {
		converted, err := attributePath(ctx, p)
		if err != nil {
			return nil, err
		}
		out = append(out, converted)
	}
	return out, nil
}

func attributePath(ctx context.Context, p path.Path) (*tftypes.AttributePath, error) {
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
				return nil, errNotAnswered
			}
			steps = append(steps, tftypes.ElementKeyValue(value))
		default:
			return nil, errNotAnswered
		}
	}
	return tftypes.NewAttributePathWithSteps(steps), nil
}

// diagnostics converts diagnostics to the protocol's, with their attribute
// paths.
func diagnostics(ctx context.Context, diags diag.Diagnostics) ([]*tfprotov6.Diagnostic, error) {
	var out []*tfprotov6.Diagnostic
	for _, d := range diags {
		converted := &tfprotov6.Diagnostic{Severity: severity(d.Severity()), Summary: d.Summary(), Detail: d.Detail()}
		if withPath, ok := d.(diag.DiagnosticWithPath); ok {
			var err error
			if converted.Attribute, err = attributePath(ctx, withPath.Path()); err != nil {
				return nil, err
			}
		}
		out = append(out, converted)
	}
	return out, nil
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
