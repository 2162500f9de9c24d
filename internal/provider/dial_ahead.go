package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// An apply's provider process learns how to reach the members only from the
// host: their endpoints, CAs and tokens are in the host's records, which
// its first read brings. A far member then costs the TCP and TLS round
// trips of its connection after that read, before its first request. So
// each refresh and apply of a resource notes the endpoints of the members
// it is on, and the next apply's update or destroy of it starts those
// connections at once, beside the host's read; the member's clients take
// one over when the host's record still gives that endpoint and a token
// (member.Pool.DialAhead).

// noteMemberEndpoints records in private the endpoints of the clusters a
// resource is on, that the next apply can dial ahead; with none it forgets
// the note.
func (d *providerData) noteMemberEndpoints(ctx context.Context, private privateData, clusters []string) diag.Diagnostics {
	snapshot, err := d.snapshot(ctx)
	if err != nil {
		return nil
	}
	endpoints := snapshot.AheadEndpoints(clusters)
	if len(endpoints) == 0 {
		return memberEndpointsNote.Forget(ctx, private)
	}
	return memberEndpointsNote.Save(ctx, private, endpoints)
}

// dialMembersAhead starts the connections to the members private notes,
// unless they are open or opening already.
func (d *providerData) dialMembersAhead(ctx context.Context, private privateData) diag.Diagnostics {
	endpoints, diags := memberEndpointsNote.Load(ctx, private)
	if endpoints == nil || !d.hostKnown() {
		return diags
	}
	for _, name := range sortedKeys(*endpoints) {
		d.members.DialAhead(ctx, name, (*endpoints)[name])
	}
	return diags
}
