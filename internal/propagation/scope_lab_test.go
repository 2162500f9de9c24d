package propagation

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/federation"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
)

// The scope the engine knows of Kubernetes' own kinds, with no cluster, is
// the one a member's API server serves them with: every kind the server
// serves in a group the table knows is in it, with the server's scope.
func TestAccBuiltinScopeIsTheServers(t *testing.T) {
	lab := acctest.Lab(t)
	clients, err := kube.NewClientFactory().NewClients(lab.Cluster("berlin").RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	lists, err := clients.Discovery.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range list.APIResources {
			namespaced, known := federation.BuiltinScope(gv.Group, res.Kind)
			switch {
			case !known && slices.Contains(res.Verbs, "list") && (!strings.Contains(gv.Group, ".") || strings.HasSuffix(gv.Group, ".k8s.io")):
				t.Errorf("BuiltinScope does not know %s %s, which the server lists", list.GroupVersion, res.Kind)
			case known && namespaced != res.Namespaced:
				t.Errorf("BuiltinScope says %s %s is namespaced: %v; the server: %v", list.GroupVersion, res.Kind, namespaced, res.Namespaced)
			case known:
				checked++
			}
		}
	}
	if checked < 40 {
		t.Fatalf("only %d kinds checked against the server", checked)
	}
}
