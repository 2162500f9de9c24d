package registry

// IdentityAnnotation records, on a KubeFedCluster the provider writes, the
// UID of the member's kube-system namespace as the registration's probe
// read it (member.Identity): a later plan that points the registration at
// another endpoint or credentials tells the same cluster from another one
// that answers there. A registration whose credentials may not read that
// namespace records none. KubeFed ignores annotations it does not know.
//
//	who                                  what
//	kubefed_federation_cluster's create  writes it, read beside the probe; one left out
//	and update (RegisterCluster,         (not readable) is removed by server-side apply
//	ApplyCluster)
//	the plan of a changed registration   reads it (through the run's snapshot) and fails
//	(probeAtPlan)                        when the planned endpoint answers as another cluster
//	every write to a member (propagation reads it, and refuses to write to a member that answers
//	through objectset, member.Pool's     as another cluster, once per run and connection; a
//	Confirm)                             removal through SecretConnectionAnnotation too
//	nobody else                          removes it: it goes with the KubeFedCluster
const IdentityAnnotation = "kubefed.terraform.io/cluster-identity"

// clusterAnnotations are the provider's annotations of c's KubeFedCluster.
func clusterAnnotations(c Cluster) map[string]string {
	annotations := map[string]string{}
	if granted, ok := c.Grants.annotation(); ok {
		annotations[GrantedTypesAnnotation] = granted
	}
	if c.Identity != "" {
		annotations[IdentityAnnotation] = c.Identity
	}
	if len(annotations) == 0 {
		return nil
	}
	return annotations
}
