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

type planWarning struct {
	path            path.Path
	summary, detail string
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
	diags.AddAttributeError(plannerErrorPath(err), "Invalid replica scheduling preference", err.Error())
}

// plannerErrorPath is the attribute a planner error is about.
func plannerErrorPath(err error) path.Path {
	var inputErr *scheduling.InputError
	if !errors.As(err, &inputErr) {
		return path.Root("clusters")
	}
	switch inputErr.Field {
	case scheduling.FieldTotalReplicas:
		return path.Root("total_replicas")
	case scheduling.FieldStrategy:
		return path.Root("strategy")
	case scheduling.FieldWeightBy:
		return path.Root("weight_by")
	case scheduling.FieldMaxClusters:
		return path.Root("max_clusters")
	case scheduling.FieldCapacity:
		return path.Root("capacity")
	case scheduling.FieldSpread:
		if inputErr.Key != "" {
			return path.Root("spread").AtName(inputErr.Key)
		}
		return path.Root("spread")
	case scheduling.FieldPreferences:
		if inputErr.Key != "" {
			return path.Root("clusters").AtMapKey(inputErr.Key)
		}
	}
	return path.Root("clusters")
}

// split computes the plan-time split: candidates from the registry snapshot
// and the selector, their health as recorded, their current counts read from
// the members when running replicas must stay, their capacity when
// capInputs is set (as recorded at refresh, or read now), then the planner.
// A planner error is an *scheduling.InputError; any other error means the
// split cannot be known before apply.
func (r *replicaSchedulingPreferenceResource) split(ctx context.Context, m *replicaSchedulingPreferenceModel,
	in scheduling.Input, capInputs *capacity.Inputs, prior priorRead, planning bool) (splitResult, []planWarning, error) {
	result := splitResult{replicas: map[string]int64{}, excluded: map[string]string{}, estimated: map[string]int64{}}
	if !r.data.hostKnown() {
		return result, nil, errors.New("the host cluster is not known yet")
	}
	candidates, registered, warnings, err := r.candidates(ctx, m, prior.seen)
	if err != nil {
		return result, nil, err
	}
	if fresh := unregisteredYet(candidates); len(fresh) > 0 {
		if planning && prior.seen == nil {
			return result, nil, &registeredInRunError{clusters: fresh}
		}
		candidates = slices.DeleteFunc(candidates, func(c runstate.Cluster) bool { return slices.Contains(fresh, c.Name) })
	}
	warnings = append(warnings, unregisteredPreferences(in.Preferences, registered)...)
	if in.Spread.ByLabel != "" {
		for _, c := range candidates {
			if !c.LabelsKnown {
				return result, nil, fmt.Errorf("the labels of cluster %q, which the spread groups by, are only known at apply", c.Name)
			}
		}
	}

	ready := r.probe(ctx, candidates, result.excluded)
	for name, reason := range result.excluded {
		result.replicas[name] = 0
		warnings = append(warnings, planWarning{path.Root("replicas"), "Cluster excluded from the split",
			fmt.Sprintf("Cluster %q is not ready (%s), so %s gives it no replicas; its share goes to the ready clusters.",
				name, reason, m.ID.ValueString())})
	}
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
		var unbounded []planWarning
		in.Capacity, unbounded = capacityBounds(m.ID.ValueString(), estimates)
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
	warnings = append(warnings, choiceWarnings(in, planned)...)
	warnings = append(warnings, capacityWarnings(m.ID.ValueString(), cutByCapacity(in, planned), estimates)...)
	return result, warnings, nil
}

// registeredInRunError says that the split would go to clusters this run
// registers: Terraform plans the preference once more right before applying
// it, and that plan sees them only if they were registered first.
type registeredInRunError struct{ clusters []string }

func (e *registeredInRunError) Error() string {
	return fmt.Sprintf("the split goes to %s, which this run registers", strings.Join(e.clusters, ", "))
}

// unregisteredYet names the candidates this run registers that the host
// does not hold yet.
func unregisteredYet(candidates []runstate.Cluster) []string {
	var fresh []string
	for _, c := range candidates {
		if c.NotInHostYet() {
			fresh = append(fresh, c.Name)
		}
	}
	return fresh
}

// candidates are the registered clusters the selector picks, leaving out
// those registered by someone else after the last refresh; registered names
// every cluster considered.
func (r *replicaSchedulingPreferenceResource) candidates(ctx context.Context, m *replicaSchedulingPreferenceModel,
	seen map[string]bool) ([]runstate.Cluster, map[string]bool, []planWarning, error) {
	snapshot, err := r.data.snapshot(ctx)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot read the registered clusters: %w", err)
	}
	selector, err := selectorOf(ctx, m.ClusterSelector)
	if err != nil {
		return nil, nil, nil, err
	}
	var candidates []runstate.Cluster
	var warnings []planWarning
	registered := map[string]bool{}
	for _, c := range snapshot.Clusters() {
		if objectset.RegisteredLater(seen, c) {
			warnings = append(warnings, planWarning{path.Root("replicas"), fmt.Sprintf("Cluster %q was registered after the preference was last read", c.Name),
				fmt.Sprintf("Cluster %q was registered after %s was last read (refreshed): the split leaves it out, so that the "+
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

// unregisteredPreferences warns of preferences for clusters that are not
// registered.
func unregisteredPreferences(preferences map[string]scheduling.Preference, registered map[string]bool) []planWarning {
	var warnings []planWarning
	for _, key := range slices.Sorted(maps.Keys(preferences)) {
		if key != scheduling.Wildcard && !registered[key] {
			warnings = append(warnings, planWarning{path.Root("clusters").AtMapKey(key), "Preference for an unregistered cluster",
				fmt.Sprintf("clusters[%q] names no registered cluster, so it has no effect. Registered clusters: %s.",
					key, strings.Join(slices.Sorted(maps.Keys(registered)), ", "))})
		}
	}
	return warnings
}

// choiceWarnings are the planner's own warnings about what the spread or
// max_clusters could not honour.
func choiceWarnings(in scheduling.Input, planned scheduling.Result) []planWarning {
	at := path.Root("max_clusters")
	if in.Spread.ByLabel != "" {
		at = path.Root("spread")
	}
	warnings := make([]planWarning, 0, len(planned.Warnings))
	for _, w := range planned.Warnings {
		warnings = append(warnings, planWarning{at, "The split cannot honour the spread", w})
	}
	return warnings
}

// probe sorts the candidates by the health the registry records for them:
// the ready ones are returned, the others go into excluded with the reason.
// The record is what the cluster resources' refresh probed in this same
// plan; probing again here could give another answer when Terraform plans
// the resource once more at apply, and an inconsistent plan with it.
// Clusters planned in this run count as ready: their registration fails at
// apply when they are not.
func (r *replicaSchedulingPreferenceResource) probe(ctx context.Context, candidates []runstate.Cluster,
	excluded map[string]string) []runstate.Cluster {
	var ready []runstate.Cluster
	for _, c := range candidates {
		health, recorded := r.data.run.Health(ctx, c.Name)
		if c.Planned || !recorded || health.Ready {
			ready = append(ready, c)
			continue
		}
		reason := health.Reason
		if reason == "" {
			reason = "ClusterNotReady"
		}
		excluded[c.Name] = strings.TrimSpace(reason + ": " + health.Message)
	}
	return ready
}

// currentReplicas reads each ready candidate's replica count from its member
// object, as KubeFed does, so that running replicas can stay where they are.
// A cluster without the object runs 0.
func (r *replicaSchedulingPreferenceResource) currentReplicas(ctx context.Context, m *replicaSchedulingPreferenceModel,
	ready []runstate.Cluster, warnings []planWarning) (map[string]int64, []planWarning) {
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
		warnings = append(warnings, planWarning{path.Root("replicas_path"), "Current replicas unknown",
			fmt.Sprintf("replicas_path: %v; the split treats every cluster as running none.", err)})
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
			warnings = append(warnings, planWarning{path.Root("rebalance"), "Current replicas unknown",
				fmt.Sprintf("Cannot read the replicas that %s runs on cluster %q (%v); the split treats it as running none.",
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
	selector, err := selectorOf(ctx, m.ClusterSelector)
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
	selector, err := selectorValue(ctx, stored.ClusterSelector)
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
