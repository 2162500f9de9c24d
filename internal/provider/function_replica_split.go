package provider

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
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
					"now) and `capacity` (map of how many each cluster can run). `{}` means all defaults.",
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
	in, argument, err := replicaSplitInput(total, clusters, preferences, options)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(argument, err.Error())
		return
	}
	result, err := scheduling.Plan(in)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(replicaSplitArgument(err), err.Error())
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Result.Set(ctx, result.Replicas))
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

func replicaSplitInput(total int64, clusters []string, preferences, options types.Dynamic) (scheduling.Input, int64, error) {
	in := scheduling.Input{TotalReplicas: total, Clusters: clusters}

	rawPreferences, err := plainValue(preferences)
	if err != nil {
		return in, argPreferences, fmt.Errorf("preferences: %w", err)
	}
	in.Preferences, err = schedulingPreferences(rawPreferences)
	if err != nil {
		return in, argPreferences, err
	}

	rawOptions, err := plainValue(options)
	if err != nil {
		return in, argOptions, fmt.Errorf("options: %w", err)
	}
	object, err := plainObject(rawOptions, "options", "strategy", "rebalance", "key", "current", "capacity")
	if err != nil {
		return in, argOptions, err
	}
	strategy, err := plainString(object["strategy"], "options.strategy")
	if err != nil {
		return in, argOptions, err
	}
	in.Strategy = scheduling.Strategy(strategy)
	if in.Key, err = plainString(object["key"], "options.key"); err != nil {
		return in, argOptions, err
	}
	if rebalance, ok := object["rebalance"]; ok && rebalance != nil {
		value, isBool := rebalance.(bool)
		if !isBool {
			return in, argOptions, fmt.Errorf("options.rebalance must be a bool, not %s", describePlain(rebalance))
		}
		in.Rebalance = value
	}
	if in.Current, err = countsByCluster(object["current"], "options.current"); err != nil {
		return in, argOptions, err
	}
	if in.Capacity, err = countsByCluster(object["capacity"], "options.capacity"); err != nil {
		return in, argOptions, err
	}
	return in, 0, nil
}

// schedulingPreferences reads the preferences map shared by the function and
// the replica scheduling preference: cluster key to optional min, max, weight.
func schedulingPreferences(raw any) (map[string]scheduling.Preference, error) {
	if raw == nil {
		return nil, nil
	}
	entries, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("preferences must be a map from cluster name or \"*\" to an object, not %s", describePlain(raw))
	}
	out := make(map[string]scheduling.Preference, len(entries))
	for cluster, entry := range entries {
		what := fmt.Sprintf("preferences[%q]", cluster)
		object, err := plainObject(entry, what, "min_replicas", "max_replicas", "weight")
		if err != nil {
			return nil, err
		}
		var preference scheduling.Preference
		if minimum, err := plainInt(object["min_replicas"], what+".min_replicas"); err != nil {
			return nil, err
		} else if minimum != nil {
			preference.MinReplicas = *minimum
		}
		if preference.MaxReplicas, err = plainInt(object["max_replicas"], what+".max_replicas"); err != nil {
			return nil, err
		}
		if weight, err := plainInt(object["weight"], what+".weight"); err != nil {
			return nil, err
		} else if weight != nil {
			preference.Weight = *weight
		}
		out[cluster] = preference
	}
	return out, nil
}

func countsByCluster(raw any, what string) (map[string]int64, error) {
	if raw == nil {
		return nil, nil
	}
	entries, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a map from cluster name to a number, not %s", what, describePlain(raw))
	}
	out := make(map[string]int64, len(entries))
	for cluster, entry := range entries {
		if _, isNumber := entry.(*big.Float); !isNumber && entry != nil {
			return nil, fmt.Errorf("%s[%q] must be a number, not %s", what, cluster, describePlain(entry))
		}
		count, err := plainInt(entry, fmt.Sprintf("%s[%q]", what, cluster))
		if err != nil {
			return nil, err
		}
		if count != nil {
			out[cluster] = *count
		}
	}
	return out, nil
}
