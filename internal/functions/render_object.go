package functions

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/plain"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
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
	rawOverrides, err := tfvalue.Plain(overrides)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(1, "overrides: "+err.Error())
		return
	}
	rules, err := plain.OverrideRules(rawOverrides)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(1, err.Error())
		return
	}
	rendered, err := federation.Render(federation.RenderSpec{
		Template:   template,
		Namespaced: federation.TemplateHasNamespace(template),
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

// functionCluster reads the cluster argument.
func functionCluster(value types.Dynamic) (federation.Cluster, error) {
	raw, err := tfvalue.Plain(value)
	if err != nil {
		return federation.Cluster{}, fmt.Errorf("cluster: %w", err)
	}
	return plain.Cluster(raw)
}
