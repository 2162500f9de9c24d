package propagation

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

var (
	configMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

// labObject is an object on the lab's berlin cluster that the test applies
// with the federation's field manager, and removes at its end.
type labObject struct {
	t    *testing.T
	m    Member
	o    Object
	opts Options
}

func newLabObject(t *testing.T, resource schema.GroupVersionResource, name string) labObject {
	t.Helper()
	clients, err := kube.NewClientFactory().NewClients(acctest.Lab(t).Cluster("berlin").RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	l := labObject{t: t, m: Member{Name: "berlin", Clients: clients},
		o: Object{Resource: resource, Namespace: "default", Name: name}, opts: Options{FieldManager: "kubefed-test"}}
	t.Cleanup(func() {
		if err := Remove(context.Background(), l.m, l.o, false, l.opts); err != nil {
			t.Errorf("removing %s: %v", l.o, err)
		}
	})
	return l
}

// write changes the object as another manager does: a patch of the given
// type, through subresource when one is named.
func (l labObject) write(manager string, patchType k8stypes.PatchType, patch string, force bool, subresource ...string) {
	l.t.Helper()
	opts := metav1.PatchOptions{FieldManager: manager}
	if patchType == k8stypes.ApplyPatchType {
		opts.Force = &force
	}
	if _, err := resourceClient(l.m.Clients, l.o).Patch(context.Background(), l.o.Name, patchType, []byte(patch), opts, subresource...); err != nil {
		l.t.Fatalf("%s writing %s: %v", manager, patch, err)
	}
}

func (l labObject) live() map[string]any {
	l.t.Helper()
	obj, found, err := Get(context.Background(), l.m, l.o)
	if err != nil || !found {
		l.t.Fatalf("reading %s: found %v, %v", l.o, found, err)
	}
	return obj
}

func (l labObject) mustApply(rendered string, opts Options) Answer {
	l.t.Helper()
	res, err := Apply(context.Background(), l.m, l.o, []byte(rendered), opts)
	if err != nil {
		l.t.Fatalf("apply: %v", err)
	}
	return res
}

func configMap(name, data string) string {
	return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `","namespace":"default"},"data":` + data + `}`
}

func dataOf(obj map[string]any) map[string]any {
	data, _ := obj["data"].(map[string]any)
	return data
}

// A key changed by hand with kubectl patch is taken back by the next apply,
// without force, and the dry run before it says so instead of failing.
func TestAccApplyReclaimsFieldsChangedByUpdates(t *testing.T) {
	l := newLabObject(t, configMaps, "reclaim-patched")
	ours := configMap("reclaim-patched", `{"greeting":"hello","color":"blue"}`)
	l.mustApply(ours, l.opts)
	l.write("kubectl-patch", k8stypes.MergePatchType, `{"data":{"greeting":"tampered","extra":"theirs"}}`, false)
	want := Claims{"kubectl-patch": {".data.greeting"}}

	dry, err := DryRun(context.Background(), l.m, l.o, []byte(ours), l.opts)
	if err != nil || !reflect.DeepEqual(dry.Reclaimed, want) {
		t.Fatalf("dry run: err %v, reclaimed %v; want no error and %v", err, dry.Reclaimed, want)
	}
	if got := dataOf(l.live())["greeting"]; got != "tampered" {
		t.Fatalf("the dry run changed the object: greeting %v", got)
	}

	res := l.mustApply(ours, l.opts)
	if !reflect.DeepEqual(res.Reclaimed, want) {
		t.Errorf("apply reclaimed %v, want %v", res.Reclaimed, want)
	}
	if got := dataOf(res.Live); !reflect.DeepEqual(got, map[string]any{"greeting": "hello", "color": "blue"}) {
		t.Errorf("apply read back %v", got)
	}
	// Only the conflicting field was taken: the other manager's own key stays.
	if data := dataOf(l.live()); data["greeting"] != "hello" || data["extra"] != "theirs" {
		t.Errorf("after the reclaim the cluster holds %v, want greeting restored and extra kept", data)
	}
	if again := l.mustApply(ours, l.opts); again.Reclaimed != nil {
		t.Errorf("a second apply reclaimed %v, want nothing", again.Reclaimed)
	}
}

// A field another declarative tool applied with force is a real dispute:
// the dry run and the apply fail naming the cluster, the field and the
// manager, and only Force takes it back.
func TestAccApplyRefusesFieldsAnotherApplyHolds(t *testing.T) {
	l := newLabObject(t, configMaps, "reclaim-disputed")
	ours := configMap("reclaim-disputed", `{"greeting":"hello"}`)
	l.mustApply(ours, l.opts)
	l.write("other-tool", k8stypes.ApplyPatchType, configMap("reclaim-disputed", `{"greeting":"theirs"}`), true)

	for what, write := range map[string]func(context.Context, Member, Object, []byte, Options) (Answer, error){
		"dry run": DryRun,
		"apply":   Apply,
	} {
		_, err := write(context.Background(), l.m, l.o, []byte(ours), l.opts)
		var conflict *ConflictError
		if !errors.As(err, &conflict) {
			t.Fatalf("%s: %v, want a conflict", what, err)
		}
		if want := (Claims{"other-tool": {".data.greeting"}}); !reflect.DeepEqual(conflict.Disputed, want) {
			t.Errorf("%s: disputed %v, want %v", what, conflict.Disputed, want)
		}
		for _, want := range []string{`cluster "berlin"`, `"other-tool": .data.greeting`, "force_conflicts = true"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q lacks %q", what, err, want)
			}
		}
		if !Rejects(err) {
			t.Errorf("%s: the conflict does not count as the member refusing the object", what)
		}
	}
	if got := dataOf(l.live())["greeting"]; got != "theirs" {
		t.Fatalf("a refused apply changed greeting to %v", got)
	}
	forced := l.opts
	forced.Force = true
	l.mustApply(ours, forced)
	if got := dataOf(l.live())["greeting"]; got != "hello" {
		t.Errorf("a forced apply left greeting %v", got)
	}
}

// When both kinds of writers hold fields, nothing is forced: the field the
// update-style writer changed is not taken either.
func TestAccApplyForcesNothingWhenAnotherApplyHoldsAField(t *testing.T) {
	l := newLabObject(t, configMaps, "reclaim-mixed")
	ours := configMap("reclaim-mixed", `{"greeting":"hello","color":"blue"}`)
	l.mustApply(ours, l.opts)
	l.write("kubectl-patch", k8stypes.MergePatchType, `{"data":{"color":"red"}}`, false)
	l.write("other-tool", k8stypes.ApplyPatchType, configMap("reclaim-mixed", `{"greeting":"theirs"}`), true)

	_, err := Apply(context.Background(), l.m, l.o, []byte(ours), l.opts)
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("apply: %v, want a conflict", err)
	}
	want := Conflicts{Disputed: Claims{"other-tool": {".data.greeting"}}, Reclaimable: Claims{"kubectl-patch": {".data.color"}}}
	if !reflect.DeepEqual(conflict.Conflicts, want) {
		t.Errorf("conflicts %+v, want %+v", conflict.Conflicts, want)
	}
	if data := dataOf(l.live()); data["greeting"] != "theirs" || data["color"] != "red" {
		t.Errorf("a refused apply changed the object: %v", data)
	}
}

const injectedApp = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"NAME","namespace":"default"},
	"spec":{"selector":{"matchLabels":{"app":"NAME"}},"template":{"metadata":{"labels":{"app":"NAME"}},
	"spec":{"containers":[{"name":"web","image":"nginx:1.27","ports":[{"containerPort":80}]}],
	"tolerations":[{"key":"zone","operator":"Exists"}]}}}}`

func renderedApp(name string) (string, map[string]any) {
	text := strings.ReplaceAll(injectedApp, "NAME", name)
	var obj map[string]any
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		panic(err)
	}
	return text, obj
}

// A sidecar container another manager injects is that manager's: the
// object read back is what was applied, and the next apply keeps the sidecar.
func TestAccProjectLeavesAnInjectedSidecarToItsManager(t *testing.T) {
	l := newLabObject(t, deployments, "reclaim-injected")
	ours, applied := renderedApp("reclaim-injected")
	l.mustApply(ours, l.opts)
	l.write("mesh-injector", k8stypes.JSONPatchType,
		`[{"op":"add","path":"/spec/template/spec/containers/-","value":{"name":"istio-proxy","image":"proxyv2"}}]`, false)

	read, err := Read(context.Background(), l.m, l.o, applied, l.opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := canonicalJSON(t, read.Live), canonicalJSON(t, applied); got != want {
		t.Errorf("read back with the sidecar:\n got  %s\n want %s", got, want)
	}
	res := l.mustApply(ours, l.opts)
	if res.Reclaimed != nil || canonicalJSON(t, res.Live) != canonicalJSON(t, applied) {
		t.Errorf("the next apply reclaimed %v and read back %s", res.Reclaimed, canonicalJSON(t, res.Live))
	}
	if names := containerNames(l.live()); !reflect.DeepEqual(names, []string{"web", "istio-proxy"}) {
		t.Errorf("after the apply the containers are %v, want the sidecar kept", names)
	}
}

// Tolerations are an atomic list: a toleration another manager adds shows
// as a change, and the apply takes the whole list back, while a keyed
// list's injected element stays.
func TestAccApplyReclaimsAnAtomicListWhole(t *testing.T) {
	l := newLabObject(t, deployments, "reclaim-atomic")
	ours, applied := renderedApp("reclaim-atomic")
	l.mustApply(ours, l.opts)
	l.write("mesh-injector", k8stypes.JSONPatchType, `[
		{"op":"add","path":"/spec/template/spec/containers/-","value":{"name":"istio-proxy","image":"proxyv2"}},
		{"op":"add","path":"/spec/template/spec/tolerations/-","value":{"key":"mesh","operator":"Exists"}}]`, false)

	read, err := Read(context.Background(), l.m, l.o, applied, l.opts)
	if err != nil {
		t.Fatal(err)
	}
	if canonicalJSON(t, read.Live) == canonicalJSON(t, applied) {
		t.Errorf("a toleration added to the atomic list reads as no change")
	}
	res := l.mustApply(ours, l.opts)
	if want := (Claims{"mesh-injector": {".spec.template.spec.tolerations"}}); !reflect.DeepEqual(res.Reclaimed, want) {
		t.Errorf("apply reclaimed %v, want %v", res.Reclaimed, want)
	}
	if canonicalJSON(t, res.Live) != canonicalJSON(t, applied) {
		t.Errorf("after the reclaim the apply read back %s", canonicalJSON(t, res.Live))
	}
	if names := containerNames(l.live()); !reflect.DeepEqual(names, []string{"web", "istio-proxy"}) {
		t.Errorf("after the apply the containers are %v, want the sidecar kept", names)
	}
}

// Replicas the template leaves out belong to whoever scales the object (an
// autoscaler, through the scale subresource): never read back, never reset.
func TestAccReplicasLeftOutBelongToTheScaler(t *testing.T) {
	l := newLabObject(t, deployments, "reclaim-scaled")
	ours, applied := renderedApp("reclaim-scaled")
	l.mustApply(ours, l.opts)
	l.write("autoscaler", k8stypes.MergePatchType, `{"spec":{"replicas":5}}`, false, "scale")

	read, err := Read(context.Background(), l.m, l.o, applied, l.opts)
	if err != nil || canonicalJSON(t, read.Live) != canonicalJSON(t, applied) {
		t.Errorf("read back after scaling: %v, %s", err, canonicalJSON(t, read.Live))
	}
	if res := l.mustApply(ours, l.opts); res.Reclaimed != nil {
		t.Errorf("apply reclaimed %v", res.Reclaimed)
	}
	spec, _ := l.live()["spec"].(map[string]any)
	if spec["replicas"] != int64(5) {
		t.Errorf("after the apply replicas are %v, want the scaler's 5", spec["replicas"])
	}
}

func containerNames(obj map[string]any) []string {
	spec, _ := obj["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	pod, _ := template["spec"].(map[string]any)
	containers, _ := pod["containers"].([]any)
	var names []string
	for _, c := range containers {
		m, _ := c.(map[string]any)
		name, _ := m["name"].(string)
		names = append(names, name)
	}
	return names
}

// The reclaim's forced apply is conditional on the resourceVersion whose
// managedFields were read: the member refuses it once the object changed,
// with a conflict that names no field, so the reclaim reads again rather
// than taking a field a newer writer holds.
func TestAccForcedApplyOnAStaleVersionIsRefused(t *testing.T) {
	l := newLabObject(t, configMaps, "reclaim-stale")
	ours := configMap("reclaim-stale", `{"greeting":"hello"}`)
	l.mustApply(ours, l.opts)
	stale, _ := l.live()["metadata"].(map[string]any)["resourceVersion"].(string)
	l.write("other-tool", k8stypes.ApplyPatchType, configMap("reclaim-stale", `{"greeting":"theirs"}`), true)

	body, err := withResourceVersion([]byte(ours), stale)
	if err != nil {
		t.Fatal(err)
	}
	_, err = serverApply(context.Background(), resourceClient(l.m.Clients, l.o), l.o, body, l.opts.FieldManager, true, false)
	if !apierrors.IsConflict(err) || conflictCauses(err) != nil {
		t.Fatalf("a forced apply on a stale version: %v, want a conflict naming no field", err)
	}
	if got := dataOf(l.live())["greeting"]; got != "theirs" {
		t.Errorf("the refused apply changed greeting to %v", got)
	}
}
