package functions

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

var _ function.Function = (*decodeManifestsFunction)(nil)

// NewDecodeManifestsFunction returns the decode_manifests function.
func NewDecodeManifestsFunction() function.Function {
	return &decodeManifestsFunction{}
}

type decodeManifestsFunction struct{}

func (f *decodeManifestsFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "decode_manifests"
}

func (f *decodeManifestsFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Decodes YAML or JSON documents into objects keyed by kind, namespace and name",
		MarkdownDescription: "Returns an object with one attribute per Kubernetes object in `text` (YAML or JSON documents " +
			"separated by `---` lines, as `helm template` or `kubectl kustomize` print them; a `List` stands for its items; empty " +
			"and comment-only documents are skipped), keyed `<Kind>[.<group>]/[<namespace>/]<name>` (`Deployment.apps/shop/web`, " +
			"`Namespace/shop`), each the object decoded with its `null` fields left out. It is what `manifest_objects` of " +
			"`kubefed_federated_application` takes, so that a plan shows a changed field rather than the whole text.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:        "text",
				Description: "One or more YAML or JSON documents.",
			},
		},
		Return: function.DynamicReturn{},
	}
}

func (f *decodeManifestsFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var text string
	resp.Error = function.ConcatFuncErrors(req.Arguments.Get(ctx, &text))
	if resp.Error != nil {
		return
	}
	objects, err := federation.ObjectsByName(text)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, err.Error())
		return
	}
	value, err := tfvalue.Dynamic(objects)
	if err != nil {
		resp.Error = function.NewFuncError(err.Error())
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Result.Set(ctx, value))
}
