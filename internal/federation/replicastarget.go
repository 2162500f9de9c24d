package federation

import (
	"errors"
	"fmt"
	"slices"
)

// scalableKinds are the kinds whose replica count a federation splits
// between clusters, as KubeFed's replica scheduling does.
var scalableKinds = []groupKind{{"apps", "Deployment"}, {"apps", "StatefulSet"}, {"apps", "ReplicaSet"}}

func scalable(k Key) bool { return slices.Contains(scalableKinds, groupKind{k.Group, k.Kind}) }

// ReplicasTarget returns the object of a set that receives each cluster's
// replica count: the one named, which must be a Deployment, StatefulSet or
// ReplicaSet of the set, or, when none is named, the set's one object of
// those kinds. The errors list the candidates.
func ReplicasTarget(objects []Key, named *ObjectRef) (Key, error) {
	var candidates []Key
	for _, k := range objects {
		if scalable(k) {
			candidates = append(candidates, k)
		}
	}
	if named != nil {
		k, err := named.resolve(objects)
		switch {
		case err != nil:
			return Key{}, fmt.Errorf("replicas_object: %w", err)
		case !scalable(k):
			return Key{}, fmt.Errorf("replicas_object: %s has no replicas to split; %s", k.Object(), scalableCandidates(candidates))
		}
		return k, nil
	}
	switch len(candidates) {
	case 1:
		return candidates[0], nil
	case 0:
		return Key{}, errors.New("the set holds no Deployment, StatefulSet or ReplicaSet for the cluster replicas to go to")
	}
	return Key{}, fmt.Errorf("the set holds %d objects the cluster replicas could go to (%s); name one with replicas_object", len(candidates), objectList(candidates))
}

func scalableCandidates(candidates []Key) string {
	if len(candidates) == 0 {
		return "the set holds no Deployment, StatefulSet or ReplicaSet"
	}
	return "the set's Deployments, StatefulSets and ReplicaSets: " + objectList(candidates)
}
