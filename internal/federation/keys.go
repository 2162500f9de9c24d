package federation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Key identifies one object of a set. Its string form,
//
//	<group>/<version>/<Kind>/<namespace>/<name>   a namespaced object
//	<group>/<version>/<Kind>/<name>               a cluster-scoped object
//
// with an empty group for the core group ("/v1/ConfigMap/shop/settings",
// "apps/v1/Deployment/shop/web", "/v1/Namespace/shop"), is the key of the
// object in maps keyed by object. Group, version, kind, namespace and name
// cannot hold a "/", so the form parses back; sorted as strings, keys keep
// the objects of one group, version and kind together, by namespace and
// name.
type Key struct {
	Group, Version, Kind, Namespace, Name string
}

// keyOf is the key of an object with the identity id, whose apiVersion has
// been checked.
func keyOf(id Identity) Key {
	gv, _ := schema.ParseGroupVersion(id.APIVersion)
	return Key{Group: gv.Group, Version: gv.Version, Kind: id.Kind, Namespace: id.Namespace, Name: id.Name}
}

// ParseKey reads a key's string form back.
func ParseKey(s string) (Key, error) {
	parts := strings.Split(s, "/")
	var k Key
	switch len(parts) {
	case 4:
		k = Key{Group: parts[0], Version: parts[1], Kind: parts[2], Name: parts[3]}
	case 5:
		k = Key{Group: parts[0], Version: parts[1], Kind: parts[2], Namespace: parts[3], Name: parts[4]}
		if k.Namespace == "" {
			return Key{}, fmt.Errorf("object key %q has an empty namespace; a cluster-scoped object's key has no namespace part", s)
		}
	default:
		return Key{}, fmt.Errorf("object key %q is not <group>/<version>/<Kind>/<namespace>/<name> or <group>/<version>/<Kind>/<name>", s)
	}
	if k.Version == "" || k.Kind == "" || k.Name == "" {
		return Key{}, fmt.Errorf("object key %q lacks a version, kind or name", s)
	}
	return k, nil
}

func (k Key) String() string {
	if k.Namespace == "" {
		return strings.Join([]string{k.Group, k.Version, k.Kind, k.Name}, "/")
	}
	return strings.Join([]string{k.Group, k.Version, k.Kind, k.Namespace, k.Name}, "/")
}

// APIVersion is the object's apiVersion, as a manifest spells it.
func (k Key) APIVersion() string {
	return schema.GroupVersion{Group: k.Group, Version: k.Version}.String()
}

// Object names the object in messages, as in "Deployment shop/web" or
// "Namespace shop".
func (k Key) Object() string {
	if k.Namespace == "" {
		return k.Kind + " " + k.Name
	}
	return k.Kind + " " + k.Namespace + "/" + k.Name
}

// unversioned is the key without its version: one object may be served
// in several versions, and it is still one object.
func (k Key) unversioned() Key {
	k.Version = ""
	return k
}
