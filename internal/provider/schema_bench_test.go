package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// BenchmarkFreshServerSchema is what each provider process the CLI starts
// spends answering its first calls: a new server, its metadata and every
// schema. The CLI starts three or four processes per command, so this is
// paid that often.
func BenchmarkFreshServerSchema(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		server, err := Server("dev")()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := server.GetMetadata(ctx, &tfprotov6.GetMetadataRequest{}); err != nil {
			b.Fatal(err)
		}
		resp, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
		if err != nil {
			b.Fatal(err)
		}
		if len(resp.Diagnostics) > 0 || len(resp.ResourceSchemas) == 0 {
			b.Fatalf("schema: %d resources, diagnostics %v", len(resp.ResourceSchemas), resp.Diagnostics)
		}
	}
}
