package provider_test

import (
	"testing"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/provider"
)

// The protocol server answers kubefed_federated_object's no-change plans
// itself only while fastpath.Check accepts its schema; Server fails
// otherwise, so that a schema change cannot lose that silently.
func TestServer_answersFederatedObjectPlansItself(t *testing.T) {
	if _, err := provider.Server("test")(); err != nil {
		t.Fatal(err)
	}
}
