package provider_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// The audit runs bad inputs a new user could plausibly write through
// validate, plan and apply with the CLI, one at a time, and reports where
// each was caught, whether anything was written before it was, and whether
// the message names the attribute and, where one is involved, the cluster.
// It takes minutes, so it runs on demand: KUBEFED_AUDIT=1 make testacc, or
// make audit.

// auditCase is one bad input: extra configuration added to the audit's
// base (three clusters, three types, a namespace), the attribute the
// message must name, and the cluster it must name, if any.
type auditCase struct {
	name      string
	config    string
	attribute string
	cluster   string
	// provider replaces the provider block; such an input runs in a
	// workspace of its own, with config alone, so that a refresh under
	// another provider configuration cannot touch the audit's state.
	provider string
}

// auditStage is where an input was caught.
type auditStage string

const (
	stageValidate auditStage = "validate"
	stagePlan     auditStage = "plan"
	stageApply    auditStage = "apply"
	stageNever    auditStage = "never"
)

func TestAccAudit_badInputs(t *testing.T) {
	if os.Getenv("KUBEFED_AUDIT") == "" {
		t.Skip("the audit of bad inputs runs with KUBEFED_AUDIT=1 (make audit)")
	}
	acctest.Lab(t)
	prefix, ns := "audit", uniqueName("audit")
	cleanupObjectTest(t, prefix, ns)
	ws := acctest.NewWorkspace(t)
	base := objectTestTypes + `
resource "kubefed_federated_type" "deployments" {
  target_api_version = "apps/v1"
  target_kind        = "Deployment"
}
resource "kubefed_federated_type" "services" {
  target_api_version = "v1"
  target_kind        = "Service"
}
` + objectTestClusters(t, prefix) + federatedNamespace(ns)
	hostProvider := acctest.HostProviderConfig(t)
	t.Cleanup(func() {
		ws.Write(hostProvider)
		ws.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	})
	ws.Write(hostProvider + base)
	ws.MustRun(0, "apply", "-auto-approve", "-input=false", "-no-color")

	cases := auditCases(t, prefix, ns)
	if len(cases) < 100 {
		t.Fatalf("the audit has %d inputs, want at least 100", len(cases))
	}
	counts := map[auditStage]int{}
	wrote, named, namedCluster, needCluster := 0, 0, 0, 0
	scratch := acctest.NewWorkspace(t)
	for _, c := range cases {
		before := federationFootprint(t, ns, prefix)
		run := ws
		if c.provider != "" {
			run = scratch
			run.Write(c.provider + "\ndata \"kubefed_clusters\" \"all\" {}\n" + c.config)
		} else {
			run.Write(hostProvider + base + c.config)
		}
		stage, out := auditRun(run)
		counts[stage]++
		after := federationFootprint(t, ns, prefix)
		changed := !slices.Equal(before, after)
		if changed && stage != stageApply {
			wrote++
		}
		namesAttribute := c.attribute == "" || mentions(out, c.attribute)
		namesCluster := c.cluster == "" || strings.Contains(out, c.cluster)
		if namesAttribute {
			named++
		}
		if c.cluster != "" {
			needCluster++
			if namesCluster {
				namedCluster++
			}
		}
		t.Logf("%-8s wrote=%-5v attribute=%-5v cluster=%-5v %s", stage, changed, namesAttribute, namesCluster, c.name)
		if c.provider == "" && (stage == stageApply || changed) {
			// Put back what the input changed.
			ws.Write(hostProvider + base)
			ws.Run("apply", "-auto-approve", "-input=false", "-no-color")
		}
		if stage != stageNever && !namesAttribute {
			t.Errorf("%s: the message does not name %s:\n%s", c.name, c.attribute, excerptOf(out))
		}
		if stage != stageNever && !namesCluster {
			t.Errorf("%s: the message does not name cluster %s:\n%s", c.name, c.cluster, excerptOf(out))
		}
	}
	t.Logf("audit of %d bad inputs: validate %d, plan %d, apply %d, never %d; wrote before being caught: %d; "+
		"messages naming the attribute: %d of %d; naming the cluster: %d of %d",
		len(cases), counts[stageValidate], counts[stagePlan], counts[stageApply], counts[stageNever], wrote,
		named, len(cases), namedCluster, needCluster)
	if wrote > 0 {
		t.Errorf("%d inputs wrote to the host or a member before they were refused", wrote)
	}
}

// auditRun runs validate, then plan, then apply, and says which one failed.
func auditRun(ws *acctest.Workspace) (auditStage, string) {
	if code, out := ws.Run("validate", "-no-color"); code != 0 {
		return stageValidate, out
	}
	if code, out := ws.Run("plan", "-input=false", "-no-color"); code != 0 {
		return stagePlan, out
	}
	if code, out := ws.Run("apply", "-auto-approve", "-input=false", "-no-color"); code != 0 {
		return stageApply, out
	}
	return stageNever, ""
}

// mentions reports whether the CLI's output names the attribute, either
// in the message or on the configuration line it quotes; white space is
// the CLI's to wrap.
func mentions(out, attribute string) bool {
	words := strings.Fields(regexp.QuoteMeta(attribute))
	return regexp.MustCompile(strings.Join(words, `\s+`)).MatchString(out)
}

func excerptOf(out string) string {
	if i := strings.Index(out, "Error:"); i >= 0 {
		out = out[i:]
	}
	if len(out) > 1500 {
		out = out[:1500] + "..."
	}
	return out
}

// federationFootprint lists what the audit's inputs could write: the
// host's registrations, types, federated objects, preferences and
// credential Secrets, and the members' objects in the audit's namespace.
func federationFootprint(t *testing.T, ns, prefix string) []string {
	t.Helper()
	host := newHostClients(t)
	ctx := context.Background()
	var out []string
	list := func(where string, gvr schema.GroupVersionResource, namespace string) {
		l, err := host.dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return
		}
		for _, item := range l.Items {
			out = append(out, fmt.Sprintf("%s %s %s/%s@%s", where, gvr.Resource, item.GetNamespace(), item.GetName(), item.GetResourceVersion()))
		}
	}
	if l, err := host.dynamic.Resource(kubeFedClusters).Namespace(federationNamespace).List(ctx, metav1.ListOptions{}); err == nil {
		// By spec and labels: each refresh records the health in the
		// status, which is not the input's doing.
		for _, item := range l.Items {
			out = append(out, fmt.Sprintf("host kubefedcluster %s %v %v", item.GetName(), item.Object["spec"], item.GetLabels()))
		}
	}
	list("host", federatedTypeConfigs, federationNamespace)
	list("host", schedulingPreferences, ns)
	for _, r := range []string{"federatedconfigmaps", "federateddeployments", "federatedservices", "federatedsecrets"} {
		list("host", schema.GroupVersionResource{Group: "types.kubefed.io", Version: "v1beta1", Resource: r}, ns)
	}
	if secrets, err := host.kube.CoreV1().Secrets(federationNamespace).List(ctx, metav1.ListOptions{}); err == nil {
		for _, s := range secrets.Items {
			out = append(out, "host secret "+s.Name+"@"+s.ResourceVersion)
		}
	}
	for _, m := range interruptMembers {
		for _, gvr := range []schema.GroupVersionResource{configMapsGVR, deploymentsGVR, servicesGVR, secretsGVR} {
			l, err := memberClient(t, m).Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: "kubefed.io/managed=true"})
			if err != nil {
				continue
			}
			for _, item := range l.Items {
				out = append(out, fmt.Sprintf("%s %s %s@%s", m, gvr.Resource, item.GetName(), item.GetResourceVersion()))
			}
		}
	}
	sort.Strings(out)
	return out
}
