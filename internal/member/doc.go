// Package member owns everything about reaching a member cluster: how its
// connection (endpoint, CA, credentials, the TLS checks KubeFed lets a
// registration skip) becomes a client-go configuration, the clients one run
// shares per member, and the health probe. The host's records of members are
// the registry's business; what is done on a member is propagation's.
package member
