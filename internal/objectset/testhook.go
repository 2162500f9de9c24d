//go:build kubefedtest

package objectset

import "os"

// exitAfterHostWriteEnv names the id of a federated object whose create
// makes the provider exit right after it wrote the object's host record, as
// a process killed at that moment would: how the acceptance tests cut a
// create off between its host write and its end. Only test builds (the
// kubefedtest build tag) honour it.
const exitAfterHostWriteEnv = "KUBEFED_TEST_EXIT_AFTER_HOST_WRITE"

// exitAfterHostWrite ends the process when exitAfterHostWriteEnv names id.
func exitAfterHostWrite(id string) {
	if v := os.Getenv(exitAfterHostWriteEnv); v != "" && v == id {
		os.Exit(3)
	}
}

// exitAfterMemberWritesEnv names the id of a federated object whose apply
// makes the provider exit right after the members were written, before
// the host records are completed, as a process killed then would.
const exitAfterMemberWritesEnv = "KUBEFED_TEST_EXIT_AFTER_MEMBER_WRITES"

// exitAfterMemberWrites ends the process when exitAfterMemberWritesEnv
// names the id of one of objects.
func exitAfterMemberWrites(objects []*Object) {
	v := os.Getenv(exitAfterMemberWritesEnv)
	for _, o := range objects {
		if v != "" && v == o.ID {
			os.Exit(3)
		}
	}
}
