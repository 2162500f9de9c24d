package provider

// Replacing a federated object re-applies it over what the members hold
// instead of deleting it everywhere first. Terraform replaces an object
// whose create failed on some clusters (it marks it tainted), and on
// -replace: deleting the object from every member and then creating it again
// would take down, for a moment, a workload that is running fine everywhere
// the first apply succeeded.
//
// Terraform hands the destroy half of a replacement the private data that
// the plan of its create half produced, and hands a plain destroy the
// state's own. So the plan of every create leaves a note naming the object
// and the clusters it will be placed on, the create itself never stores the
// note, and a delete that finds a note for its own object is the first half
// of a replacement: it removes the object only from the clusters that leave
// the placement and keeps the host's record for the create to take over.

// replacement is the note a create's plan leaves for the destroy half of a
// replacement (replacementNote).
type replacement struct {
	ID     string   `json:"id"`
	Placed []string `json:"placed"`
}

// stayingFor returns the clusters the object stays on when the delete of
// object id is the first half of its own replacement, and false for a
// plain delete (no note, or a note for another object).
func (n *replacement) stayingFor(id string) ([]string, bool) {
	if n == nil || n.ID != id {
		return nil, false
	}
	return n.Placed, true
}
