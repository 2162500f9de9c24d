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
