package propagation

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/acctest"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/kube"
	"github.com/tf-kubefed/terraform-provider-kubefed/internal/listcache"
)

// logLines are the JSON lines of a tflogtest root logger.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	lines, err := tflogtest.MultilineJSONDecode(buf)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

func labMember(t *testing.T, name string, reads *listcache.Cache) Member {
	t.Helper()
	lab := acctest.Lab(t)
	clients, err := kube.NewClientFactory().NewClients(lab.Cluster(name).RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return Member{Name: name, Clients: clients, Reads: reads}
}

func testNamespace(t *testing.T, m Member, name string) {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := m.Clients.Kubernetes.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = m.Clients.Kubernetes.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}

func managedConfigMap(namespace, name string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q,"labels":{"kubefed.io/managed":"true"}},"data":{"k":"v"}}`,
		name, namespace)
}

// Every operation on a member is logged at DEBUG with the cluster, the
// object and the operation, and so is every request it makes.
func TestAccOperationsAreLoggedWithTheCluster(t *testing.T) {
	m := labMember(t, "berlin", nil)
	ns := fmt.Sprintf("logs-%d", time.Now().UnixNano()%1e9)
	testNamespace(t, m, ns)
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	o := Object{Resource: configMaps, Namespace: ns, Name: "logged"}
	if _, err := Apply(ctx, m, o, managedConfigMap(ns, "logged"), Options{FieldManager: "propagation-test"}); err != nil {
		t.Fatal(err)
	}
	var operations, requests int
	for _, line := range logLines(t, &buf) {
		if line["cluster"] != "berlin" {
			continue
		}
		switch line["@message"] {
		case "cluster operation":
			if line["operation"] == "apply" && line["object"] == o.String() && line["duration"] != nil {
				operations++
			}
		case "cluster request":
			if line["method"] == "PATCH" && line["object"] == o.String() {
				requests++
			}
		}
	}
	if operations != 1 || requests != 1 {
		t.Errorf("lines naming cluster berlin: %d apply operations, %d PATCH requests; want 1 and 1\n%s", operations, requests, buf.String())
	}
}

// Reads of many objects in one namespace are answered from one list of
// the cluster's managed objects; an object written since is read by name.
func TestAccReadsOfOneNamespaceShareOneList(t *testing.T) {
	m := labMember(t, "berlin", listcache.New(4))
	ns := fmt.Sprintf("reads-%d", time.Now().UnixNano()%1e9)
	testNamespace(t, m, ns)
	opts := Options{FieldManager: "propagation-test"}
	for i := range 10 {
		o := Object{Resource: configMaps, Namespace: ns, Name: fmt.Sprintf("c%d", i)}
		if _, err := Apply(context.Background(), Member{Name: m.Name, Clients: m.Clients}, o, managedConfigMap(ns, o.Name), opts); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &buf)
	applied := map[string]any{}
	if err := json.Unmarshal(managedConfigMap(ns, "c0"), &applied); err != nil {
		t.Fatal(err)
	}
	for i := range 11 {
		o := Object{Resource: configMaps, Namespace: ns, Name: fmt.Sprintf("c%d", i)}
		res, err := Read(ctx, m, o, applied, opts)
		if err != nil || res.Found != (i < 10) {
			t.Fatalf("Read(%s) = found %v, %v", o.Name, res.Found, err)
		}
	}
	lists, gets := 0, 0
	for _, line := range logLines(t, &buf) {
		if line["@message"] != "cluster request" || line["method"] != "GET" {
			continue
		}
		if line["path"] == "/api/v1/namespaces/"+ns+"/configmaps" {
			lists++
		} else {
			gets++
		}
	}
	// Ten objects in pages of four, and one read by name of the object
	// the list lacks.
	if lists != 3 || gets != 1 {
		t.Errorf("%d list pages and %d gets, want 3 and 1:\n%s", lists, gets, buf.String())
	}
}
