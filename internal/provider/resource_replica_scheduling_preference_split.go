package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/capacity"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/objectset"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/scheduling"
)

var federatedKindPattern = regexp.MustCompile(`^Federated[A-Z][A-Za-z0-9]*$`)

// splitResult is the plan-time answer of the preference.
type splitResult struct {
	replicas map[string]int64
	unplaced int64
	excluded map[string]string
	// estimated is the capacity the split was bounded by, per cluster.
	estimated map[string]int64
}

// priorRead is what the resource's last refresh noted for both plans of the
// run: the clusters registered then, and the capacity it estimated.
type priorRead struct {
	seen     map[string]bool
	capacity *capacity.Note
}

func readNotes(ctx context.Context, private privateData, diags *diag.Diagnostics) priorRead {
	seen, seenDiags := registeredAtReadNote.Load(ctx, private)
	capacity, capacityDiags := capacityAtReadNote.Load(ctx, private)
	diags.Append(seenDiags...)
	diags.Append(capacityDiags...)
	return priorRead{seen: objectset.SeenSet(seen), capacity: capacity}
}

// plannerInput reads the planner's input from the plan. known is false when
// some input is only known at apply.
func (m *replicaSchedulingPreferenceModel) plannerInput(ctx context.Context) (scheduling.Input, bool, diag.Diagnostics) {
	var diags diag.Diagnostics
	in := scheduling.Input{
		TotalReplicas: m.TotalReplicas.ValueInt64(),
		Rebalance:     m.Rebalance.ValueBool(),
		Strategy:      scheduling.Strategy(m.Strategy.ValueString()),
		Key:           m.Namespace.ValueString() + "/" + m.Name.ValueString(),
	}
	for _, v := range []interface{ IsUnknown() bool }{m.Namespace, m.Name, m.TotalReplicas, m.Rebalance, m.Strategy,
		m.Clusters, m.TargetKind, m.ReplicasPath, m.Capacity} {
		if v.IsUnknown() {
			return in, false, diags
		}
	}
	if !fullyKnown(m.ClusterSelector) {
		return in, false, diags
	}
	if known, d := m.choiceInput(ctx, &in); !known || d.HasError() {
		diags.Append(d...)
		return in, false, diags
	}
	preferences := map[string]clusterPreferenceModel{}
	diags.Append(m.Clusters.ElementsAs(ctx, &preferences, false)...)
	if diags.HasError() {
		return in, false, diags
	}
	in.Preferences = map[string]scheduling.Preference{}
	for key, p := range preferences {
		if p.MinReplicas.IsUnknown() || p.MaxReplicas.IsUnknown() || p.Weight.IsUnknown() {
			return in, false, diags
		}
		preference := scheduling.Preference{MinReplicas: p.MinReplicas.ValueInt64(), Weight: p.Weight.ValueInt64()}
		if !p.MaxReplicas.IsNull() {
			maximum := p.MaxReplicas.ValueInt64()
			preference.MaxReplicas = &maximum
		}
		in.Preferences[key] = preference
	}
	return in, true, diags
}

func (m *replicaSchedulingPreferenceModel) setUnknownSplit() {
	m.Replicas = types.MapUnknown(types.Int64Type)
	m.UnplacedReplicas = types.Int64Unknown()
	m.ExcludedClusters = types.MapUnknown(types.StringType)
	m.EstimatedCapacity = types.MapUnknown(types.Int64Type)
}

// addPlannerError points the planner's complaint at the attribute it is about.
func addPlannerError(diags *diag.Diagnostics, err error) {
	diags.AddAttributeError(pathAt(scheduling.ErrorAt(err)), "Invalid replica scheduling preference", err.Error())
}

// pathAt is the attribute of the preference as the framework's path.
func pathAt(at scheduling.At) path.Path {
	p := path.Root(at.Attribute)
	if at.Name != "" {
		p = p.AtName(at.Name)
	}
	if at.Key != "" {
		p = p.AtMapKey(at.Key)
	}
	return p
}

// split computes the plan-time split: candidates from the registry snapshot
// and the selector, their health as recorded, their current counts read from
// the members when running replicas must stay, their capacity when
// capInputs is set (as recorded at refresh, or read now), then the planner.
// A planner error is an *scheduling.InputError; any other error means the
// split cannot be known before apply.
func (r *replicaSchedulingPreferenceResource) split(ctx context.Context, m *replicaSchedulingPreferenceModel,
	in scheduling.Input, capInputs *capacity.Inputs, prior priorRead, planning bool) (splitResult, []scheduling.Warning, error) {
	result := splitResult{replicas: map[string]int64{}, excluded: map[string]string{}, estimated: map[string]int64{}}
	if !r.data.hostKnown() {
		return result, nil, errors.New("the host cluster is not known yet")
	}
	candidates, registered, warnings, err := r.candidates(ctx, m, prior.seen)
	if err != nil {
		return result, nil, err
	}
	if fresh := runstate.NotInHostYet(candidates); len(fresh) > 0 {
		if planning && prior.seen == nil {
			return result, nil, &registeredInRunError{clusters: fresh}
		}
		candidates = slices.DeleteFunc(candidates, func(c runstate.Cluster) bool { return slices.Contains(fresh, c.Name) })
	}
	warnings = append(warnings, scheduling.UnregisteredPreferences(in.Preferences, registered)...)
	if in.Spread.ByLabel != "" {
		for _, c := range candidates {
			if !c.LabelsKnown {
				return result, nil, fmt.Errorf("the labels of cluster %q, which the spread groups by, are only known at apply", c.Name)
			}
		}
	}

	ready := r.data.run.Ready(ctx, candidates, result.excluded)
	for name := range result.excluded {
		result.replicas[name] = 0
	}
	warnings = append(warnings, scheduling.ExcludedWarnings(m.ID.ValueString(), result.excluded)...)
	in.Clusters = make([]string, 0, len(ready))
	in.ClusterLabels = make(map[string]map[string]string, len(ready))
	for _, c := range ready {
		in.Clusters = append(in.Clusters, c.Name)
		in.ClusterLabels[c.Name] = c.Labels
	}
	if !in.Rebalance {
		in.Current, warnings = r.currentReplicas(ctx, m, ready, warnings)
	}
	var estimates map[string]capacity.ClusterEstimate
	if capInputs != nil {
		estimates = r.estimates(ctx, m, *capInputs, ready, prior.capacity)
		var unbounded []scheduling.Warning
		in.Capacity, unbounded = capacity.Bounds(m.ID.ValueString(), estimates)
		warnings = append(warnings, unbounded...)
		result.estimated = in.Capacity
	}
	planned, err := scheduling.Plan(in)
	if err != nil {
		return result, nil, err
	}
	// Plan, not Replicas: a cluster is never planned more than it can hold,
	// even where KubeFed would keep the overflow there.
	maps.Copy(result.replicas, planned.Plan)
	maps.Copy(result.excluded, planned.Excluded)
	result.unplaced = planned.Unplaced
	warnings = append(warnings, scheduling.ChoiceWarnings(in, planned)...)
	warnings = append(warnings, capacity.CutWarnings(m.ID.ValueString(), scheduling.CutByCapacity(in, planned), estimates)...)
	return result, warnings, nil
}

// registeredInRunError says that the split would go to clusters this run
// registers: Terraform plans the preference once more right before applying
// it, and that plan sees them only if they were registered first.
type registeredInRunError struct{ clusters []string }

func (e *registeredInRunError) Error() string {
	return fmt.Sprintf("the split goes to %s, which this run registers", strings.Join(e.clusters, ", "))
}

// candidates are the registered clusters the selector picks, leaving out
// those registered by someone else after the last refresh; registered names
// every cluster considered.
func (r *replicaSchedulingPreferenceResource) candidates(ctx context.Context, m *replicaSchedulingPreferenceModel,
	seen map[string]bool) ([]runstate.Cluster, map[string]bool, []scheduling.Warning, error) {
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot read the registered clusters: %w", err)
	}
	selector, err := selectorOf(m.ClusterSelector, "cluster_selector")
	if err != nil {
		return nil, nil, nil, err
	}
	var candidates []runstate.Cluster
	var warnings []scheduling.Warning
	registered := map[string]bool{}
	for _, c := range snapshot.Clusters() {
		if objectset.RegisteredLater(seen, c) {
			warnings = append(warnings, scheduling.Warning{At: scheduling.At{Attribute: "replicas"}, Summary: fmt.Sprintf("Cluster %q was registered after the preference was last read", c.Name),
				Detail: fmt.Sprintf("Cluster %q was registered after %s was last read (refreshed): the split leaves it out, so that the "+
					"apply keeps the split the plan showed. The next plan that refreshes the preference considers it.", c.Name, m.ID.ValueString())})
			continue
		}
		registered[c.Name] = true
		if !c.LabelsKnown && selector != nil {
			return nil, nil, nil, fmt.Errorf("the labels of cluster %q are only known at apply", c.Name)
		}
		if selector == nil {
			candidates = append(candidates, c)
		} else if selected, _ := federation.SelectorMatches(selector, c.Labels); selected {
			// An invalid selector failed validation before this point.
			candidates = append(candidates, c)
		}
	}
	return candidates, registered, warnings, nil
}

// currentReplicas reads each ready candidate's replica count from its member
// object, as KubeFed does, so that running replicas can stay where they are.
// A cluster without the object runs 0.
func (r *replicaSchedulingPreferenceResource) currentReplicas(ctx context.Context, m *replicaSchedulingPreferenceModel,
	ready []runstate.Cluster, warnings []scheduling.Warning) (map[string]int64, []scheduling.Warning) {
	current := map[string]int64{}
	reg, err := r.data.registry(ctx)
	if err != nil {
		return current, warnings
	}
	t, err := reg.TypeOfFederatedKind(ctx, m.TargetKind.ValueString())
	if err != nil {
		// The type is enabled in this same run, so nothing of it runs yet.
		return current, warnings
	}
	pointer, err := federation.ParsePointer(m.ReplicasPath.ValueString())
	if err != nil {
		warnings = append(warnings, scheduling.Warning{At: scheduling.At{Attribute: "replicas_path"}, Summary: "Current replicas unknown",
			Detail: fmt.Sprintf("replicas_path: %v; the split treats every cluster as running none.", err)})
		return current, warnings
	}
	counts := make([]int64, len(ready))
	failures := make([]error, len(ready))
	overlap.Each(len(ready), 0, func(i int) {
		if !ready[i].Planned {
			counts[i], failures[i] = r.readReplicas(ctx, ready[i], t.Target, m, pointer)
		}
	})
	for i, c := range ready {
		if failures[i] != nil {
			warnings = append(warnings, scheduling.Warning{At: scheduling.At{Attribute: "rebalance"}, Summary: "Current replicas unknown",
				Detail: fmt.Sprintf("Cannot read the replicas that %s runs on cluster %q (%v); the split treats it as running none.",
					m.ID.ValueString(), c.Name, failures[i])})
			continue
		}
		if counts[i] > 0 {
			current[c.Name] = counts[i]
		}
	}
	return current, warnings
}

func (r *replicaSchedulingPreferenceResource) readReplicas(ctx context.Context, c runstate.Cluster,
	target registry.APIResource, m *replicaSchedulingPreferenceModel, pointer []string) (int64, error) {
	clients, err := r.data.members.Clients(c.Name, c.Connection)
	if err != nil {
		return 0, err
	}
	o := propagation.Object{Resource: target.Resource(), Name: m.Name.ValueString()}
	if target.Namespaced {
		o.Namespace = m.Namespace.ValueString()
	}
	live, found, err := propagation.Get(ctx, propagation.Member{Name: c.Name, Clients: clients}, o)
	if err != nil || !found {
		return 0, err
	}
	value, found, err := unstructured.NestedFieldNoCopy(live, pointer...)
	if err != nil || !found {
		return 0, err
	}
	switch n := value.(type) {
	case int64:
		return n, nil
	case float64:
		return int64(n), nil
	default:
		return 0, fmt.Errorf("%s is not a number", m.ReplicasPath.ValueString())
	}
}

// toStored is the host object the model describes.
func (m *replicaSchedulingPreferenceModel) toStored(ctx context.Context) (registry.SchedulingPreference, diag.Diagnostics) {
	var diags diag.Diagnostics
	stored := registry.SchedulingPreference{
		Namespace:     m.Namespace.ValueString(),
		Name:          m.Name.ValueString(),
		TargetKind:    m.TargetKind.ValueString(),
		TotalReplicas: m.TotalReplicas.ValueInt64(),
		Rebalance:     m.Rebalance.ValueBool(),
		Strategy:      m.Strategy.ValueString(),
		ReplicasPath:  m.ReplicasPath.ValueString(),
		Clusters:      map[string]registry.ClusterPreference{},
	}
	preferences := map[string]clusterPreferenceModel{}
	diags.Append(m.Clusters.ElementsAs(ctx, &preferences, false)...)
	for key, p := range preferences {
		c := registry.ClusterPreference{MinReplicas: p.MinReplicas.ValueInt64(), Weight: p.Weight.ValueInt64()}
		if !p.MaxReplicas.IsNull() {
			maximum := p.MaxReplicas.ValueInt64()
			c.MaxReplicas = &maximum
		}
		stored.Clusters[key] = c
	}
	if len(preferences) == 0 {
		// What an empty map means, spelt out for a KubeFed reader, whose
		// planner gives nothing to clusters without a preference.
		stored.Clusters[scheduling.Wildcard] = registry.ClusterPreference{Weight: 1}
	}
	selector, err := selectorOf(m.ClusterSelector, "cluster_selector")
	if err != nil {
		diags.AddAttributeError(path.Root("cluster_selector"), "Invalid cluster_selector", err.Error())
	}
	if selector != nil {
		stored.ClusterSelector = selector
		stored.IntersectWithClusterSelector = true
	}
	diags.Append(m.Replicas.ElementsAs(ctx, &stored.Status.Replicas, false)...)
	diags.Append(m.ExcludedClusters.ElementsAs(ctx, &stored.Status.ExcludedClusters, false)...)
	stored.Status.UnplacedReplicas = m.UnplacedReplicas.ValueInt64()
	return stored, diags
}

// fromStored sets the model from the host object, keeping the prior
// spelling where two spellings mean the same (an empty clusters map and the
// explicit {"*" = {weight = 1}} it stands for). An import has no prior
// clusters, and reads them as the host spells them.
func (m *replicaSchedulingPreferenceModel) fromStored(ctx context.Context, stored *registry.SchedulingPreference) diag.Diagnostics {
	var diags diag.Diagnostics
	m.ID = types.StringValue(stored.Namespace + "/" + stored.Name)
	m.Namespace = types.StringValue(stored.Namespace)
	m.Name = types.StringValue(stored.Name)
	m.TargetKind = types.StringValue(stored.TargetKind)
	m.TotalReplicas = types.Int64Value(stored.TotalReplicas)
	m.Rebalance = types.BoolValue(stored.Rebalance)
	m.Strategy = types.StringValue(valueOr(stored.Strategy, string(scheduling.KubeFed)))
	m.ReplicasPath = types.StringValue(valueOr(stored.ReplicasPath, "/spec/replicas"))

	onlyDefault := len(stored.Clusters) == 1 && stored.Clusters[scheduling.Wildcard] == registry.ClusterPreference{Weight: 1}
	priorEmpty := !m.Clusters.IsNull() && !m.Clusters.IsUnknown() && len(m.Clusters.Elements()) == 0
	keepPriorSpelling := onlyDefault && priorEmpty
	if !keepPriorSpelling {
		preferences := map[string]clusterPreferenceModel{}
		for key, c := range stored.Clusters {
			p := clusterPreferenceModel{MinReplicas: types.Int64Value(c.MinReplicas), Weight: types.Int64Value(c.Weight),
				MaxReplicas: types.Int64Null()}
			if c.MaxReplicas != nil {
				p.MaxReplicas = types.Int64Value(*c.MaxReplicas)
			}
			preferences[key] = p
		}
		var d diag.Diagnostics
		m.Clusters, d = types.MapValueFrom(ctx, clusterPreferenceType, preferences)
		diags.Append(d...)
	}
	selector, err := selectorValue(stored.ClusterSelector)
	if err != nil {
		diags.AddAttributeError(path.Root("cluster_selector"), "Cannot read the cluster selector", err.Error())
	}
	m.ClusterSelector = selector
	if stored.Status.Replicas != nil {
		m.Replicas = int64MapValue(ctx, stored.Status.Replicas, &diags)
		m.ExcludedClusters = stringMap(stored.Status.ExcludedClusters)
		m.UnplacedReplicas = types.Int64Value(stored.Status.UnplacedReplicas)
	} else if m.Replicas.IsNull() || m.Replicas.IsUnknown() {
		// A host whose CRD drops the status (KubeFed's): nothing computed yet.
		m.Replicas = types.MapValueMust(types.Int64Type, nil)
		m.ExcludedClusters = types.MapValueMust(types.StringType, nil)
		m.UnplacedReplicas = types.Int64Value(0)
	}
	return diags
}

func int64MapValue(ctx context.Context, values map[string]int64, diags *diag.Diagnostics) types.Map {
	if values == nil {
		values = map[string]int64{}
	}
	out, d := types.MapValueFrom(ctx, types.Int64Type, values)
	diags.Append(d...)
	return out
}

func valueOr(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}
