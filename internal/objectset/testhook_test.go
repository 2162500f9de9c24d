//go:build kubefedtest

package objectset

import (
	"errors"
	"os"
	"os/exec"
	"testing"
)

// A test build ends the process right after the host write of the object
// the variable names, and only of that one.
func TestTestBuildExitsAfterTheNamedHostWrite(t *testing.T) {
	if id := os.Getenv("KUBEFED_TEST_EXIT_CHILD"); id != "" {
		exitAfterHostWrite(id)
		return
	}
	for _, tt := range []struct {
		id       string
		wantExit int
	}{{"configmaps/shop/settings", 3}, {"configmaps/shop/other", 0}} {
		if code := childExit(t, "TestTestBuildExitsAfterTheNamedHostWrite", tt.id, "KUBEFED_TEST_EXIT_AFTER_HOST_WRITE"); code != tt.wantExit {
			t.Errorf("a write of %s exited with %d, want %d", tt.id, code, tt.wantExit)
		}
	}
}

// A test build ends the process right after the member writes of a set
// that holds the object the variable names, and only of such a set.
func TestTestBuildExitsAfterTheNamedMemberWrites(t *testing.T) {
	if id := os.Getenv("KUBEFED_TEST_EXIT_CHILD"); id != "" {
		exitAfterMemberWrites([]*Object{{ID: "configmaps/shop/other"}, {ID: id}})
		return
	}
	for _, tt := range []struct {
		id       string
		wantExit int
	}{{"configmaps/shop/settings", 3}, {"configmaps/shop/third", 0}} {
		if code := childExit(t, "TestTestBuildExitsAfterTheNamedMemberWrites", tt.id, "KUBEFED_TEST_EXIT_AFTER_MEMBER_WRITES"); code != tt.wantExit {
			t.Errorf("the member writes of a set holding %s exited with %d, want %d", tt.id, code, tt.wantExit)
		}
	}
}

// childExit runs test again in a child process working on id, with hook
// naming configmaps/shop/settings, and returns the child's exit code.
func childExit(t *testing.T, test, id, hook string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), "KUBEFED_TEST_EXIT_CHILD="+id, hook+"=configmaps/shop/settings")
	var exit *exec.ExitError
	if err := cmd.Run(); errors.As(err, &exit) {
		return exit.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", test, err)
	}
	return 0
}
