package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
)

var _ function.Function = (*renderObjectFunction)(nil)

// NewRenderObjectFunction returns the render_object function.
func NewRenderObjectFunction() function.Function {
	return &renderObjectFunction{}
}

type renderObjectFunction struct{}

func (f *renderObjectFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "render_object"
}

func (f *renderObjectFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Renders the object one cluster receives from a template and overrides",
		MarkdownDescription: "Returns the canonical JSON (sorted keys, no insignificant white space) of the object that the named " +
			"cluster receives from `kubefed_federated_object` with this template and these overrides: the template, then the " +
			"overrides that target the cluster in list order, then the label `kubefed.io/managed: \"true\"`. A Secret's " +
			"`data` and `stringData` values are shown as `sha256:` digests. No cluster is contacted.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:        "template",
				Description: "One YAML or JSON document with `apiVersion`, `kind` and `metadata.name`.",
			},
			function.DynamicParameter{
				Name: "overrides",
				Description: "A list shaped like `kubefed_federated_object`'s `overrides`: objects with `cluster` (a name) or " +
					"`cluster_selector` (`match_labels`, `match_expressions`), and `patches`, a list of `{op, path, value}` with " +
					"`op` one of `add`, `replace` (the default) and `remove`, `path` a JSON pointer and `value` JSON text. `[]` for none.",
				AllowNullValue: true,
			},
			function.DynamicParameter{
				Name:        "cluster",
				Description: "The cluster: an object with `name` and optional `labels` (a map of strings).",
			},
		},
		Return: function.StringReturn{},
	}
}

func (f *renderObjectFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var (
		template  string
		overrides types.Dynamic
		cluster   types.Dynamic
	)
	resp.Error = function.ConcatFuncErrors(req.Arguments.Get(ctx, &template, &overrides, &cluster))
	if resp.Error != nil {
		return
	}
	target, err := functionCluster(cluster)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(2, err.Error())
		return
	}
	rawOverrides, err := plainValue(overrides)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(1, "overrides: "+err.Error())
		return
	}
	rules, err := overrideRules(rawOverrides)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(1, err.Error())
		return
	}
	rendered, err := federation.Render(federation.RenderSpec{
		Template:   template,
		Namespaced: templateHasNamespace(template),
		Overrides:  rules,
	}, target, nil)
	if err != nil {
		argument := int64(0)
		var overrideErr *federation.OverrideError
		if errors.As(err, &overrideErr) {
			argument = 1
		}
		resp.Error = function.NewArgumentFuncError(argument, err.Error())
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Result.Set(ctx, rendered.Display))
}

// templateHasNamespace decides scope from the template itself, since the
// function knows no federated type: a namespace means a namespaced object.
func templateHasNamespace(template string) bool {
	var object struct {
		Metadata struct {
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	return yaml.Unmarshal([]byte(template), &object) == nil && object.Metadata.Namespace != ""
}

func functionCluster(value types.Dynamic) (federation.Cluster, error) {
	raw, err := plainValue(value)
	if err != nil {
		return federation.Cluster{}, fmt.Errorf("cluster: %w", err)
	}
	object, err := plainObject(raw, "cluster", "name", "labels")
	if err != nil {
		return federation.Cluster{}, err
	}
	name, err := plainString(object["name"], "cluster.name")
	if err != nil {
		return federation.Cluster{}, err
	}
	if name == "" {
		return federation.Cluster{}, fmt.Errorf("cluster.name is required")
	}
	labels, err := plainStringMap(object["labels"], "cluster.labels")
	return federation.Cluster{Name: name, Labels: labels}, err
}

// overrideRules reads the overrides list of plain values, the shape shared
// by the function and the federated object.
func overrideRules(raw any) ([]federation.OverrideRule, error) {
	if raw == nil {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, fmt.Errorf("overrides must be a list, not %s", describePlain(raw))
	}
	rules := make([]federation.OverrideRule, 0, len(list))
	for i, entry := range list {
		what := fmt.Sprintf("overrides[%d]", i)
		object, err := plainObject(entry, what, "cluster", "cluster_selector", "patches")
		if err != nil {
			return nil, err
		}
		var rule federation.OverrideRule
		if rule.Cluster, err = plainString(object["cluster"], what+".cluster"); err != nil {
			return nil, err
		}
		if object["cluster_selector"] != nil {
			if rule.Selector, err = plainSelector(object["cluster_selector"], what+".cluster_selector"); err != nil {
				return nil, err
			}
		}
		patches, ok := object["patches"].([]any)
		if !ok && object["patches"] != nil {
			return nil, fmt.Errorf("%s.patches must be a list, not %s", what, describePlain(object["patches"]))
		}
		for j, p := range patches {
			pwhat := fmt.Sprintf("%s.patches[%d]", what, j)
			patchObject, err := plainObject(p, pwhat, "op", "path", "value")
			if err != nil {
				return nil, err
			}
			var patch federation.Patch
			if patch.Op, err = plainString(patchObject["op"], pwhat+".op"); err != nil {
				return nil, err
			}
			if patch.Path, err = plainString(patchObject["path"], pwhat+".path"); err != nil {
				return nil, err
			}
			if patch.Value, err = plainString(patchObject["value"], pwhat+".value"); err != nil {
				return nil, err
			}
			rule.Patches = append(rule.Patches, patch)
		}
		rules = append(rules, rule)
	}
	return rules, nil
}

func plainSelector(raw any, what string) (*metav1.LabelSelector, error) {
	object, err := plainObject(raw, what, "match_labels", "match_expressions")
	if err != nil {
		return nil, err
	}
	selector := &metav1.LabelSelector{}
	if selector.MatchLabels, err = plainStringMap(object["match_labels"], what+".match_labels"); err != nil {
		return nil, err
	}
	expressions, ok := object["match_expressions"].([]any)
	if !ok && object["match_expressions"] != nil {
		return nil, fmt.Errorf("%s.match_expressions must be a list, not %s", what, describePlain(object["match_expressions"]))
	}
	for i, e := range expressions {
		ewhat := fmt.Sprintf("%s.match_expressions[%d]", what, i)
		expression, err := plainObject(e, ewhat, "key", "operator", "values")
		if err != nil {
			return nil, err
		}
		var requirement metav1.LabelSelectorRequirement
		if requirement.Key, err = plainString(expression["key"], ewhat+".key"); err != nil {
			return nil, err
		}
		operator, err := plainString(expression["operator"], ewhat+".operator")
		if err != nil {
			return nil, err
		}
		requirement.Operator = metav1.LabelSelectorOperator(operator)
		values, ok := expression["values"].([]any)
		if !ok && expression["values"] != nil {
			return nil, fmt.Errorf("%s.values must be a list of strings, not %s", ewhat, describePlain(expression["values"]))
		}
		for k, v := range values {
			s, err := plainString(v, fmt.Sprintf("%s.values[%d]", ewhat, k))
			if err != nil {
				return nil, err
			}
			requirement.Values = append(requirement.Values, s)
		}
		selector.MatchExpressions = append(selector.MatchExpressions, requirement)
	}
	return selector, nil
}
