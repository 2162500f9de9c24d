package provider_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
)

// auditCases are the audit's bad inputs, by resource.
func auditCases(t *testing.T, prefix, ns string) []auditCase {
	var cases []auditCase
	cases = append(cases, auditProviderCases(t)...)
	cases = append(cases, auditClusterCases(t, prefix)...)
	cases = append(cases, auditTypeCases()...)
	cases = append(cases, auditObjectCases(prefix, ns)...)
	cases = append(cases, auditPreferenceCases(ns)...)
	cases = append(cases, auditDataSourceCases()...)
	return cases
}

func auditProviderCases(t *testing.T) []auditCase {
	host := acctest.Lab(t).Host()
	inline := func(extra string) string {
		return fmt.Sprintf(`
provider "kubefed" {
  host                   = %q
  token                  = %s
  cluster_ca_certificate = %s
%s
}
`, host.URL, acctest.Quote(host.Token), acctest.Quote(string(host.CAPEM)), extra)
	}
	return []auditCase{
		{name: "provider: request_timeout not a duration", provider: inline(`  request_timeout = "soon"`), attribute: "request_timeout"},
		{name: "provider: request_timeout negative", provider: inline(`  request_timeout = "-5s"`), attribute: "request_timeout"},
		{name: "provider: qps 0", provider: inline(`  qps = 0`), attribute: "qps"},
		{name: "provider: burst 0", provider: inline("  qps   = 20\n  burst = 0"), attribute: "burst"},
		{name: "provider: burst without qps", provider: inline(`  burst = 200`), attribute: "burst"},
		{name: "provider: max_parallel_clusters 0", provider: inline(`  max_parallel_clusters = 0`), attribute: "max_parallel_clusters"},
		{name: "provider: max_requests_per_cluster 0", provider: inline(`  max_requests_per_cluster = 0`), attribute: "max_requests_per_cluster"},
		{name: "provider: plan_validation unknown", provider: inline(`  plan_validation = "maybe"`), attribute: "plan_validation"},
		{name: "provider: federation_namespace not a DNS label", provider: inline(`  federation_namespace = "Fed_NS"`), attribute: "federation_namespace"},
		{name: "provider: field_manager empty", provider: inline(`  field_manager = ""`), attribute: "field_manager"},
		{name: "provider: wrong token", provider: fmt.Sprintf(`
provider "kubefed" {
  host                   = %q
  token                  = "not-the-token"
  cluster_ca_certificate = %s
}
`, host.URL, acctest.Quote(string(host.CAPEM))), attribute: "token"},
		{name: "provider: host unreachable", provider: `
provider "kubefed" {
  host  = "https://127.0.0.1:9"
  token = "x"
}
`, attribute: "host"},
		{name: "provider: kubeconfig missing", provider: `
provider "kubefed" {
  config_path = "/nonexistent/kubeconfig"
}
`, attribute: "config_path"},
		{name: "provider: kubeconfig context missing", provider: fmt.Sprintf(`
provider "kubefed" {
  config_path    = %q
  config_context = "nowhere"
}
`, host.KubeconfigPath), attribute: "nowhere"},
		{name: "provider: exec without command", provider: inline(`  exec {
    api_version = "client.authentication.k8s.io/v1"
  }`), attribute: "exec"},
	}
}

func auditClusterCases(t *testing.T, prefix string) []auditCase {
	lab := acctest.Lab(t)
	berlin := lab.Cluster("berlin")
	cluster := func(name, attrs string) string {
		return fmt.Sprintf(`
resource "kubefed_federation_cluster" "bad" {
  name = %q
%s
}
`, name, attrs)
	}
	valid := fmt.Sprintf(`  api_endpoint = %q
  ca_bundle    = %s
  token        = %s`, berlin.URL, acctest.Quote(string(berlin.CAPEM)), acctest.Quote(berlin.Token))
	with := func(replace, by string) string {
		lines := strings.Split(valid, "\n")
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), replace) {
				lines[i] = by
			}
		}
		return strings.Join(lines, "\n")
	}
	other := lab.Cluster("new-york")
	return []auditCase{
		{name: "cluster: name uppercase", config: cluster("Berlin2", valid), attribute: "name"},
		{name: "cluster: name empty", config: cluster("", valid), attribute: "name"},
		{name: "cluster: name with dots", config: cluster("eu.berlin", valid), attribute: "name"},
		{name: "cluster: name of 64 characters", config: cluster(strings.Repeat("b", 64), valid), attribute: "name"},
		{name: "cluster: endpoint ftp", config: cluster("audit-x", with("api_endpoint", `  api_endpoint = "ftp://203.0.113.1"`)), attribute: "api_endpoint"},
		{name: "cluster: endpoint without scheme", config: cluster("audit-x", with("api_endpoint", `  api_endpoint = "203.0.113.1:6443"`)), attribute: "api_endpoint"},
		{name: "cluster: endpoint without host", config: cluster("audit-x", with("api_endpoint", `  api_endpoint = "https://"`)), attribute: "api_endpoint"},
		{name: "cluster: ca_bundle not PEM", config: cluster("audit-x", with("ca_bundle", `  ca_bundle = "not a certificate"`)), attribute: "ca_bundle"},
		{name: "cluster: token empty", config: cluster("audit-x", with("token", `  token = ""`)), attribute: "token"},
		{name: "cluster: no credentials", config: cluster("audit-x", with("token", "")), attribute: "token"},
		{name: "cluster: token and certificate", config: cluster("audit-x", valid+"\n  client_certificate = "+acctest.Quote(string(berlin.CAPEM))), attribute: "token"},
		{name: "cluster: certificate without key", config: cluster("audit-x", with("token", "  client_certificate = "+acctest.Quote(string(berlin.CAPEM)))), attribute: "client_key"},
		{name: "cluster: key without certificate", config: cluster("audit-x", with("token", `  client_key = "key"`)), attribute: "client_certificate"},
		{name: "cluster: certificate not PEM", config: cluster("audit-x", with("token", "  client_certificate = \"cert\"\n  client_key = \"key\"")), attribute: "client_certificate"},
		{name: "cluster: label key invalid", config: cluster("audit-x", valid+"\n  labels = { \"bad key\" = \"x\" }"), attribute: "labels"},
		{name: "cluster: label value invalid", config: cluster("audit-x", valid+"\n  labels = { region = \"eu central\" }"), attribute: "labels"},
		{name: "cluster: TLS check unknown", config: cluster("audit-x", valid+"\n  disabled_tls_validations = [\"Everything\"]"), attribute: "disabled_tls_validations"},
		{name: "cluster: * with another TLS check", config: cluster("audit-x", valid+"\n  disabled_tls_validations = [\"*\", \"SubjectName\"]"), attribute: "disabled_tls_validations"},
		{name: "cluster: proxy_url socks", config: cluster("audit-x", valid+"\n  proxy_url = \"socks5://127.0.0.1:1080\""), attribute: "proxy_url"},
		{name: "cluster: proxy_url not a URL", config: cluster("audit-x", valid+"\n  proxy_url = \"://\""), attribute: "proxy_url"},
		{name: "cluster: wrong token", config: cluster("audit-x", with("token", `  token = "not-the-token"`)), attribute: "token", cluster: "audit-x"},
		{name: "cluster: endpoint nobody listens on", config: cluster("audit-x", with("api_endpoint", `  api_endpoint = "https://127.0.0.1:9"`)), attribute: "api_endpoint", cluster: "audit-x"},
		{name: "cluster: CA of another cluster", config: cluster("audit-x", with("ca_bundle", "  ca_bundle = "+acctest.Quote(string(other.CAPEM)))), attribute: "ca_bundle", cluster: "audit-x"},
		{name: "cluster: a second registration of a registered cluster", config: cluster(prefix+"-berlin", valid), attribute: "name", cluster: prefix + "-berlin"},
		{name: "cluster: token of another cluster", config: cluster("audit-x", with("token", "  token = "+acctest.Quote(other.Token))), attribute: "token", cluster: "audit-x"},
	}
}

func auditTypeCases() []auditCase {
	typ := func(attrs string) string {
		return fmt.Sprintf(`
resource "kubefed_federated_type" "bad" {
%s
}
`, attrs)
	}
	return []auditCase{
		{name: "type: kind the host does not serve", config: typ(`  target_api_version = "v1"
  target_kind        = "Gizmo"`), attribute: "target_kind"},
		{name: "type: API version malformed", config: typ(`  target_api_version = "v1/extra/more"
  target_kind        = "ConfigMap"`), attribute: "target_api_version"},
		{name: "type: API version empty", config: typ(`  target_api_version = ""
  target_kind        = "ConfigMap"`), attribute: "target_api_version"},
		{name: "type: kind lowercase", config: typ(`  target_api_version = "v1"
  target_kind        = "configmap"`), attribute: "target_kind"},
		{name: "type: kind empty", config: typ(`  target_api_version = "v1"
  target_kind        = ""`), attribute: "target_kind"},
		{name: "type: propagation unknown", config: typ(`  target_api_version = "v1"
  target_kind        = "Secret"
  propagation        = "Maybe"`), attribute: "propagation"},
		{name: "type: status collection unknown", config: typ(`  target_api_version = "v1"
  target_kind        = "Secret"
  status_collection  = "Sometimes"`), attribute: "status_collection"},
		{name: "type: a CRD the host does not serve, plural alone", config: typ(`  target_api_version = "example.com/v1"
  target_kind        = "Widget"
  target_plural      = "widgets"`), attribute: "target_kind"},
		{name: "type: a second type of an enabled kind", config: typ(`  target_api_version = "v1"
  target_kind        = "ConfigMap"`), attribute: "FederatedTypeConfig kube-federation-system/configmaps"},
		{name: "type: plural not lowercase", config: typ(`  target_api_version = "example.com/v1"
  target_kind        = "Widget"
  target_plural      = "Widgets"
  namespaced         = true`), attribute: "target_plural"},
	}
}

func auditObjectCases(prefix, ns string) []auditCase {
	sf := prefix + "-sf"
	object := func(typ, template, rest string) string {
		return fmt.Sprintf(`
resource "kubefed_federated_object" "bad" {
  type       = %s
  template   = %s
%s
  depends_on = [kubefed_federated_object.ns]
}
`, typ, template, rest)
	}
	cmType := "kubefed_federated_type.configmaps.name"
	cm := func(fields string) string {
		return fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "bad", namespace = %q }%s })`, ns, fields)
	}
	toSF := `  placement = { clusters = [kubefed_federation_cluster.sf.name] }`
	patch := func(p string) string {
		return toSF + "\n  overrides = [{ cluster = kubefed_federation_cluster.sf.name, patches = [" + p + "] }]"
	}
	deployment := func(spec string) string {
		return fmt.Sprintf(`yamlencode({ apiVersion = "apps/v1", kind = "Deployment", metadata = { name = "bad", namespace = %q }, spec = %s })`, ns, spec)
	}
	podSpec := `template = { metadata = { labels = { app = "bad" } }, spec = { containers = [{ name = "c", image = "nginx" }] } }`
	return []auditCase{
		{name: "object: template not YAML", config: object(cmType, `"kind: [unclosed"`, toSF), attribute: "template"},
		{name: "object: template broken JSON", config: object(cmType, `"{\"apiVersion\": \"v1\",}"`, toSF), attribute: "template"},
		{name: "object: two documents", config: object(cmType, `"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: x}\n"`, toSF), attribute: "template"},
		{name: "object: template empty", config: object(cmType, `""`, toSF), attribute: "template"},
		{name: "object: template a list", config: object(cmType, `yamlencode([1, 2])`, toSF), attribute: "template"},
		{name: "object: template a scalar", config: object(cmType, `"hello"`, toSF), attribute: "template"},
		{name: "object: no apiVersion", config: object(cmType, fmt.Sprintf(`yamlencode({ kind = "ConfigMap", metadata = { name = "bad", namespace = %q } })`, ns), toSF), attribute: "apiVersion"},
		{name: "object: no kind", config: object(cmType, fmt.Sprintf(`yamlencode({ apiVersion = "v1", metadata = { name = "bad", namespace = %q } })`, ns), toSF), attribute: "kind"},
		{name: "object: no name", config: object(cmType, fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { namespace = %q } })`, ns), toSF), attribute: "metadata.name"},
		{name: "object: no namespace for a namespaced kind", config: object(cmType, `yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "bad" } })`, toSF), attribute: "metadata.namespace"},
		{name: "object: name a number", config: object(cmType, fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = 5, namespace = %q } })`, ns), toSF), attribute: "metadata.name"},
		{name: "object: labels a list", config: object(cmType, fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "bad", namespace = %q, labels = ["a"] } })`, ns), toSF), attribute: "metadata.labels"},
		{name: "object: label value a number", config: object(cmType, fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "bad", namespace = %q, labels = { tier = 1 } } })`, ns), toSF), attribute: "tier"},
		{name: "object: label key invalid", config: object(cmType, fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "bad", namespace = %q, labels = { "bad key" = "x" } } })`, ns), toSF), attribute: "bad key"},
		{name: "object: template of another kind than the type", config: object(cmType, fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "Secret", metadata = { name = "bad", namespace = %q } })`, ns), toSF), attribute: "template"},
		{name: "object: template of another group", config: object("kubefed_federated_type.deployments.name", fmt.Sprintf(`yamlencode({ apiVersion = "extensions/v1beta1", kind = "Deployment", metadata = { name = "bad", namespace = %q } })`, ns), toSF), attribute: "template"},
		{name: "object: type not enabled", config: object(`"secrets"`, cm(""), toSF), attribute: "type"},
		{name: "object: type empty", config: object(`""`, cm(""), toSF), attribute: "type"},
		{name: "object: cluster not registered", config: object(cmType, cm(""), `  placement = { clusters = ["atlantis"] }`), attribute: "placement.clusters"},
		{name: "object: cluster name invalid", config: object(cmType, cm(""), `  placement = { clusters = ["Atlantis"] }`), attribute: "placement.clusters"},
		{name: "object: selector label key invalid", config: object(cmType, cm(""), `  placement = { cluster_selector = { match_labels = { "bad key" = "x" } } }`), attribute: "placement.cluster_selector"},
		{name: "object: selector operator unknown", config: object(cmType, cm(""), `  placement = { cluster_selector = { match_expressions = [{ key = "region", operator = "Near", values = ["x"] }] } }`), attribute: "placement.cluster_selector"},
		{name: "object: selector In without values", config: object(cmType, cm(""), `  placement = { cluster_selector = { match_expressions = [{ key = "region", operator = "In" }] } }`), attribute: "placement.cluster_selector"},
		{name: "object: selector Exists with values", config: object(cmType, cm(""), `  placement = { cluster_selector = { match_expressions = [{ key = "region", operator = "Exists", values = ["x"] }] } }`), attribute: "placement.cluster_selector"},
		{name: "object: override targets nothing", config: object(cmType, cm(""), toSF+"\n  overrides = [{ patches = [{ path = \"/data/a\", value = jsonencode(\"b\") }] }]"), attribute: "override rule 0"},
		{name: "object: override targets by name and selector", config: object(cmType, cm(""), toSF+"\n  overrides = [{ cluster = \"x\", cluster_selector = {}, patches = [{ path = \"/data/a\", value = jsonencode(\"b\") }] }]"), attribute: "override rule 0"},
		{name: "object: two rules for one cluster by name", config: object(cmType, cm(`, data = { a = "b" }`), toSF+"\n  overrides = [{ cluster = \"x\", patches = [{ path = \"/data/a\", value = jsonencode(\"c\") }] }, { cluster = \"x\", patches = [{ path = \"/data/a\", value = jsonencode(\"d\") }] }]"), attribute: "override rule 1"},
		{name: "object: patch op unknown", config: object(cmType, cm(""), patch(`{ op = "jump", path = "/data/a", value = jsonencode("b") }`)), attribute: "overrides[0].patches[0].op"},
		{name: "object: patch path without slash", config: object(cmType, cm(""), patch(`{ path = "data/a", value = jsonencode("b") }`)), attribute: "overrides[0].patches[0].path"},
		{name: "object: patch of the name", config: object(cmType, cm(""), patch(`{ path = "/metadata/name", value = jsonencode("x") }`)), attribute: "/metadata/name"},
		{name: "object: patch of the kind", config: object(cmType, cm(""), patch(`{ path = "/kind", value = jsonencode("Secret") }`)), attribute: "/kind"},
		{name: "object: patch of the namespace", config: object(cmType, cm(""), patch(`{ path = "/metadata/namespace", value = jsonencode("x") }`)), attribute: "/metadata/namespace"},
		{name: "object: patch value not JSON", config: object(cmType, cm(""), patch(`{ path = "/data/a", value = "green" }`)), attribute: "value"},
		{name: "object: remove with a value", config: object(cmType, cm(`, data = { a = "b" }`), patch(`{ op = "remove", path = "/data/a", value = jsonencode("b") }`)), attribute: "override rule 0, patch 0"},
		{name: "object: add without a value", config: object(cmType, cm(""), patch(`{ op = "add", path = "/data" }`)), attribute: "override rule 0, patch 0"},
		{name: "object: replace below a missing parent", config: object(cmType, cm(""), patch(`{ path = "/data/a/b", value = jsonencode("c") }`)), attribute: "override rule 0, patch 0", cluster: sf},
		{name: "object: remove of a missing field", config: object(cmType, cm(""), patch(`{ op = "remove", path = "/data/a" }`)), attribute: "override rule 0, patch 0", cluster: sf},
		{name: "object: add at an index out of range", config: object("kubefed_federated_type.services.name",
			fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "Service", metadata = { name = "bad", namespace = %q }, spec = { ports = [{ port = 80 }] } })`, ns),
			patch(`{ op = "add", path = "/spec/ports/5", value = jsonencode({ port = 81 }) }`)), attribute: "override rule 0, patch 0", cluster: sf},
		{name: "object: a label set to a number by an override", config: object(cmType, cm(""), patch(`{ op = "add", path = "/metadata/labels", value = jsonencode({ tier = 1 }) }`)), attribute: "override rule 0, patch 0", cluster: sf},
		{name: "object: an empty path segment", config: object(cmType, cm(""), patch(`{ op = "add", path = "/metadata/labels/", value = jsonencode("x") }`)), attribute: "override rule 0, patch 0"},
		{name: "object: cluster_replicas negative", config: object("kubefed_federated_type.deployments.name", deployment(`{ selector = { matchLabels = { app = "bad" } }, `+podSpec+` }`),
			`  cluster_replicas = { (kubefed_federation_cluster.sf.name) = -1 }`), attribute: "replicas", cluster: sf},
		{name: "object: cluster_replicas for an unregistered cluster", config: object("kubefed_federated_type.deployments.name", deployment(`{ selector = { matchLabels = { app = "bad" } }, `+podSpec+` }`),
			`  cluster_replicas = { atlantis = 1 }`), attribute: "cluster_replicas"},
		{name: "object: deletion_policy unknown", config: object(cmType, cm(""), toSF+"\n  deletion_policy = \"Keep\""), attribute: "deletion_policy"},
		{name: "object: timeout not a duration", config: object(cmType, cm(""), toSF+"\n  timeouts = { create = \"soon\" }"), attribute: "soon"},
		{name: "object: timeout zero", config: object(cmType, cm(""), toSF+"\n  timeouts = { create = \"0s\" }"), attribute: "timeouts.create"},
		{name: "object: Service port out of range", config: object("kubefed_federated_type.services.name",
			fmt.Sprintf(`yamlencode({ apiVersion = "v1", kind = "Service", metadata = { name = "bad", namespace = %q }, spec = { ports = [{ port = 99999 }] } })`, ns), toSF),
			attribute: "spec.ports[0].port", cluster: sf},
		{name: "object: Deployment replicas a string", config: object("kubefed_federated_type.deployments.name", deployment(`{ replicas = "three", selector = { matchLabels = { app = "bad" } }, `+podSpec+` }`), toSF),
			attribute: ".spec.replicas", cluster: sf},
		{name: "object: Deployment without a selector", config: object("kubefed_federated_type.deployments.name", deployment(`{ `+podSpec+` }`), toSF),
			attribute: "spec.selector", cluster: sf},
		{name: "object: Deployment selector not matching its pods", config: object("kubefed_federated_type.deployments.name", deployment(`{ selector = { matchLabels = { app = "other" } }, `+podSpec+` }`), toSF),
			attribute: "spec.template.metadata.labels", cluster: sf},
		{name: "object: ConfigMap data value a number", config: object(cmType, cm(`, data = { a = 1 }`), toSF), attribute: ".data.a", cluster: sf},
		{name: "object: a field the kind does not have", config: object(cmType, cm(`, spec = { a = 1 }`), toSF), attribute: ".spec", cluster: sf},
		{name: "object: apiVersion overridden to one the member does not serve", config: object(cmType, cm(""), patch(`{ path = "/apiVersion", value = jsonencode("v9") }`)),
			attribute: "/apiVersion", cluster: sf},
		{name: "object: a namespace no member has", config: object(cmType, `yamlencode({ apiVersion = "v1", kind = "ConfigMap", metadata = { name = "bad", namespace = "nowhere-at-all" } })`, toSF),
			attribute: "nowhere-at-all", cluster: sf},
		{name: "object: a second resource for a federated object", config: `
resource "kubefed_federated_object" "bad" {
  type       = kubefed_federated_type.namespaces.name
  template   = yamlencode({ apiVersion = "v1", kind = "Namespace", metadata = { name = "` + ns + `" } })
  placement  = { clusters = [kubefed_federation_cluster.sf.name] }
}
`, attribute: "FederatedNamespace " + ns + "/" + ns},
	}
}

func auditPreferenceCases(ns string) []auditCase {
	rsp := func(attrs string) string {
		return fmt.Sprintf(`
resource "kubefed_replica_scheduling_preference" "bad" {
  namespace = %q
%s
}
`, ns, attrs)
	}
	return []auditCase{
		{name: "preference: total negative", config: rsp(`  name = "web"
  total_replicas = -1`), attribute: "total_replicas"},
		{name: "preference: total above int32", config: rsp(`  name = "web"
  total_replicas = 3000000000`), attribute: "total_replicas"},
		{name: "preference: min above max", config: rsp(`  name = "web"
  total_replicas = 3
  clusters = { "*" = { min_replicas = 3, max_replicas = 2 } }`), attribute: `preferences["*"]`},
		{name: "preference: min negative", config: rsp(`  name = "web"
  total_replicas = 3
  clusters = { "*" = { min_replicas = -1 } }`), attribute: "min_replicas"},
		{name: "preference: max negative", config: rsp(`  name = "web"
  total_replicas = 3
  clusters = { "*" = { max_replicas = -1 } }`), attribute: "max_replicas"},
		{name: "preference: weight negative", config: rsp(`  name = "web"
  total_replicas = 3
  clusters = { "*" = { weight = -1 } }`), attribute: "weight"},
		{name: "preference: strategy unknown", config: rsp(`  name = "web"
  total_replicas = 3
  strategy = "random"`), attribute: "strategy"},
		{name: "preference: target kind not federated", config: rsp(`  name = "web"
  total_replicas = 3
  target_kind = "Deployment"`), attribute: "target_kind"},
		{name: "preference: replicas_path not a pointer", config: rsp(`  name = "web"
  total_replicas = 3
  replicas_path = "spec/replicas"`), attribute: "replicas_path"},
		{name: "preference: selector operator unknown", config: rsp(`  name = "web"
  total_replicas = 3
  cluster_selector = { match_expressions = [{ key = "x", operator = "Near" }] }`), attribute: "cluster_selector"},
		{name: "preference: namespace invalid", config: strings.Replace(rsp(`  name = "web"
  total_replicas = 3`), fmt.Sprintf("%q", ns), `"Bad_NS"`, 1), attribute: "namespace"},
		{name: "preference: name empty", config: rsp(`  name = ""
  total_replicas = 3`), attribute: "name"},
		{name: "preference: a second preference for one object", config: rsp(`  name = "web"
  total_replicas = 3`) + strings.Replace(rsp(`  name = "web"
  total_replicas = 4`), `"bad"`, `"bad2"`, 1), attribute: "ReplicaSchedulingPreference " + ns + "/web"},
	}
}

func auditDataSourceCases() []auditCase {
	ds := func(selector string) string {
		return `
data "kubefed_clusters" "bad" {
  cluster_selector = ` + selector + `
}
`
	}
	return []auditCase{
		{name: "data source: selector label key invalid", config: ds(`{ match_labels = { "bad key" = "x" } }`), attribute: "cluster_selector"},
		{name: "data source: selector operator unknown", config: ds(`{ match_expressions = [{ key = "x", operator = "Near" }] }`), attribute: "cluster_selector"},
		{name: "data source: selector In without values", config: ds(`{ match_expressions = [{ key = "x", operator = "In" }] }`), attribute: "cluster_selector"},
		{name: "data source: selector label value invalid", config: ds(`{ match_labels = { region = "eu central" } }`), attribute: "cluster_selector"},
	}
}
