package provider_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// memberBlock registers the lab cluster member under name, authenticating
// with its admin token.
func memberBlock(resourceName, name, member string, extra string) func(t *testing.T) string {
	return func(t *testing.T) string {
		c := acctest.Lab(t).Cluster(member)
		return fmt.Sprintf(`
resource "kubefed_federation_cluster" %q {
  name         = %q
  api_endpoint = %q
  ca_bundle    = %s
  token        = %s
%s
}
`, resourceName, name, c.URL, acctest.Quote(string(c.CAPEM)), acctest.Quote(c.Token), extra)
	}
}

func TestAccFederationCluster_registerMembers(t *testing.T) {
	lab := acctest.Lab(t)
	host := newHostClients(t)
	sf, ny, berlin := lab.Cluster("san-francisco"), lab.Cluster("new-york"), lab.Cluster("berlin")
	certPEM, keyPEM, err := lab.ClientCertificate("new-york", "kubefed-registry-test", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	berlinCert, berlinKey, err := lab.ClientCertificate("berlin", "kubefed-registry-test", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	// Berlin switches from its token to a client certificate in step 2.
	berlinWithCertificate := fmt.Sprintf(`
resource "kubefed_federation_cluster" "berlin" {
  name               = "reg-berlin"
  api_endpoint       = %q
  ca_bundle          = %s
  client_certificate = %s
  client_key         = %s
  labels             = { region = "eu-central" }
}
`, berlin.URL, acctest.Quote(string(berlin.CAPEM)), acctest.Quote(string(berlinCert)), acctest.Quote(string(berlinKey)))
	var configWith func(sfLabels, berlinBlock string) string
	config := func(sfLabels string) string {
		return configWith(sfLabels, memberBlock("berlin", "reg-berlin", "berlin", `  labels = { region = "eu-central" }`)(t))
	}
	configWith = func(sfLabels, berlinBlock string) string {
		return acctest.HostProviderConfig(t) +
			memberBlock("sf", "reg-san-francisco", "san-francisco", "  labels = "+sfLabels)(t) +
			fmt.Sprintf(`
resource "kubefed_federation_cluster" "ny" {
  name               = "reg-new-york"
  api_endpoint       = %q
  ca_bundle          = %s
  client_certificate = %s
  client_key         = %s
  labels             = { region = "us-east" }
}
`, ny.URL, acctest.Quote(string(ny.CAPEM)), acctest.Quote(string(certPEM)), acctest.Quote(string(keyPEM))) +
			berlinBlock
	}
	t.Cleanup(func() { deleteClusters(t, host, "reg-san-francisco", "reg-new-york", "reg-berlin") })

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config(`{ region = "us-west", tier = "gold" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue("kubefed_federation_cluster.sf", tfjsonpath.New("secret_name"), knownvalue.StringExact("reg-san-francisco-credentials")),
						plancheck.ExpectKnownValue("kubefed_federation_cluster.sf", tfjsonpath.New("id"), knownvalue.StringExact("reg-san-francisco")),
						plancheck.ExpectUnknownValue("kubefed_federation_cluster.sf", tfjsonpath.New("ready")),
						plancheck.ExpectUnknownValue("kubefed_federation_cluster.sf", tfjsonpath.New("kubernetes_version")),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.sf", tfjsonpath.New("ready"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.sf", tfjsonpath.New("offline"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.sf", tfjsonpath.New("probe_reason"), knownvalue.StringExact("ClusterReady")),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.sf", tfjsonpath.New("kubernetes_version"), knownvalue.StringRegexp(regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+`))),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.ny", tfjsonpath.New("ready"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.ny", tfjsonpath.New("secret_name"), knownvalue.StringExact("reg-new-york-credentials")),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.berlin", tfjsonpath.New("ready"), knownvalue.Bool(true)),
				},
				Check: resource.ComposeTestCheckFunc(
					checkKubeFedCluster(host, "reg-san-francisco", sf.URL, sf.CAPEM, map[string]string{"region": "us-west", "tier": "gold"}),
					checkSecret(host, "reg-san-francisco-credentials", map[string]string{"token": sf.Token}),
					checkKubeFedCluster(host, "reg-new-york", ny.URL, ny.CAPEM, map[string]string{"region": "us-east"}),
					checkSecret(host, "reg-new-york-credentials", map[string]string{"tls.crt": string(certPEM), "tls.key": string(keyPEM)}),
					checkKubeFedCluster(host, "reg-berlin", berlin.URL, berlin.CAPEM, map[string]string{"region": "eu-central"}),
				),
			},
			{
				// Labels change in place, and the KubeFedCluster follows; new
				// credentials rewrite the Secret in place.
				Config: configWith(`{ region = "us-west" }`, berlinWithCertificate),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("kubefed_federation_cluster.sf", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("kubefed_federation_cluster.berlin", plancheck.ResourceActionUpdate),
						plancheck.ExpectResourceAction("kubefed_federation_cluster.ny", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(
					checkKubeFedCluster(host, "reg-san-francisco", sf.URL, sf.CAPEM, map[string]string{"region": "us-west"}),
					checkSecret(host, "reg-berlin-credentials", map[string]string{"tls.crt": string(berlinCert), "tls.key": string(berlinKey)}),
				),
			},
			{
				// The data source filters the registry with a selector.
				Config: configWith(`{ region = "us-west" }`, berlinWithCertificate) + `
data "kubefed_clusters" "us" {
  cluster_selector = {
    match_expressions = [{ key = "region", operator = "In", values = ["us-west", "us-east"] }]
  }
  depends_on = [kubefed_federation_cluster.sf, kubefed_federation_cluster.ny, kubefed_federation_cluster.berlin]
}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.kubefed_clusters.us", tfjsonpath.New("names"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("reg-new-york"), knownvalue.StringExact("reg-san-francisco"),
					})),
					statecheck.ExpectKnownValue("data.kubefed_clusters.us", tfjsonpath.New("clusters").AtSliceIndex(1).AtMapKey("ready"), knownvalue.Bool(true)),
				},
			},
			{
				ResourceName:      "kubefed_federation_cluster.sf",
				ImportState:       true,
				ImportStateId:     "reg-san-francisco",
				ImportStateVerify: true,
			},
			{
				ResourceName:      "kubefed_federation_cluster.ny",
				ImportState:       true,
				ImportStateId:     "reg-new-york",
				ImportStateVerify: true,
			},
		},
		CheckDestroy: func(*terraform.State) error {
			for _, name := range []string{"reg-san-francisco", "reg-new-york", "reg-berlin"} {
				if _, err := host.get(kubeFedClusters, federationNamespace, name); !apierrors.IsNotFound(err) {
					return fmt.Errorf("KubeFedCluster %s still exists after destroy (err %w)", name, err)
				}
				_, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), name+"-credentials", metav1.GetOptions{})
				if !apierrors.IsNotFound(err) {
					return fmt.Errorf("Secret of %s still exists after destroy (err %w)", name, err)
				}
			}
			return nil
		},
	})
}

func TestAccFederationCluster_memberGoesDown(t *testing.T) {
	lab := acctest.Lab(t)
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, "down-berlin") })
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := lab.Start(ctx, "berlin"); err != nil {
			t.Errorf("restarting berlin: %v", err)
		}
	})
	config := acctest.HostProviderConfig(t) + memberBlock("berlin", "down-berlin", "berlin", "")(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.berlin", tfjsonpath.New("ready"), knownvalue.Bool(true)),
				},
			},
			{
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					if err := lab.Stop(ctx, "berlin"); err != nil {
						t.Fatalf("stopping berlin: %v", err)
					}
				},
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.berlin", tfjsonpath.New("ready"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.berlin", tfjsonpath.New("offline"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.berlin", tfjsonpath.New("probe_reason"), knownvalue.StringExact("ClusterNotReachable")),
					// The last known version stays.
					statecheck.ExpectKnownValue("kubefed_federation_cluster.berlin", tfjsonpath.New("kubernetes_version"), knownvalue.StringRegexp(regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+`))),
				},
				Check: checkConditions(host, "down-berlin", "False", "True", "ClusterNotReachable"),
			},
			{
				PreConfig: func() {
					ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
					defer cancel()
					if err := lab.Start(ctx, "berlin"); err != nil {
						t.Fatalf("starting berlin: %v", err)
					}
				},
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.berlin", tfjsonpath.New("ready"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.berlin", tfjsonpath.New("offline"), knownvalue.Bool(false)),
				},
				Check: checkConditions(host, "down-berlin", "True", "False", "ClusterReady"),
			},
		},
	})
}

func TestAccFederationCluster_wrongToken(t *testing.T) {
	c := acctest.Lab(t).Cluster("san-francisco")
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, "badtoken-sf") })
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.HostProviderConfig(t) + fmt.Sprintf(`
resource "kubefed_federation_cluster" "sf" {
  name         = "badtoken-sf"
  api_endpoint = %q
  ca_bundle    = %s
  token        = "not-the-token"
}
`, c.URL, acctest.Quote(string(c.CAPEM))),
			ExpectError: regexp.MustCompile(`(?s)Cluster "badtoken-sf" is not ready.*authentication failed.*check token, or\s+client_certificate\s+and\s+client_key,\s+of\s+cluster\s+"badtoken-sf".*ClusterAuthenticationFailed`),
		}},
	})
	if _, err := host.get(kubeFedClusters, federationNamespace, "badtoken-sf"); !apierrors.IsNotFound(err) {
		t.Errorf("a failed create left a KubeFedCluster behind (err %v)", err)
	}
}

func TestAccFederationCluster_wrongCA(t *testing.T) {
	lab := acctest.Lab(t)
	c := lab.Cluster("new-york")
	otherCA := lab.Cluster("berlin").CAPEM
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{{
			Config: acctest.HostProviderConfig(t) + fmt.Sprintf(`
resource "kubefed_federation_cluster" "ny" {
  name         = "badca-ny"
  api_endpoint = %q
  ca_bundle    = %s
  token        = %s
}
`, c.URL, acctest.Quote(string(otherCA)), acctest.Quote(c.Token)),
			ExpectError: regexp.MustCompile(`(?s)Cluster "badca-ny" is not ready.*TLS verification of the API server.*failed.*set ca_bundle\s+of\s+cluster\s+"badca-ny"`),
		}},
	})
}

func TestAccFederationCluster_unreachableNotRequired(t *testing.T) {
	host := newHostClients(t)
	t.Cleanup(func() { deleteClusters(t, host, "nowhere") })
	ca := acctest.Lab(t).Cluster("berlin").CAPEM
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				// Port 1 on loopback: nothing listens, the connection is refused.
				Config: acctest.HostProviderConfig(t) + fmt.Sprintf(`
resource "kubefed_federation_cluster" "nowhere" {
  name          = "nowhere"
  api_endpoint  = "https://127.0.0.1:1"
  ca_bundle     = %s
  token         = "some-token"
  require_ready = false
}
`, acctest.Quote(string(ca))),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("kubefed_federation_cluster.nowhere", tfjsonpath.New("ready"), knownvalue.Bool(false)),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.nowhere", tfjsonpath.New("offline"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.nowhere", tfjsonpath.New("probe_reason"), knownvalue.StringExact("ClusterNotReachable")),
					statecheck.ExpectKnownValue("kubefed_federation_cluster.nowhere", tfjsonpath.New("kubernetes_version"), knownvalue.StringExact("")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: checkConditions(host, "nowhere", "False", "True", "ClusterNotReachable"),
			},
		},
	})
}

func checkKubeFedCluster(host hostClients, name, endpoint string, ca []byte, labels map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := host.get(kubeFedClusters, federationNamespace, name)
		if err != nil {
			return err
		}
		want := map[string]any{
			"apiEndpoint": endpoint,
			"caBundle":    base64.StdEncoding.EncodeToString(ca),
			"secretRef":   map[string]any{"name": name + "-credentials"},
		}
		for field, value := range want {
			if got := nested(obj, "spec", field); fmt.Sprint(got) != fmt.Sprint(value) {
				return fmt.Errorf("KubeFedCluster %s: spec.%s = %v, want %v", name, field, got, value)
			}
		}
		if got := obj.GetLabels(); fmt.Sprint(got) != fmt.Sprint(labels) {
			return fmt.Errorf("KubeFedCluster %s: labels %v, want %v", name, got, labels)
		}
		return checkConditions(host, name, "True", "False", "ClusterReady")(nil)
	}
}

// checkConditions checks the Ready and Offline conditions KubeFed's way.
func checkConditions(host hostClients, name, ready, offline, reason string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		obj, err := host.get(kubeFedClusters, federationNamespace, name)
		if err != nil {
			return err
		}
		conditions, _ := nested(obj, "status", "conditions").([]any)
		got := map[string]map[string]any{}
		for _, c := range conditions {
			condition := c.(map[string]any)
			got[condition["type"].(string)] = condition
			for _, field := range []string{"lastProbeTime", "lastTransitionTime"} {
				if _, err := time.Parse(time.RFC3339, fmt.Sprint(condition[field])); err != nil {
					return fmt.Errorf("KubeFedCluster %s: condition %v: %s is not a time", name, condition["type"], field)
				}
			}
		}
		if got["Ready"]["status"] != ready || got["Offline"]["status"] != offline || got["Ready"]["reason"] != reason {
			return fmt.Errorf("KubeFedCluster %s: conditions %v, want Ready=%s Offline=%s reason %s", name, conditions, ready, offline, reason)
		}
		return nil
	}
}

func checkSecret(host hostClients, name string, data map[string]string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		secret, err := host.kube.CoreV1().Secrets(federationNamespace).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(secret.Data) != len(data) {
			return fmt.Errorf("Secret %s has keys %d, want %d", name, len(secret.Data), len(data))
		}
		for key, value := range data {
			if string(secret.Data[key]) != value {
				return fmt.Errorf("Secret %s: key %q does not hold the expected value", name, key)
			}
		}
		return nil
	}
}

// deleteClusters removes what a failed test may have left in the host.
func deleteClusters(t *testing.T, host hostClients, names ...string) {
	t.Helper()
	for _, name := range names {
		err := host.dynamic.Resource(kubeFedClusters).Namespace(federationNamespace).Delete(context.Background(), name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cleaning up KubeFedCluster %s: %v", name, err)
		}
		err = host.kube.CoreV1().Secrets(federationNamespace).Delete(context.Background(), name+"-credentials", metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("cleaning up Secret of %s: %v", name, err)
		}
	}
}

// jwtExpiringAt is a token shaped as a JWT whose exp claim is expires. The
// lab's members do not accept it; the plan's warning is what is tested.
func jwtExpiringAt(expires time.Time) string {
	part := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	return part(`{"alg":"RS256","typ":"JWT"}`) + "." + part(fmt.Sprintf(`{"exp":%d}`, expires.Unix())) + "." + part("signature")
}

// A registration whose token is a JWT past or near its expiry plans with a
// warning that names the cluster, the attribute and what to do; the lab's
// static token plans without one.
func TestAccFederationCluster_shortLivedTokenWarns(t *testing.T) {
	berlin := acctest.Lab(t).Cluster("berlin")
	ws := acctest.NewWorkspace(t)
	now := time.Now()
	block := func(resourceName, attribute, token string) string {
		return fmt.Sprintf(`
resource "kubefed_federation_cluster" %q {
  name          = "jwt-%s"
  api_endpoint  = %q
  ca_bundle     = %s
  %s = %q
  require_ready = false
}
`, resourceName, resourceName, berlin.URL, acctest.Quote(string(berlin.CAPEM)), attribute, token)
	}
	config := acctest.HostProviderConfig(t) +
		block("expired", "token", jwtExpiringAt(now.Add(-20*time.Minute))) +
		block("expiring", "token", jwtExpiringAt(now.Add(5*time.Minute))) +
		block("lasting", "token", jwtExpiringAt(now.Add(24*time.Hour))) +
		block("static", "token", berlin.Token)
	writeOnly := supportsWriteOnly(t, os.Getenv("TF_ACC_TERRAFORM_PATH"))
	if writeOnly {
		config += block("writeonly", "token_wo", jwtExpiringAt(now.Add(-time.Hour)))
	}
	ws.Write(config)
	out := ws.MustRun(0, "plan", "-no-color")
	wants := []*regexp.Regexp{
		acctest.ErrorMatching(`Warning: The token of cluster "jwt-expired" has expired`, "kubefed_federation_cluster.expired",
			"The bearer token in token expired at", "Register the cluster with join"),
		acctest.ErrorMatching(`Warning: The token of cluster "jwt-expiring" expires soon`, "kubefed_federation_cluster.expiring",
			"The bearer token in token expires at"),
	}
	if writeOnly {
		wants = append(wants, acctest.ErrorMatching(`Warning: The token of cluster "jwt-writeonly" has expired`,
			"kubefed_federation_cluster.writeonly", "The bearer token in token_wo expired at"))
	}
	for _, want := range wants {
		if !want.MatchString(out) {
			t.Errorf("the plan does not warn as %s:\n%s", want, out)
		}
	}
	for _, quiet := range []string{`cluster "jwt-lasting"`, `cluster "jwt-static"`} {
		if strings.Contains(out, quiet) {
			t.Errorf("the plan warns of %s:\n%s", quiet, out)
		}
	}
}
