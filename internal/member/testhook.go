//go:build kubefedtest

package member

import "os"

// exitAfterJoinEnv names a cluster whose join makes the provider exit
// right after it made the join's accounts on the member, before the
// registration, as a process killed at that moment would: how the
// acceptance tests cut a join off. Only test builds (the kubefedtest build
// tag) honour it.
const exitAfterJoinEnv = "KUBEFED_TEST_EXIT_AFTER_JOIN"

// exitAfterJoin ends the process when exitAfterJoinEnv names cluster.
func exitAfterJoin(cluster string) {
	if v := os.Getenv(exitAfterJoinEnv); v != "" && v == cluster {
		os.Exit(3)
	}
}
