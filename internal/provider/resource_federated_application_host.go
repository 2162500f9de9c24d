package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/registry"
)

// What host_records says of an object's Federated<Kind> in the host.
//
//	value               written by                       means
//	current             plan, apply, refresh             the record holds what the configuration writes
//	missing             refresh                          the host holds no record of the object
//	differs: <parts>    refresh                          the record's parts (template, placement, ...) differ
//	not written         apply                            the apply could not write the record
//
// A plan sets every object of the set to current, so a record found
// behind, or left unwritten, shows as a change of that object's entry, and
// the apply, which writes every record of the set, rewrites it.
const (
	hostRecordCurrent    = "current"
	hostRecordMissing    = "missing"
	hostRecordNotWritten = "not written"
	hostRecordDiffers    = "differs: "
)

// hostRecordState compares the host's record of an object (nil when the
// host holds none) with the one the set writes, part by part, as a
// federated object's refresh does.
func hostRecordState(want registry.FederatedObject, host *registry.FederatedObject) string {
	if host == nil {
		return hostRecordMissing
	}
	var parts []string
	if !sameJSON(want.Template, host.Template) {
		parts = append(parts, "template")
	}
	if !sameJSON(want.Placement, host.Placement) {
		parts = append(parts, "placement")
	}
	if !sameJSON(comparableRules(want.Overrides), comparableRules(host.Overrides)) {
		parts = append(parts, "overrides")
	}
	if want.Orphan != host.Orphan {
		parts = append(parts, "deletion policy")
	}
	if want.Application != host.Application {
		parts = append(parts, "application label")
	}
	if len(parts) == 0 {
		return hostRecordCurrent
	}
	return hostRecordDiffers + strings.Join(parts, ", ")
}

// hostRecords reads each object's record from the host and says, by
// object key, how it compares with what the set writes, and whether the
// host holds a record of any object. The records are read from the run's
// list of each type and namespace, the lists taken at once: an object costs
// no request of its own, and a record the list lacks is missing without a
// read by name. A record that cannot be read keeps what prior says of it,
// with a warning.
func (r *federatedApplicationResource) hostRecords(ctx context.Context, set *appSet, prior types.Map,
	diags *diag.Diagnostics) (map[string]string, bool) {
	reg, err := r.objects.data.registry(ctx)
	if err != nil {
		diags.AddError("Cannot read the application from the host", err.Error())
		return nil, true
	}
	before := mapStrings(prior)
	var mu sync.Mutex
	out := map[string]string{}
	anyHeld := len(set.objects) == 0
	eachObject(set.objects, diags, func(o *appObject, diags *diag.Diagnostics) {
		key := o.key.String()
		want := o.in.hostObject(nil)
		host, err := reg.FindFederatedObject(ctx, o.in.ft, want.Namespace, want.Name)
		state, held := hostRecordState(want, host), err == nil
		if err != nil && !errors.Is(err, registry.ErrNotFound) {
			state, held = hostRecordCurrent, true
			if was, ok := before[key]; ok {
				state = was
			}
			diags.AddWarning(fmt.Sprintf("Cannot compare the host record of %s", o.key.Object()),
				fmt.Sprintf("The plan keeps what the last run said of %s %s in the host: %v. Plan again once the host answers.",
					o.in.ft.Federated.Kind, objectLocation(want.Namespace, want.Name), err))
		}
		mu.Lock()
		defer mu.Unlock()
		out[key], anyHeld = state, anyHeld || held
	})
	return out, anyHeld
}

// plannedHostRecords is what a plan says of the set's records: each
// written as the configuration says.
func plannedHostRecords(set *appSet) types.Map {
	out := map[string]string{}
	for _, o := range set.objects {
		out[o.key.String()] = hostRecordCurrent
	}
	return stringMap(out)
}
