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

	rawPreferences, err := plainValue(preferences)
	if err != nil {
		return in, true, argPreferences, fmt.Errorf("preferences: %w", err)
	}
	in.Preferences, err = schedulingPreferences(rawPreferences)
	if err != nil {
		return in, true, argPreferences, err
	}

	rawOptions, err := plainValue(options)
	if err != nil {
		return in, true, argOptions, fmt.Errorf("options: %w", err)
	}
	overflow, err := splitOptions(rawOptions, &in)
	return in, overflow, argOptions, err
}

// splitOptions reads the options argument into in, and whether the result
// includes KubeFed's overflow.
func splitOptions(raw any, in *scheduling.Input) (bool, error) {
	object, err := plainObject(raw, "options", "strategy", "rebalance", "key", "current", "capacity", "overflow",
		"weight_by", "max_clusters", "spread", "cluster_labels")
	if err != nil {
		return true, err
	}
	strategy, err := plainString(object["strategy"], "options.strategy")
	if err != nil {
		return true, err
	}
	in.Strategy = scheduling.Strategy(strategy)
	if in.Key, err = plainString(object["key"], "options.key"); err != nil {
		return true, err
	}
	weightBy, err := plainString(object["weight_by"], "options.weight_by")
	if err != nil {
		return true, err
	}
	in.WeightBy = scheduling.WeightBy(weightBy)
	if in.Rebalance, err = plainBool(object["rebalance"], "options.rebalance", false); err != nil {
		return true, err
	}
	overflow, err := plainBool(object["overflow"], "options.overflow", true)
	if err != nil {
		return true, err
	}
	if in.Current, err = countsByCluster(object["current"], "options.current"); err != nil {
		return true, err
	}
	if in.Capacity, err = countsByCluster(object["capacity"], "options.capacity"); err != nil {
		return true, err
	}
	if err := choiceOptions(object, in); err != nil {
		return true, err
	}
	return overflow, nil
}

// choiceOptions reads max_clusters, spread and cluster_labels.
func choiceOptions(object map[string]any, in *scheduling.Input) error {
	maxClusters, err := plainInt(object["max_clusters"], "options.max_clusters")
	if err != nil {
		return err
	}
	if maxClusters != nil {
		in.MaxClusters = int(*maxClusters)
	}
	spread, err := plainObject(object["spread"], "options.spread", "by_label", "min_groups", "max_groups")
	if err != nil {
		return err
	}
	if in.Spread.ByLabel, err = plainString(spread["by_label"], "options.spread.by_label"); err != nil {
		return err
	}
	for name, into := range map[string]*int{"min_groups": &in.Spread.MinGroups, "max_groups": &in.Spread.MaxGroups} {
		n, err := plainInt(spread[name], "options.spread."+name)
		if err != nil {
			return err
		}
		if n != nil {
			*into = int(*n)
		}
	}
	return clusterLabels(object["cluster_labels"], in)
}

func clusterLabels(raw any, in *scheduling.Input) error {
	if raw == nil {
		return nil
	}
	entries, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("options.cluster_labels must be a map from cluster name to a map of labels, not %s", describePlain(raw))
	}
	in.ClusterLabels = make(map[string]map[string]string, len(entries))
	for cluster, entry := range entries {
		labels, err := plainStringMap(entry, fmt.Sprintf("options.cluster_labels[%q]", cluster))
		if err != nil {
			return err
		}
		in.ClusterLabels[cluster] = labels
	}
	return nil
}

func plainBool(v any, what string, fallback bool) (bool, error) {
	if v == nil {
		return fallback, nil
	}
	b, ok := v.(bool)
	if !ok {
		return fallback, fmt.Errorf("%s must be a bool, not %s", what, describePlain(v))
	}
	return b, nil
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
