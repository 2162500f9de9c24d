package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestFullLab brings up a host and one member with every control
// component, and checks that workloads behave as on a real cluster. It
// needs the four Kubernetes binaries named by the KUBEFED_LAB_* variables
// and skips without them.
func TestFullLab(t *testing.T) {
	bins := map[string]string{}
	for _, env := range []string{EnvKubeAPIServer, EnvKubeControllerManager, EnvKubeScheduler, EnvKwok} {
		if bins[env] = os.Getenv(env); bins[env] == "" {
			t.Skipf("integration test: set %s (and the other KUBEFED_LAB_* binaries) to run it", env)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "lab")
	start := time.Now()
	l, err := Up(ctx, Config{
		Dir:      dir,
		Clusters: []string{"host", "berlin"},
		// Two nodes of 2 CPU: a pod of 3 CPU fits nowhere until a bigger
		// node comes.
		Members: map[string]Member{"berlin": {Region: "eu-central", Nodes: []NodePool{pool(2, "2", "8Gi")}}},
		Log:     t.Logf,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("full lab of two clusters ready in %v", time.Since(start))
	downed := false
	t.Cleanup(func() {
		if !downed {
			_ = l.Down(context.WithoutCancel(ctx))
		}
	})
	berlin := kubernetes.NewForConfigOrDie(l.Cluster("berlin").RESTConfig())
	host := kubernetes.NewForConfigOrDie(l.Host().RESTConfig())

	t.Run("every component runs and every node is Ready", func(t *testing.T) {
		st, err := l.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{
			"host":   {"kube-apiserver", "proxy", "kube-controller-manager"},
			"berlin": {"kube-apiserver", "proxy", "kube-controller-manager", "kube-scheduler", "kwok"},
		}
		for _, c := range st.Clusters {
			var got []string
			for _, comp := range c.Components {
				got = append(got, comp.Name)
				if comp.PID == 0 {
					t.Errorf("%s: %s does not run", c.Name, comp.Name)
				}
			}
			if !slices.Equal(got, want[c.Name]) {
				t.Errorf("%s runs %v, want %v", c.Name, got, want[c.Name])
			}
		}
		if b := st.Clusters[1]; b.Nodes != 2 || b.NodesReady != 2 || b.Region != "eu-central" {
			t.Errorf("berlin: %d of %d nodes Ready in %q, want 2 of 2 in eu-central", b.NodesReady, b.Nodes, b.Region)
		}
		nodes, err := l.Nodes(ctx, "berlin")
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			if !n.Ready || !strings.HasPrefix(n.Zone, "eu-central-") || n.CPU.String() != "2" {
				t.Errorf("node %+v: want Ready, in a zone of eu-central, 2 CPU", n)
			}
		}
	})

	t.Run("a Deployment becomes Available", func(t *testing.T) {
		start := time.Now()
		createDeployment(ctx, t, berlin, "web", 3, nil, "nginx:1.27")
		waitDeployment(ctx, t, berlin, "web", func(d *appsv1.Deployment) bool {
			return d.Status.AvailableReplicas == 3 && hasCondition(d, appsv1.DeploymentAvailable, "")
		})
		t.Logf("3 replicas available in %v", time.Since(start))
	})

	t.Run("the failure switch stalls a Deployment", func(t *testing.T) {
		createDeployment(ctx, t, berlin, "failing-label", 2, map[string]string{FailLabel: "true"}, "nginx:1.27")
		createDeployment(ctx, t, berlin, "failing-image", 2, nil, "nginx"+FailImageSuffix)
		for _, name := range []string{"failing-label", "failing-image"} {
			d := waitDeployment(ctx, t, berlin, name, func(d *appsv1.Deployment) bool {
				return hasCondition(d, appsv1.DeploymentProgressing, "ProgressDeadlineExceeded")
			})
			if d.Status.AvailableReplicas != 0 || hasCondition(d, appsv1.DeploymentAvailable, "") {
				t.Errorf("%s: %d available replicas, conditions %v; want none", name, d.Status.AvailableReplicas, d.Status.Conditions)
			}
		}
		pods, err := berlin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=failing-image"})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			if p.Status.Phase != corev1.PodRunning || len(p.Status.ContainerStatuses) == 0 ||
				p.Status.ContainerStatuses[0].State.Waiting == nil || p.Status.ContainerStatuses[0].State.Waiting.Reason != "CrashLoopBackOff" {
				t.Errorf("pod %s: phase %s, containers %+v; want Running and crash-looping", p.Name, p.Status.Phase, p.Status.ContainerStatuses)
			}
		}
	})

	t.Run("a pod that does not fit is Unschedulable until a node is added", func(t *testing.T) {
		createPod(ctx, t, berlin, "big", "3")
		waitPod(ctx, t, berlin, "big", func(p *corev1.Pod) bool {
			c := podCondition(p, corev1.PodScheduled)
			return c != nil && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable
		})
		n, err := l.AddNode(ctx, "berlin", Node{Name: "berlin-big", CPU: resource.MustParse("4"), Memory: resource.MustParse("16Gi")})
		if err != nil {
			t.Fatal(err)
		}
		if n.Zone != "eu-central-c" || n.Pods != defaultPods {
			t.Errorf("added node %+v: want the third zone and the pods of the others", n)
		}
		p := waitPod(ctx, t, berlin, "big", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
		if p.Spec.NodeName != "berlin-big" {
			t.Errorf("big runs on %s, want berlin-big", p.Spec.NodeName)
		}
		if _, err := l.AddNode(ctx, "host", Node{Name: "x"}); err == nil {
			t.Error("a node added to the host")
		}
	})

	t.Run("a removed node takes its pods with it", func(t *testing.T) {
		if err := l.RemoveNode(ctx, "berlin", "berlin-big"); err != nil {
			t.Fatal(err)
		}
		eventually(ctx, t, func() bool {
			_, err := berlin.CoreV1().Pods("default").Get(ctx, "big", metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		})
		if nodes, err := l.Nodes(ctx, "berlin"); err != nil || len(nodes) != 2 {
			t.Errorf("nodes after removal: %v, %v; want the two of the pool", nodes, err)
		}
	})

	t.Run("a cordoned member schedules nothing", func(t *testing.T) {
		for _, n := range []string{"berlin-1", "berlin-2"} {
			if err := l.CordonNode(ctx, "berlin", n, true); err != nil {
				t.Fatal(err)
			}
		}
		createPod(ctx, t, berlin, "small", "100m")
		waitPod(ctx, t, berlin, "small", func(p *corev1.Pod) bool {
			c := podCondition(p, corev1.PodScheduled)
			return c != nil && c.Reason == corev1.PodReasonUnschedulable
		})
		if err := l.CordonNode(ctx, "berlin", "berlin-1", false); err != nil {
			t.Fatal(err)
		}
		nodes, err := berlin.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes.Items {
			if want := n.Name == "berlin-2"; hasUnschedulableTaint(&n) != want {
				t.Errorf("node %s: unschedulable taint %t after CordonNode returned, want %t", n.Name, !want, want)
			}
		}
		waitPod(ctx, t, berlin, "small", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	})

	t.Run("service-account token Secrets get a token", func(t *testing.T) {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "default-token", Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}},
			Type:       corev1.SecretTypeServiceAccountToken,
		}
		for _, cs := range []kubernetes.Interface{host, berlin} {
			if _, err := cs.CoreV1().Secrets("default").Create(ctx, secret, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			eventually(ctx, t, func() bool {
				s, err := cs.CoreV1().Secrets("default").Get(ctx, "default-token", metav1.GetOptions{})
				return err == nil && len(s.Data[corev1.ServiceAccountTokenKey]) > 0
			})
		}
	})

	t.Run("a namespace deletion completes", func(t *testing.T) {
		for name, cs := range map[string]kubernetes.Interface{"host": host, "berlin": berlin} {
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "goes-away"}}
			if _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "content"}}
			if _, err := cs.CoreV1().ConfigMaps("goes-away").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := cs.CoreV1().Namespaces().Delete(ctx, "goes-away", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			eventually(ctx, t, func() bool {
				_, err := cs.CoreV1().Namespaces().Get(ctx, "goes-away", metav1.GetOptions{})
				return apierrors.IsNotFound(err)
			})
			t.Logf("%s: namespace gone in %v", name, time.Since(start))
		}
	})

	t.Run("a stopped member comes back with all its components", func(t *testing.T) {
		before := pids(t, l)
		holders := leaseHolders(ctx, t, berlin)
		if err := l.Stop(ctx, "berlin"); err != nil {
			t.Fatal(err)
		}
		st, err := l.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, comp := range st.Clusters[1].Components {
			if comp.PID != 0 {
				t.Errorf("%s of stopped berlin still runs (pid %d)", comp.Name, comp.PID)
			}
		}
		if err := l.Start(ctx, "berlin"); err != nil {
			t.Fatal(err)
		}
		after := pids(t, l)
		if len(after) != len(before) {
			t.Errorf("processes %v after start, %v before", after, before)
		}
		// The new kwok holds the nodes at once, not when the old one's
		// leases expire.
		for node, holder := range leaseHolders(ctx, t, berlin) {
			if holder == "" || holder == holders[node] {
				t.Errorf("node %s: lease held by %q after the restart, by %q before; want the new kwok", node, holder, holders[node])
			}
		}
		// The scheduler, the controllers and kwok all work again.
		createDeployment(ctx, t, berlin, "after-restart", 2, nil, "nginx:1.27")
		waitDeployment(ctx, t, berlin, "after-restart", func(d *appsv1.Deployment) bool { return d.Status.AvailableReplicas == 2 })
	})

	all := pids(t, l)
	if err := l.Down(ctx); err != nil {
		t.Fatal(err)
	}
	downed = true
	for _, pid := range all {
		if !isZombie(pid) {
			t.Errorf("pid %d still runs after Down", pid)
		}
	}
}

// leaseHolders maps each node of a member to the holder of its lease.
func leaseHolders(ctx context.Context, t *testing.T, cs kubernetes.Interface) map[string]string {
	t.Helper()
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	holders := map[string]string{}
	for _, n := range nodes.Items {
		holders[n.Name] = ""
		l, err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, n.Name, metav1.GetOptions{})
		if err == nil && l.Spec.HolderIdentity != nil {
			holders[n.Name] = *l.Spec.HolderIdentity
		}
	}
	return holders
}

// createDeployment creates a Deployment of replicas pods whose template
// carries extra labels and runs image. Its progress deadline is short, so
// that a stalled rollout shows within seconds.
func createDeployment(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string, replicas int32, extra map[string]string, image string) {
	t.Helper()
	podLabels := map[string]string{"app": name}
	for k, v := range extra {
		podLabels[k] = v
	}
	progressDeadline := int32(3)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas:                &replicas,
			ProgressDeadlineSeconds: &progressDeadline,
			Selector:                &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createPod creates a bare pod requesting cpu.
func createPod(ctx context.Context, t *testing.T, cs kubernetes.Interface, name, cpu string) {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "app", Image: "nginx:1.27",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}},
		}}},
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// statusWait bounds the wait for a workload's status: generous, so that
// it only turns a hang into a failure on a loaded machine.
const statusWait = 90 * time.Second

func waitDeployment(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string, done func(*appsv1.Deployment) bool) *appsv1.Deployment {
	t.Helper()
	var last *appsv1.Deployment
	err := poll(ctx, func() (bool, error) {
		d, err := cs.AppsV1().Deployments("default").Get(ctx, name, metav1.GetOptions{})
		last = d
		return err == nil && done(d), err
	})
	if err != nil {
		t.Fatalf("deployment %s: %v; last status %+v", name, err, last.Status)
	}
	return last
}

func waitPod(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string, done func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	err := poll(ctx, func() (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		last = p
		return err == nil && done(p), err
	})
	if err != nil {
		t.Fatalf("pod %s: %v; last status %+v", name, err, last.Status)
	}
	return last
}

// eventually fails the test unless cond holds within statusWait.
func eventually(ctx context.Context, t *testing.T, cond func() bool) {
	t.Helper()
	if err := poll(ctx, func() (bool, error) { return cond(), nil }); err != nil {
		t.Fatal(err)
	}
}

// poll calls cond until it is done, fails, or statusWait passes.
func poll(ctx context.Context, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, statusWait)
	defer cancel()
	for {
		done, err := cond()
		if done || (err != nil && !errors.Is(err, context.DeadlineExceeded)) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not done after %v", statusWait)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// hasCondition reports whether d has the condition of type typ, True, or
// with the given reason when reason is set.
func hasCondition(d *appsv1.Deployment, typ appsv1.DeploymentConditionType, reason string) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == typ && ((reason == "" && c.Status == corev1.ConditionTrue) || (reason != "" && c.Reason == reason)) {
			return true
		}
	}
	return false
}

func podCondition(p *corev1.Pod, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == typ {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}
