package registry

import (
	"slices"
	"strings"
)

// GrantedTypesAnnotation records, on the KubeFedCluster of a cluster
// registered with join, the federated types the ClusterRole the join
// created on the member grants: FederatedTypeConfig names, sorted, comma
// separated (empty when it grants none). A plan reads it to refuse, before
// any write, an object of a type the member would refuse. KubeFed ignores
// annotations it does not know.
//
//	who                                  what
//	kubefed_federation_cluster's create  writes it with join; a registration without join
//	and update (RegisterCluster,         applies none, so server-side apply removes one
//	ApplyCluster)                        written before
//	the plan of a federated object       reads it (through the run's snapshot): a placed
//	                                     cluster whose list lacks the object's type fails it
//	nobody else                          removes it: it goes with the KubeFedCluster
const GrantedTypesAnnotation = "kubefed.terraform.io/granted-types"

// Grants is what the federation's identity on a member may write, as far as
// the host records it.
type Grants struct {
	// Limited is set for a cluster registered with join: its ClusterRole
	// grants the types in Types and no other. A cluster registered with
	// credentials of its own is not limited: the provider does not know
	// their rights, and the member answers for them at apply.
	Limited bool
	// Types are FederatedTypeConfig names (`deployments.apps`), sorted.
	Types []string
}

// Allows reports whether the member lets the federation write objects of
// the named federated type.
func (g Grants) Allows(typeName string) bool {
	return !g.Limited || slices.Contains(g.Types, typeName)
}

// annotation is the value of GrantedTypesAnnotation; false when the
// cluster records none.
func (g Grants) annotation() (string, bool) {
	if !g.Limited {
		return "", false
	}
	types := slices.Clone(g.Types)
	slices.Sort(types)
	return strings.Join(slices.Compact(types), ","), true
}

// grantsOf reads GrantedTypesAnnotation from a KubeFedCluster's annotations.
func grantsOf(annotations map[string]string) Grants {
	value, ok := annotations[GrantedTypesAnnotation]
	if !ok {
		return Grants{}
	}
	g := Grants{Limited: true, Types: []string{}}
	for _, t := range strings.Split(value, ",") {
		if t = strings.TrimSpace(t); t != "" {
			g.Types = append(g.Types, t)
		}
	}
	slices.Sort(g.Types)
	return g
}
