package provider_test

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// An application's create killed right after its member writes (the
// process ends there, as one killed would, before it completes the host
// records) leaves nothing that neither the state nor the host knows: each
// object's record was written, marked unfinished, before any member was.
// The next apply of the same content completes the create, the plan after
// it is empty, and the destroy leaves no object and no record.
func TestAccInterruptedCreate_killedAfterTheMemberWrites(t *testing.T) {
	acctest.Lab(t)
	prefix, ns := "icm", uniqueName("icm")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	base := acctest.HostProviderConfig(t) + objectTestTypes + applicationTypes + objectTestClusters(t, prefix)
	full := applicationConfig(t, prefix, appManifests(ns, "blue", "nginx:1.27", true), "")
	all := []string{"san-francisco", "new-york", "berlin"}
	t.Cleanup(func() { ws.Run("destroy", "-auto-approve", "-input=false", "-no-color") })
	ws.Write(base)
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	ws.Write(full)
	id := "configmaps/" + ns + "/web-config"
	if code, out := ws.RunWith([]string{"KUBEFED_TEST_EXIT_AFTER_MEMBER_WRITES=" + id}, "apply", "-auto-approve", "-input=false", "-no-color"); code == 0 {
		t.Fatalf("the apply with the provider killed after its member writes succeeded:\n%s", out)
	}
	if list := ws.MustRun(0, "state", "list", "-no-color"); strings.Contains(list, "kubefed_federated_application.web") {
		t.Fatalf("the cut-off create reached the state, so this test proves nothing:\n%s", list)
	}
	host := newHostClients(t)
	for _, gvr := range [...]struct{ name string }{{"web-config"}} {
		record, err := host.dynamic.Resource(federatedCMsGVR).Namespace(ns).Get(context.Background(), gvr.name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the host holds no record of %s, which the members hold: %v", gvr.name, err)
		}
		if _, marked := record.GetAnnotations()[incompleteCreate]; !marked {
			t.Fatalf("the record of %s is not marked unfinished: %v", gvr.name, record.GetAnnotations())
		}
	}
	for _, m := range all {
		if err := checkMemberField(t, m, configMapsGVR, ns, "web-config", "blue", "data", "color")(nil); err != nil {
			t.Fatalf("the killed apply wrote no member, so this test proves nothing: %v", err)
		}
	}

	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	ws.MustRun(0, "plan", "-detailed-exitcode", "-input=false", "-no-color")
	record, err := host.dynamic.Resource(federatedCMsGVR).Namespace(ns).Get(context.Background(), "web-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if value, marked := record.GetAnnotations()[incompleteCreate]; marked {
		t.Errorf("the completed create left the unfinished mark %q", value)
	}

	ws.Write(base)
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")
	for _, check := range []error{
		checkGone(t, configMapsGVR, ns, "web-config", all...)(nil),
		checkGone(t, servicesGVR, ns, "web", all...)(nil),
		checkHostRecordGone(t, federatedCMsGVR, ns, "web-config")(nil),
		checkHostRecordGone(t, federatedDeploymentsGVR, ns, "web")(nil),
	} {
		if check != nil {
			t.Error(check)
		}
	}
}
