//go:build !kubefedtest

package member

import "testing"

// A release build ignores the test hook that cuts a join off: with the
// variable naming the cluster, the process goes on (the test binary would
// exit with status 3 otherwise).
func TestReleaseBuildIgnoresTheJoinExitHook(t *testing.T) {
	t.Setenv("KUBEFED_TEST_EXIT_AFTER_JOIN", "berlin")
	exitAfterJoin("berlin")
}
