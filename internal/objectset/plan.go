package objectset

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/overlap"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/propagation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/reconcile"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// Planned is what the plan computes for an object.
type Planned struct {
	Placed   []string
	Rendered map[string]string
	// objects are the real objects of the clusters rendered in this call,
	// kept in memory only: a Secret's values never reach the plan.
	objects map[string][]byte
	// Fresh are the placed clusters that this run registers and that a
	// selector picked for an object not read before: whether Terraform
	// applies the object before or after them is not known at plan.
	Fresh []string
}

// candidates are the clusters an object may be placed on, as the plan sees
// them.
type candidates struct {
	registered []federation.Cluster
	// upcoming are clusters that listed names may use but selectors do
	// not see yet: planned in this run with labels known at apply only, or
	// registered by this run after the object was last read.
	upcoming []string
	// late are clusters registered after the object was last read, by
	// someone else or by this run: selectors take them in at the next plan,
	// so that the plan Terraform makes again at apply comes out the same in
	// whatever order it applies the object and the registrations.
	late   []federation.Cluster
	byName map[string]runstate.Cluster
}

func candidatesOf(snapshot *runstate.Snapshot, seen map[string]bool) candidates {
	c := candidates{byName: map[string]runstate.Cluster{}}
	for _, cluster := range snapshot.Clusters() {
		if RegisteredLater(seen, cluster) {
			c.late = append(c.late, federation.Cluster{Name: cluster.Name, Labels: cluster.Labels})
			if cluster.InRun {
				c.byName[cluster.Name] = cluster
				c.upcoming = append(c.upcoming, cluster.Name)
			}
			continue
		}
		c.byName[cluster.Name] = cluster
		if cluster.LabelsKnown {
			c.registered = append(c.registered, federation.Cluster{Name: cluster.Name, Labels: cluster.Labels})
		} else {
			c.upcoming = append(c.upcoming, cluster.Name)
		}
	}
	return c
}

// Terraform plans each resource twice: once for the plan the user sees, and
// once more at apply, where the second plan must come out the same. A
// cluster that someone else registers in between would change which
// clusters a selector picks (where an object goes, how replicas split), and
// Terraform would reject the apply as inconsistent.
//
// So refresh notes the clusters registered when it read the resource (the
// provider keeps the note in the resource's private data, which Terraform
// hands to both plans). A plan leaves out of its label selectors any
// cluster registered after that read, this run's own included, and says so
// in a warning: the apply does what the plan showed, and the next plan takes
// the cluster in. Create and update drop the note, so that a plan made
// without refresh places on every registered cluster.

// SeenSet is the set of clusters a registered-at-read note names, or nil
// when there is no note.
func SeenSet(names *[]string) map[string]bool {
	if names == nil {
		return nil
	}
	seen := make(map[string]bool, len(*names))
	for _, n := range *names {
		seen[n] = true
	}
	return seen
}

// RegisteredLater reports whether the plan leaves cluster c out of label
// selectors: it was registered after the resource was read, by someone else
// or by this run. Terraform may apply the resource before or after this run
// registers it, and only a placement that ignores it comes out the same in
// the plan made again at apply either way.
func RegisteredLater(seen map[string]bool, c runstate.Cluster) bool {
	return seen != nil && !seen[c.Name]
}

// Desired places the object and renders it for each placed cluster. While
// planning, a placed cluster that is not ready is frozen: it keeps its entry
// of prior, or gets none.
func (e *Env) Desired(ctx context.Context, o *Object, snapshot *runstate.Snapshot, prior map[string]string, planning bool) (Planned, Problems) {
	return e.desiredAmong(ctx, o, candidatesOf(snapshot, o.Seen), prior, planning)
}

// desiredAmong is Desired with the candidates worked out: the objects of a
// set, which share them, are placed among the same.
func (e *Env) desiredAmong(ctx context.Context, o *Object, view candidates, prior map[string]string, planning bool) (Planned, Problems) {
	var problems Problems
	placed, ok := place(o, view, &problems)
	if !ok {
		return Planned{}, problems
	}
	if planning {
		warnIdleRules(o, view, placed, &problems)
	}
	if o.Type.Propagation == registry.Disabled {
		// The type's propagation is off: the object stays in the host and
		// no member is touched, neither to push nor to remove.
		problems.AddAttributeWarning(Root("type"), "Propagation of the type is disabled",
			fmt.Sprintf("Type %q has propagation = \"Disabled\": %s is kept in the host, and nothing is pushed to or removed from "+
				"member clusters until propagation is enabled again.", o.Type.Name(), o.Target))
		return Planned{Placed: slices.Sorted(maps.Keys(prior)), Rendered: maps.Clone(prior), objects: map[string][]byte{}}, problems
	}
	if refuseUngranted(o, view, placed, &problems); problems.HasError() {
		return Planned{}, problems
	}
	out := e.renderPlaced(ctx, o, view, placed, prior, planning, &problems)
	if planning && o.Seen == nil && o.PlacementSet && o.Placement.Clusters == nil {
		out.Fresh = registeredInRun(view, placed)
	}
	return out, problems
}

// place selects the clusters the object goes to, from the placement and
// the replicas.
func place(o *Object, view candidates, problems *Problems) ([]string, bool) {
	var placed []string
	if o.PlacementSet {
		var err error
		if placed, err = o.Placement.Select(view.registered, view.upcoming); err != nil {
			at := Root("placement").AtName("clusters")
			var unknown *federation.UnknownClusterError
			if !errors.As(err, &unknown) {
				at = Root("placement").AtName("cluster_selector")
			}
			problems.AddAttributeError(at, "Invalid placement", at.String()+": "+err.Error())
			return nil, false
		}
		if len(view.late) > 0 && o.Placement.Clusters == nil {
			warnLate(o, view, problems)
		}
		if o.Placement.Clusters == nil && o.Placement.Selector != nil && len(placed) == 0 {
			problems.AddAttributeWarning(Root("placement").AtName("cluster_selector"), "The cluster selector matches no cluster",
				fmt.Sprintf("%s is placed on no cluster: no registered cluster has the labels the selector asks for.", o.Target))
		}
	}
	if o.Replicas != nil {
		keys, err := federation.Placement{Clusters: slices.Sorted(maps.Keys(o.Replicas))}.Select(view.registered, view.upcoming)
		if err != nil {
			problems.AddAttributeError(Root("cluster_replicas"), "Invalid cluster_replicas", "cluster_replicas: "+err.Error())
			return nil, false
		}
		if o.PlacementSet {
			keys = slices.DeleteFunc(keys, func(c string) bool { return !slices.Contains(placed, c) })
		}
		placed = keys
	}
	if placed == nil {
		placed = []string{}
	}
	return placed, true
}

// ungranted names, sorted, the placed clusters registered with join whose
// federated types do not include typeName: their members refuse to write
// the object. A cluster whose join's types are known at apply only is not
// named.
func ungranted(typeName string, placed []string, clusters map[string]runstate.Cluster) []string {
	var out []string
	for _, name := range placed {
		c, ok := clusters[name]
		if ok && !c.GrantsUnknown && !c.Grants.Allows(typeName) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// refuseUngranted fails the plan of an object placed on a joined cluster
// that does not grant its type, before anything is written: the member
// would refuse the write with a 403 at apply.
func refuseUngranted(o *Object, view candidates, placed []string, problems *Problems) {
	typeName := o.Type.Name()
	for _, name := range ungranted(typeName, placed, view.byName) {
		granted := view.byName[name].Grants.Types
		problems.AddAttributeError(Root("type"), fmt.Sprintf("Cluster %q does not grant type %q", name, typeName),
			fmt.Sprintf("%s is placed on cluster %q, which is registered with join and grants the federation only the types of its "+
				"join.federated_types (%s): its member would refuse to write the object. Add %q (kubefed_federated_type.<name>.name) "+
				"to join.federated_types of the kubefed_federation_cluster named %q, or leave the cluster out of the placement.",
				o.Target, name, grantedList(granted), typeName, name))
	}
}

// grantedList is a join's federated types in a message.
func grantedList(types []string) string {
	if len(types) == 0 {
		return "none"
	}
	return strings.Join(types, ", ")
}

// renderPlaced renders the object for each placed cluster, freezing the
// ones not ready while planning.
func (e *Env) renderPlaced(ctx context.Context, o *Object, view candidates, placed []string,
	prior map[string]string, planning bool, problems *Problems) Planned {
	out := Planned{Placed: placed, Rendered: map[string]string{}, objects: map[string][]byte{}}
	warned := false
	for _, name := range placed {
		c := view.byName[name]
		if planning && !c.Planned {
			if health, ok := e.Run.Health(ctx, name); ok && !health.Ready {
				if was, ok := prior[name]; ok {
					out.Rendered[name] = was
				}
				problems.AddWarning(fmt.Sprintf("Cluster %q is not ready: nothing is planned for it", name),
					fmt.Sprintf("%s keeps what cluster %q holds (%s: %s). When the cluster is back, the next plan shows the pending change.",
						o.Target, name, health.Reason, health.Message))
				continue
			}
		}
		was, holds := prior[name]
		rendered, err := o.render(federation.Cluster{Name: name, Labels: c.Labels}, holds, heldAdopted(was))
		if err != nil {
			AddRenderError(problems, o.TemplateAt, err)
			return out
		}
		if !warned {
			for _, w := range rendered.Warnings {
				problems.AddAttributeWarning(o.TemplateAt, "Template field dropped", w)
			}
			warned = true
		}
		addNotes(problems, rendered.Notes)
		out.Rendered[name] = rendered.Display
		out.objects[name] = rendered.Object
	}
	return out
}

// addNotes shows the engine's remarks on how an override applied, each at
// its patch.
func addNotes(problems *Problems, notes []federation.Note) {
	for _, n := range notes {
		problems.AddAttributeWarning(Root("overrides").AtListIndex(n.Rule).AtName("patches").AtListIndex(n.Patch),
			fmt.Sprintf("Override applied as KubeFed did on cluster %q", n.Cluster), n.String())
	}
}

// warnIdleRules names the override rules that target by name a cluster
// that is not registered or not placed: they change nothing.
func warnIdleRules(o *Object, view candidates, placed []string, problems *Problems) {
	for i, rule := range o.Overrides {
		if rule.Cluster == "" {
			continue
		}
		at := Root("overrides").AtListIndex(i).AtName("cluster")
		switch _, registered := view.byName[rule.Cluster]; {
		case !registered:
			problems.AddAttributeWarning(at, "Override for a cluster that is not registered",
				fmt.Sprintf("overrides[%d] targets cluster %q, which is not registered, so it changes nothing. Registered clusters: %s.",
					i, rule.Cluster, strings.Join(slices.Sorted(maps.Keys(view.byName)), ", ")))
		case !slices.Contains(placed, rule.Cluster):
			problems.AddAttributeWarning(at, "Override for a cluster the object is not placed on",
				fmt.Sprintf("overrides[%d] targets cluster %q, which %s is not placed on, so it changes nothing.", i, rule.Cluster, o.Target))
		}
	}
}

// registeredInRun names the placed clusters that this run registers and
// the host does not hold yet.
func registeredInRun(view candidates, placed []string) []string {
	var fresh []string
	for _, name := range placed {
		if view.byName[name].NotInHostYet() {
			fresh = append(fresh, name)
		}
	}
	return fresh
}

// warnLate names the clusters the placement would select that were
// registered after the object was read, and so are left to the next plan.
func warnLate(o *Object, view candidates, problems *Problems) {
	all, err := o.Placement.Select(append(slices.Clone(view.registered), view.late...), nil)
	if err != nil {
		return
	}
	for _, c := range view.late {
		if !slices.Contains(all, c.Name) {
			continue
		}
		if _, inRun := view.byName[c.Name]; inRun {
			problems.AddWarning("Clusters this run registers are taken in by the next plan",
				fmt.Sprintf("%s matches cluster %q, which this run registers: this apply leaves the object where it is, and the "+
					"next plan places it on %q too.", o.Target, c.Name, c.Name))
			continue
		}
		problems.AddWarning(fmt.Sprintf("Cluster %q was registered after the object was last read", c.Name),
			fmt.Sprintf("%s matches cluster %q, which was registered after the object was last read (refreshed): the plan "+
				"leaves it out, so that the apply does what the plan showed. The next plan that refreshes the object places it "+
				"there.", o.Target, c.Name))
	}
}

// CheckMembers asks each member that gets a changed object whether it
// accepts it, with a server-side dry run, and each cluster the object is
// new to whether it holds one already: one the provider did not write is
// adopted with the configuration's consent (adopt), and refused without.
// An adopted cluster's rendered object is marked so (out is changed).
func (e *Env) CheckMembers(ctx context.Context, o *Object, snapshot *runstate.Snapshot, out Planned,
	prior map[string]string, force bool) Problems {
	var problems Problems
	dryRun := e.Settings.DryRun
	members := map[string]propagation.Member{}
	fresh := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(out.objects)) {
		if prior[name] == out.Rendered[name] {
			continue
		}
		if _, held := prior[name]; !held {
			fresh[name] = true
		}
		if m, err := e.Member(snapshot, name); err == nil {
			members[name] = m
			confirmAhead(ctx, m)
		}
	}
	if !dryRun && len(fresh) == 0 {
		return problems
	}
	opts := e.options(force, e.Settings.RequestTimeout)
	results := propagation.FanOut(ctx, slices.Sorted(maps.Keys(members)), opts, func(ctx context.Context, cluster string) (memberCheck, error) {
		return checkMember(ctx, members[cluster], o.Target, out.objects[cluster], opts, fresh[cluster], dryRun)
	})
	for _, res := range results {
		addServerWarnings(&problems, o.Target, res.Cluster, res.Value.Answer)
		addReclaimWarning(&problems, o.Target, res.Cluster, res.Value.Answer, "The apply sets")
		if res.Value.foreign {
			adoptOrRefuse(o, out, res.Cluster, &problems)
		}
		if res.Err != nil {
			addDryRunError(&problems, o, propagation.Result[propagation.Answer]{Cluster: res.Cluster, Err: res.Err})
		}
	}
	return problems
}

// confirmAhead starts confirming the member's identity while the plan asks
// it about the object: the apply that follows in the same process writes to
// it, and finds the answer there instead of asking for it in sequence
// before its first write. The answer is kept for the run, so the request
// must not end with the plan's call.
func confirmAhead(ctx context.Context, m propagation.Member) {
	if m.Confirm != nil {
		overlap.Start(func() { _ = m.Confirm(context.WithoutCancel(ctx)) })
	}
}

// memberCheck is what a plan learns of one member: its answer to the dry
// run, and whether it holds the object without the provider having written
// it.
type memberCheck struct {
	propagation.Answer
	foreign bool
}

// checkMember asks one member whether it accepts the object (a dry run)
// and, for a cluster the object is new to, whose the object it holds
// already is: the dry run's answer says whether there is one, and only
// then, or when there is no dry run, is the object read.
func checkMember(ctx context.Context, m propagation.Member, o propagation.Object, rendered []byte, opts propagation.Options,
	fresh, dryRun bool) (memberCheck, error) {
	var check memberCheck
	var err error
	if dryRun {
		check.Answer, err = propagation.DryRun(ctx, m, o, rendered, opts)
		if !fresh || (err == nil && !check.Found) {
			return check, err
		}
	}
	live, found, gerr := propagation.Get(ctx, m, o)
	if gerr != nil {
		return check, gerr
	}
	check.Found = found
	check.foreign = found && federation.OwnershipOf(live, opts.FieldManager) == federation.Foreign
	return check, err
}

// adoptOrRefuse handles an object a cluster holds that the provider did not
// write: with adopt, the plan marks it adopted there; without, it refuses.
func adoptOrRefuse(o *Object, out Planned, cluster string, problems *Problems) {
	if !o.Adopt {
		consent := "set adopt = true"
		if o.Application != "" {
			consent = "list it in adopt_objects (or set adopt = true for every object of the set)"
		}
		problems.AddAttributeError(Root("adopt"), fmt.Sprintf("Cluster %q already holds %s", cluster, o.Target),
			fmt.Sprintf("%s exists on cluster %q, and this provider did not create it: someone or something else manages it. "+
				"Applying would take it over and a destroy would delete it, so the plan stops here. To take it over, %s: "+
				"the apply then writes the fields the template sets, and a destroy or a placement that leaves the cluster "+
				"gives the object back instead of deleting it. Otherwise delete it on the cluster, or leave cluster %q out "+
				"of the placement.", o.Target, cluster, consent, cluster))
		return
	}
	if err := out.adopt(cluster); err != nil {
		problems.AddAttributeError(Root("adopt"), fmt.Sprintf("Cannot adopt %s on cluster %q", o.Target, cluster), err.Error())
		return
	}
	problems.AddWarning(fmt.Sprintf("Cluster %q already holds %s: adopted", cluster, o.Target),
		fmt.Sprintf("%s exists on cluster %q without this provider having created it, and adopt = true takes it over: the apply "+
			"writes the fields the template sets and marks it %s. A destroy, or a placement that leaves the cluster, gives it "+
			"back (the mark, the managed label and the provider's fields taken off, the object left in place) unless "+
			"deletion_policy = %q.", o.Target, cluster, federation.AdoptedAnnotation, DeletionPolicyDeleteAdopted))
}

// adopt marks the object rendered for cluster adopted.
func (p Planned) adopt(cluster string) error {
	marked, err := markAdopted(federation.Rendered{Display: p.Rendered[cluster], Object: p.objects[cluster]})
	if err != nil {
		return err
	}
	p.Rendered[cluster], p.objects[cluster] = marked.Display, marked.Object
	return nil
}

// addDryRunError reports a dry run's failure: an error when the member
// objects to the object, a warning when it could not check it. Fields
// another tool holds are a warning: only the write fails on them, and a
// plan that Terraform makes before a destroy must not stop it.
func addDryRunError(problems *Problems, o *Object, res propagation.Result[propagation.Answer]) {
	var conflict *propagation.ConflictError
	if errors.As(res.Err, &conflict) {
		problems.AddAttributeWarning(Root("force_conflicts"), fmt.Sprintf("Another tool manages fields of the object on cluster %q", res.Cluster),
			res.Err.Error()+"\n\nAn apply that writes the object there fails on them unless force_conflicts = true; removing the "+
				"object does not.")
		return
	}
	if propagation.Rejects(res.Err) {
		problems.AddAttributeError(o.TemplateAt, fmt.Sprintf("Cluster %q rejects the object", res.Cluster),
			fmt.Sprintf("A server-side dry run of %s on cluster %q failed: %v", o.Target, res.Cluster, res.Err))
		return
	}
	problems.AddWarning(fmt.Sprintf("Cluster %q could not validate the object", res.Cluster),
		fmt.Sprintf("The server-side dry run was not possible, so the object is only checked at apply: %v", res.Err))
}

// PendingRollouts are the clusters whose last rollout did not finish, when
// apply waits for rollouts.
func PendingRollouts(o *Object, priorStatus map[string]reconcile.Status) map[string]bool {
	pending := map[string]bool{}
	if !o.Waiter.Needed() {
		return pending
	}
	for cluster, s := range priorStatus {
		if s.RolloutUnfinished() {
			pending[cluster] = true
		}
	}
	return pending
}

// OutcomeKnown reports whether a plan keeps the prior status and health of
// a set: apply has nothing to do for any object, and no cluster's last
// rollout is unfinished (apply waits for it again).
func OutcomeKnown(set *Set, held, planned map[string]map[string]string, priorStatus map[string]map[string]reconcile.Status) bool {
	if !maps.EqualFunc(held, planned, maps.Equal) {
		return false
	}
	for _, o := range set.Objects {
		if len(PendingRollouts(o, priorStatus[o.Key.String()])) > 0 {
			return false
		}
	}
	return true
}

// HealthAfter is each cluster's health after an apply: what the apply saw
// of the clusters it touched, what the state had of the others, for the
// clusters that hold the object.
func HealthAfter(prior map[string]rollout.Health, record reconcile.Record, seen map[string]map[string]any) map[string]rollout.Health {
	health := maps.Clone(prior)
	if health == nil {
		health = map[string]rollout.Health{}
	}
	for cluster, obj := range seen {
		if reportsHealth(record.Held[cluster], obj) {
			health[cluster] = rollout.HealthOf(obj)
		} else {
			delete(health, cluster)
		}
	}
	for cluster := range health {
		if _, holds := record.Held[cluster]; !holds {
			delete(health, cluster)
		}
	}
	return health
}
