package registry

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

// readHost is a host with berlin registered, its write token in the
// federation namespace and its read token in the read credentials'
// namespace.
func readHost(t *testing.T) (*kubefake.Clientset, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	cluster := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "core.kubefed.io/v1beta1", "kind": "KubeFedCluster",
		"metadata": map[string]any{"name": "berlin", "namespace": "kube-federation-system"},
		"spec":     map[string]any{"apiEndpoint": "https://berlin.example", "secretRef": map[string]any{"name": "berlin-credentials"}},
	}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{KubeFedClusterResource: "KubeFedClusterList"}, cluster)
	secret := func(namespace, name, token string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
			Data: map[string][]byte{SecretKeyToken: []byte(token)}}
	}
	kube := kubefake.NewClientset(secret("kube-federation-system", "berlin-credentials", "write-token"),
		secret("planners", "berlin-read-credentials", "read-token"))
	return kube, dyn
}

// secretReadsIn are the namespaces whose Secrets the host was asked for.
func secretReadsIn(kube *kubefake.Clientset) map[string]bool {
	namespaces := map[string]bool{}
	for _, a := range kube.Actions() {
		if a.GetResource().Resource == "secrets" {
			namespaces[a.GetNamespace()] = true
		}
	}
	return namespaces
}

// A read-only registry reaches a cluster with its read credentials, and
// never asks for a Secret of the federation namespace; a writing one reads
// the write credentials as before.
func TestReadOnlyRegistryReadsOnlyReadCredentials(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name      string
		readOnly  bool
		wantToken string
		wantRead  string
	}{
		{name: "read-only", readOnly: true, wantToken: "read-token", wantRead: "planners"},
		{name: "writing", readOnly: false, wantToken: "write-token", wantRead: "kube-federation-system"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			kube, dyn := readHost(t)
			reg := New(kube, dyn, nil, "kube-federation-system", "kubefed-test").WithReadCredentials("planners", tt.readOnly)
			clusters, err := reg.Clusters(ctx)
			if err != nil || len(clusters) != 1 || clusters[0].Connection.Token != tt.wantToken {
				t.Fatalf("Clusters = %+v, %v; want berlin with token %q", clusters, err, tt.wantToken)
			}
			c, err := reg.GetCluster(ctx, "berlin")
			if err != nil || c.Connection.Token != tt.wantToken {
				t.Fatalf("GetCluster = %+v, %v; want token %q", c, err, tt.wantToken)
			}
			if got := secretReadsIn(kube); len(got) != 1 || !got[tt.wantRead] {
				t.Errorf("Secrets read in namespaces %v, want only %s", got, tt.wantRead)
			}
		})
	}
}

// A read-only registry sends no write: each write answers ErrReadOnly
// before any request, and the health it would record is still reported.
func TestReadOnlyRegistryWritesNothing(t *testing.T) {
	ctx := context.Background()
	kube, dyn := readHost(t)
	reg := New(kube, dyn, nil, "kube-federation-system", "kubefed-test").WithReadCredentials("planners", true)
	c, err := reg.GetCluster(ctx, "berlin")
	if err != nil {
		t.Fatal(err)
	}
	kube.ClearActions()
	dyn.ClearActions()
	probe := member.ProbeResult{Ready: true, Reason: member.ReasonReady, Time: time.Now()}
	health, err := reg.WriteHealthOver(ctx, *c, probe)
	if !errors.Is(err, ErrReadOnly) || !health.Ready {
		t.Errorf("WriteHealthOver = %+v, %v; want the probe's health and ErrReadOnly", health, err)
	}
	writes := map[string]error{"Bootstrap": reg.Bootstrap(ctx), "DeleteCluster": reg.DeleteCluster(ctx, "berlin", "berlin-credentials"),
		"ApplyReadCredentials": reg.ApplyReadCredentials(ctx, "berlin", Credentials{Token: "t"})}
	_, writes["RegisterCluster"] = reg.RegisterCluster(ctx, *c, probe)
	_, writes["ApplyCluster"] = reg.ApplyCluster(ctx, *c, probe)
	_, writes["UnregisteredCluster"] = reg.UnregisteredCluster(ctx, "berlin")
	for name, err := range writes {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s: %v, want ErrReadOnly", name, err)
		}
	}
	if len(kube.Actions())+len(dyn.Actions()) != 0 {
		t.Errorf("a read-only registry sent %v and %v", kube.Actions(), dyn.Actions())
	}
	if held, err := reg.HasCredentialSecret(ctx, "berlin-credentials"); !held || err != nil || len(kube.Actions()) != 0 {
		t.Errorf("HasCredentialSecret = %v, %v after %v; want true without asking", held, err, kube.Actions())
	}
}

// Read credentials go to their own Secret in their own namespace, created
// when missing; none given removes the Secret, and a destroy of the
// registration removes it too.
func TestApplyReadCredentials(t *testing.T) {
	ctx := context.Background()
	kube, dyn := readHost(t)
	var applied []string
	kube.PrependReactor("patch", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		applied = append(applied, a.GetResource().Resource+" "+a.GetNamespace()+"/"+a.(clienttesting.PatchAction).GetName())
		return true, nil, nil
	})
	reg := New(kube, dyn, nil, "kube-federation-system", "kubefed-test").WithReadCredentials("planners-2", false)
	if err := reg.ApplyReadCredentials(ctx, "berlin", Credentials{Token: "read"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"namespaces /planners-2", "secrets planners-2/berlin-read-credentials"}
	if len(applied) != 2 || applied[0] != want[0] || applied[1] != want[1] {
		t.Errorf("applied %q, want %q", applied, want)
	}
	reg = reg.WithReadCredentials("planners", false)
	if err := reg.ApplyReadCredentials(ctx, "berlin", Credentials{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Secrets("planners").Get(ctx, "berlin-read-credentials", metav1.GetOptions{}); err == nil {
		t.Error("no read credentials left their Secret in place")
	}
	if err := reg.ApplyReadCredentials(ctx, "berlin", Credentials{}); err != nil {
		t.Errorf("removing read credentials already gone: %v", err)
	}
}

// An update touches the read credentials' namespace only when the
// registration has read credentials or had some: an identity that may not
// write there updates a registration that never used them.
func TestApplyCluster_readCredentialsOnlyWhenUsed(t *testing.T) {
	probe := member.ProbeResult{Time: time.Now(), Ready: true, Reason: member.ReasonReady}
	for _, tt := range []struct {
		name string
		c    Cluster
		want []string
	}{
		{name: "never had any", want: []string{"cluster", "secret", "status"}},
		{name: "has some", c: Cluster{Read: Credentials{Token: "read"}}, want: []string{"cluster", "read secret", "secret", "status"}},
		{name: "had some: their Secret goes", c: Cluster{HadRead: true}, want: []string{"cluster", "delete read secret", "secret", "status"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := &hostWrites{}
			reg := h.registry()
			kube := reg.kubernetes.(*kubefake.Clientset)
			kube.PrependReactor("delete", "secrets", func(clienttesting.Action) (bool, runtime.Object, error) {
				return true, nil, h.record("delete read secret")
			})
			tt.c.Name, tt.c.SecretName = "berlin", "berlin-credentials"
			tt.c.Connection = member.Connection{APIEndpoint: "https://berlin.example:6443", Token: "t"}
			if _, err := reg.ApplyCluster(context.Background(), tt.c, probe); err != nil {
				t.Fatal(err)
			}
			if got := h.writes(); !slices.Equal(got, tt.want) {
				t.Errorf("writes = %v, want %v", got, tt.want)
			}
		})
	}
}
