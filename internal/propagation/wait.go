package propagation

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/rollout"
)

// DefaultWaitInterval is how often a member is asked how a rollout does.
const DefaultWaitInterval = time.Second

var replicaSetsResource = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}

// WaitResult is how waiting on one member ended.
type WaitResult struct {
	Cluster string
	// Status is the last answer of the waiter: Done, Failed, or neither
	// when the wait ran out of time.
	Status rollout.Status
	// Health is the object's health at the last look.
	Health rollout.Health
	// Object is the object at the last look.
	Object map[string]any
	// TimedOut is true when the context ended before the waiter was done.
	TimedOut bool
	// Err is a failure to read the member.
	Err error
}

// Wait asks the member, every interval, how the object does, until the
// waiter says it is done or failed, or ctx ends. Reading errors are retried
// until then: a member that cannot be read times out.
func Wait(ctx context.Context, m Member, o Object, w rollout.Waiter, interval time.Duration) WaitResult {
	res := WaitResult{Cluster: m.Name}
	for {
		obs, err := Observe(ctx, m, o)
		if err == nil {
			res.Err = nil
			res.Status = w.Check(obs)
			res.Health = rollout.HealthOf(obs.Object)
			res.Object = obs.Object
			if res.Status.Done || res.Status.Failed {
				return res
			}
		} else {
			res.Err = err
		}
		select {
		case <-ctx.Done():
			res.TimedOut = true
			return res
		case <-time.After(interval):
		}
	}
}

// Observe reads what a waiter looks at on one member: the object and, for
// a workload, the ReplicaSets its selector matches (Deployments) and the
// pods of its current revision.
func Observe(ctx context.Context, m Member, o Object) (rollout.Observation, error) {
	obs := rollout.Observation{Now: time.Now()}
	live, found, err := Get(ctx, m, o)
	if err != nil {
		return obs, err
	}
	if !found {
		return obs, errors.New(o.String() + ": not found on the cluster")
	}
	obs.Object = live
	selector, ok, err := rollout.PodSelector(live)
	if err != nil || !ok {
		return obs, err
	}
	if o.Resource.Group == "apps" && o.Resource.Resource == "deployments" {
		list, err := m.Clients.Dynamic.Resource(replicaSetsResource).Namespace(o.Namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
		if err != nil {
			return obs, explain(m, o, err, Options{})
		}
		for _, rs := range list.Items {
			obs.ReplicaSets = append(obs.ReplicaSets, rs.Object)
		}
	}
	current, ok, err := rollout.CurrentPodSelector(live, obs.ReplicaSets)
	if err != nil || !ok {
		return obs, err
	}
	pods, err := m.Clients.Kubernetes.CoreV1().Pods(o.Namespace).List(ctx, metav1.ListOptions{LabelSelector: current.String()})
	if err != nil {
		return obs, explain(m, o, err, Options{})
	}
	obs.Pods = append([]corev1.Pod(nil), pods.Items...)
	return obs, nil
}
