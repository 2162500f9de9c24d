package functions

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/plain"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/tfvalue"
)

var _ function.Function = (*replicaSplitFunction)(nil)

// NewReplicaSplitFunction returns the replica_split function.
func NewReplicaSplitFunction() function.Function {
	return &replicaSplitFunction{}
}

type replicaSplitFunction struct{}

func (f *replicaSplitFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "replica_split"
}

func (f *replicaSplitFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Splits a number of replicas across clusters, as a replica scheduling preference does",
		MarkdownDescription: "Returns a map from every cluster in `clusters` to the number of replicas it receives, computed by the " +
			"same planner as `kubefed_replica_scheduling_preference`, with no cluster involved. Strategy `kubefed` (the default) " +
			"behaves exactly like KubeFed's ReplicaSchedulingPreference planner; `balanced` divides what is left after minimums " +
			"in proportion to weight by the Webster (Sainte-Laguë) method, so 10 replicas over three equal clusters give 4/3/3 " +
			"rather than KubeFed's 4/4/2.",
		Parameters: []function.Parameter{
			function.Int64Parameter{
				Name:        "total_replicas",
				Description: "How many replicas to place, at least 0.",
			},
			function.ListParameter{
				Name:        "clusters",
				ElementType: types.StringType,
				Description: "The candidate clusters. Each one appears in the result, with 0 when it gets nothing.",
			},
			function.DynamicParameter{
				Name: "preferences",
				Description: "A map from a cluster name or `\"*\"` (every other cluster) to an object with the optional " +
					"attributes `min_replicas` (default 0), `max_replicas` (default unbounded) and `weight` (default 0). " +
					"A cluster with neither its own entry nor `\"*\"` gets 0. An empty map means `{\"*\" = {weight = 1}}`.",
				AllowNullValue: true,
			},
			function.DynamicParameter{
				Name: "options",
				Description: "An object with the optional attributes `strategy` (`\"kubefed\"` or `\"balanced\"`), `rebalance` (bool, " +
					"default false: replicas that run where `current` says stay there), `key` (the workload's `namespace/name`, " +
					"which seeds the tie-break between equal clusters; default `\"\"`), `current` (map of the replicas each cluster runs " +
					"now), `capacity` (map of how many each cluster can run), `overflow` (bool, default true: with `rebalance` and " +
					"`kubefed`, a cluster cut by its capacity also keeps the cut part, as KubeFed schedules it; false gives what the " +
					"preference resource plans), `weight_by` (`\"static\"` or `\"available_capacity\"`), `max_clusters` (number), " +
					"`spread` (object with `by_label`, `min_groups`, `max_groups`) and `cluster_labels` (map from cluster to its " +
					"labels, which `spread` groups by). `{}` means all defaults.",
				AllowNullValue: true,
			},
		},
		Return: function.MapReturn{ElementType: types.Int64Type},
	}
}

func (f *replicaSplitFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var (
		total       int64
		clusters    []string
		preferences types.Dynamic
		options     types.Dynamic
	)
	resp.Error = function.ConcatFuncErrors(req.Arguments.Get(ctx, &total, &clusters, &preferences, &options))
	if resp.Error != nil {
		return
	}
	in, overflow, argument, err := replicaSplitInput(total, clusters, preferences, options)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(argument, err.Error())
		return
	}
	result, err := scheduling.Plan(in)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(replicaSplitArgument(err), err.Error())
		return
	}
	replicas := result.Replicas
	if !overflow {
		replicas = result.Plan
	}
	resp.Error = function.ConcatFuncErrors(resp.Result.Set(ctx, replicas))
}

// Positions of replica_split's arguments, for errors that point at them.
const (
	argTotalReplicas int64 = iota
	argClusters
	argPreferences
	argOptions
)

// replicaSplitArgument tells which argument a planner error is about.
func replicaSplitArgument(err error) int64 {
	var inputErr *scheduling.InputError
	if !errors.As(err, &inputErr) {
		return argTotalReplicas
	}
	switch inputErr.Field {
	case scheduling.FieldClusters:
		return argClusters
	case scheduling.FieldPreferences:
		return argPreferences
	case scheduling.FieldTotalReplicas:
		return argTotalReplicas
	default:
		return argOptions
	}
}

func replicaSplitInput(total int64, clusters []string, preferences, options types.Dynamic) (scheduling.Input, bool, int64, error) {
	in := scheduling.Input{TotalReplicas: total, Clusters: clusters}

	rawPreferences, err := tfvalue.Plain(preferences)
	if err != nil {
		return in, true, argPreferences, fmt.Errorf("preferences: %w", err)
	}
	in.Preferences, err = plain.Preferences(rawPreferences)
	if err != nil {
		return in, true, argPreferences, err
	}

	rawOptions, err := tfvalue.Plain(options)
	if err != nil {
		return in, true, argOptions, fmt.Errorf("options: %w", err)
	}
	overflow, err := plain.SplitOptions(rawOptions, &in)
	return in, overflow, argOptions, err
}
