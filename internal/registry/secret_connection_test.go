package registry

import (
	"context"
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/member"
)

// A cluster whose KubeFedCluster is gone is reached with what its Secret
// records; a Secret that records nothing, or another cluster, does not
// stand in for it.
func TestUnregisteredCluster(t *testing.T) {
	berlin := Cluster{Name: "berlin", SecretName: "berlin-credentials", Connection: member.Connection{
		APIEndpoint: "https://berlin.example:6443", CABundle: []byte("CA"), DisabledTLSValidations: []string{member.TLSSubjectName},
		ProxyURL: "http://proxy.example:3128",
	}, Identity: "uid-berlin"}
	recorded, err := connectionAnnotation(berlin)
	if err != nil {
		t.Fatal(err)
	}
	secret := func(name string, annotations map[string]string, token string) *corev1.Secret {
		return &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-federation-system", Annotations: annotations},
			Data:       map[string][]byte{SecretKeyToken: []byte(token)},
		}
	}
	kube := kubefake.NewClientset(
		secret("berlin-credentials", map[string]string{SecretConnectionAnnotation: recorded}, "berlin-token"),
		secret("paris-credentials", nil, "paris-token"),
		secret("broken", map[string]string{SecretConnectionAnnotation: "{not json"}, "x"),
	)
	reg := New(kube, nil, nil, "kube-federation-system", "kubefed-test")

	got, err := reg.UnregisteredCluster(context.Background(), "berlin")
	if err != nil {
		t.Fatal(err)
	}
	if got.Identity != "uid-berlin" {
		t.Errorf("berlin's identity %q, want the one its Secret records", got.Identity)
	}
	want := berlin.Connection
	want.Token = "berlin-token"
	if got.SecretName != "berlin-credentials" || got.Connection.APIEndpoint != want.APIEndpoint || string(got.Connection.CABundle) != "CA" ||
		got.Connection.Token != want.Token || got.Connection.ProxyURL != want.ProxyURL ||
		!slices.Equal(got.Connection.DisabledTLSValidations, want.DisabledTLSValidations) {
		t.Errorf("berlin reached with %+v (Secret %s), want %+v", got.Connection, got.SecretName, want)
	}
	for _, name := range []string{"paris", "tokyo"} {
		if _, err := reg.UnregisteredCluster(context.Background(), name); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: err %v, want ErrNotFound", name, err)
		}
	}
}
