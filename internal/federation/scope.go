package federation

// Scope tells whether objects of a kind live in a namespace, and whether it
// knows the kind at all: a kind it does not know is left as written.
type Scope func(group, kind string) (namespaced, known bool)

// BuiltinScope is the scope of the kinds every Kubernetes API server
// serves, which need no cluster to know: what a set's objects are checked
// against before the enabled types can be read.
func BuiltinScope(group, kind string) (namespaced, known bool) {
	namespaced, known = builtinNamespaced[group+"/"+kind]
	return namespaced, known
}

// builtinNamespaced is, by "<group>/<Kind>", whether Kubernetes' own kinds
// are namespaced, as an API server's discovery says (a lab test compares
// them with a member's).
var builtinNamespaced = map[string]bool{
	"/Binding": true, "/ConfigMap": true, "/Endpoints": true, "/Event": true, "/LimitRange": true,
	"/PersistentVolumeClaim": true, "/Pod": true, "/PodTemplate": true, "/ReplicationController": true,
	"/ResourceQuota": true, "/Secret": true, "/Service": true, "/ServiceAccount": true,
	"/ComponentStatus": false, "/Namespace": false, "/Node": false, "/PersistentVolume": false,

	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     false,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   false,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        false,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": false,
	"admissionregistration.k8s.io/MutatingAdmissionPolicy":          false,
	"admissionregistration.k8s.io/MutatingAdmissionPolicyBinding":   false,
	"apiextensions.k8s.io/CustomResourceDefinition":                 false,
	"apiregistration.k8s.io/APIService":                             false,
	"apps/ControllerRevision":                                       true,
	"apps/DaemonSet":                                                true,
	"apps/Deployment":                                               true,
	"apps/ReplicaSet":                                               true,
	"apps/StatefulSet":                                              true,
	"autoscaling/HorizontalPodAutoscaler":                           true,
	"batch/CronJob":                                                 true,
	"batch/Job":                                                     true,
	"certificates.k8s.io/CertificateSigningRequest":                 false,
	"certificates.k8s.io/ClusterTrustBundle":                        false,
	"certificates.k8s.io/PodCertificateRequest":                     true,
	"coordination.k8s.io/Lease":                                     true,
	"discovery.k8s.io/EndpointSlice":                                true,
	"events.k8s.io/Event":                                           true,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                       false,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":       false,
	"networking.k8s.io/Ingress":                                     true,
	"networking.k8s.io/NetworkPolicy":                               true,
	"networking.k8s.io/IngressClass":                                false,
	"networking.k8s.io/IPAddress":                                   false,
	"networking.k8s.io/ServiceCIDR":                                 false,
	"node.k8s.io/RuntimeClass":                                      false,
	"policy/PodDisruptionBudget":                                    true,
	"rbac.authorization.k8s.io/ClusterRole":                         false,
	"rbac.authorization.k8s.io/ClusterRoleBinding":                  false,
	"rbac.authorization.k8s.io/Role":                                true,
	"rbac.authorization.k8s.io/RoleBinding":                         true,
	"resource.k8s.io/DeviceClass":                                   false,
	"resource.k8s.io/DeviceTaintRule":                               false,
	"resource.k8s.io/ResourceSlice":                                 false,
	"resource.k8s.io/ResourceClaim":                                 true,
	"resource.k8s.io/ResourceClaimTemplate":                         true,
	"scheduling.k8s.io/PriorityClass":                               false,
	"storage.k8s.io/CSIDriver":                                      false,
	"storage.k8s.io/CSINode":                                        false,
	"storage.k8s.io/StorageClass":                                   false,
	"storage.k8s.io/VolumeAttachment":                               false,
	"storage.k8s.io/VolumeAttributesClass":                          false,
	"storage.k8s.io/CSIStorageCapacity":                             true,
	"storagemigration.k8s.io/StorageVersionMigration":               false,
}
