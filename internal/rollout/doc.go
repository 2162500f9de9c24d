// Package rollout decides, as pure functions over live objects, whether an
// applied object runs on a member cluster, how it is doing there, and in
// which order clusters are updated. Reading the objects and pods, polling,
// timeouts and the state are the caller's.
//
// # Waiting on one cluster
//
// [NewWaiter] compiles a [Config] (the wait attribute) for a kind;
// [Validate] reports its [InputError]s without a kind, for terraform
// validate. [Waiter.Check] takes an [Observation] (the live object, and
// for a rollout the pods [CurrentPodSelector] selects and, for a
// Deployment, the ReplicaSets its selector matches) and returns a
// [Status]: Done, Failed with a Reason, or neither, with replica counts and
// a one-line message. [Waiter.Needed] says whether there is anything to
// wait for at all.
//
// The rollout is waited for when Config.Rollout says so or, when it is
// unset, for apps Deployments, StatefulSets and DaemonSets
// ([WaitsForRollout]). [RolloutStatus] decides it as kubectl rollout status
// does: the controller has observed the latest generation, and
//   - a Deployment's updated, ready and available replicas all equal
//     spec.replicas (1 when unset) and no old replica remains
//     (status.replicas equals status.updatedReplicas); a Progressing
//     condition with reason ProgressDeadlineExceeded fails it;
//   - a StatefulSet with the OnDelete strategy is done once observed;
//     with a partition above 0, its ready and available replicas equal
//     spec.replicas and at least spec.replicas minus the partition are
//     updated; otherwise its ready and available replicas equal
//     spec.replicas and status.updateRevision equals
//     status.currentRevision (ready replicas count as available where the
//     API server reports no available ones);
//   - a DaemonSet with the OnDelete strategy is done once observed;
//     otherwise its updated and available pods equal
//     status.desiredNumberScheduled.
//
// Objects of other kinds have no rollout.
//
// A rollout also fails early, instead of waiting for its timeout, when a
// pod of the revision rolling out has a container waiting in
// CrashLoopBackOff, ImagePullBackOff, ErrImagePull, InvalidImageName or
// CreateContainerConfigError, or has been unschedulable for longer than
// Config.UnschedulableFor ([DefaultUnschedulableFor] when zero); the
// message names the pod, the container, its restarts and last exit code
// ([FailingPods]). Only pods of the new revision count, so that fixing a
// crash-looping workload is not failed by the old pods it replaces: the
// pod-template-hash of the ReplicaSet whose template is the Deployment's
// (found as the Deployment controller finds it) for Deployments,
// status.updateRevision for StatefulSets, the template generation for
// DaemonSets. Until the controller has observed the latest generation no
// pod counts.
//
// Conditions, as in kubectl wait and hashicorp/kubernetes' wait.condition,
// must all hold on status.conditions; types and statuses compare without
// case, the status defaults to True, and a condition reported for an
// older generation than the object's (its observedGeneration, else the
// status's) does not count.
//
// Fields map a field path, in the syntax of federation.ParseFieldPath
// (status.phase, status.loadBalancer.ingress[0].ip,
// metadata.annotations["example.com/ready"]), to the value it must have:
//   - [AnyValue] ("*") waits for the field to be set to anything;
//   - a value with none of the characters \.+*?()|[]{}^$ is a literal:
//     the field must equal it ("Running", "true", "3");
//   - any other value is a regular expression, in Go's RE2 syntax and
//     unanchored as in hashicorp/kubernetes: "^(\d+(\.|$)){4}" matches an
//     IPv4 address, "^v1\.2$" exactly v1.2.
//
// Booleans compare as true and false, numbers in decimal. This differs
// from hashicorp/kubernetes in one respect: there every value is a
// regular expression, so "2" also matches 12; here it does not.
//
// # Health
//
// [HealthOf] turns any live object into the [Health] a cluster_health
// entry records: ready or not, replica counts (zeros and "no replica
// count" for kinds without spec.replicas) and a one-line message.
//
// # Staged rollouts across clusters
//
// [Plan] orders the placed clusters into stages: those the stages name, a
// [Wildcard] ("*") standing for every placed cluster no stage names, each
// stage sorted and split into chunks of at most max_concurrent_clusters;
// without stages, one stage of every cluster. Names that are not placed
// clusters come back as [Order].Unknown, and placed clusters no stage
// names (when no stage says "*") as Order.Unstaged, updated in a last
// stage: both are warnings, not errors. [ValidateStages] returns the
// errors ([StageError]): a cluster named twice, "*" more than once, empty
// stages and names. After each stage, [Continue] says whether the rollout
// goes on: no more than max_failed_clusters of the clusters updated so far
// may have failed.
package rollout
