package provider

import (
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/runstate"
)

// Terraform plans each resource twice: once for the plan the user sees, and
// once more at apply, where the second plan must come out the same. A
// cluster that someone else registers in between would change which
// clusters a selector picks (where an object goes, how replicas split), and
// Terraform would reject the apply as inconsistent.
//
// So refresh notes, in the resource's private data, the clusters registered
// when it read the resource; Terraform hands that note to both plans. A plan
// leaves out of its label selectors any cluster registered after that
// read, this run's own included, and says so in a warning: the apply does
// what the plan showed, and the next plan takes the cluster in.
// Create and update drop the note, so that a plan made without refresh
// places on every registered cluster.

// seenSet is the set of clusters a registered-at-read note names, or nil
// when there is no note.
func seenSet(names *[]string) map[string]bool {
	if names == nil {
		return nil
	}
	seen := make(map[string]bool, len(*names))
	for _, n := range *names {
		seen[n] = true
	}
	return seen
}

// registeredLater reports whether the plan leaves cluster c out of label
// selectors: it was registered after the resource was read, by someone else
// or by this run. Terraform may apply the resource before or after this run
// registers it, and only a placement that ignores it comes out the same in
// the plan made again at apply either way.
func registeredLater(seen map[string]bool, c runstate.Cluster) bool {
	return seen != nil && !seen[c.Name]
}
