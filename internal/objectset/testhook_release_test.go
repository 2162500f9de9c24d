//go:build !kubefedtest

package objectset

import "testing"

// A release build ignores the test hook that cuts a create off: with the
// variable naming the object, the process goes on (the test binary would
// exit with status 3 otherwise).
func TestReleaseBuildIgnoresTheExitHook(t *testing.T) {
	t.Setenv("KUBEFED_TEST_EXIT_AFTER_HOST_WRITE", "configmaps/shop/settings")
	exitAfterHostWrite("configmaps/shop/settings")
}
