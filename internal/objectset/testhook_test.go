//go:build kubefedtest

package objectset

import (
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
		cmd := exec.Command(os.Args[0], "-test.run=^TestTestBuildExitsAfterTheNamedHostWrite$")
		cmd.Env = append(os.Environ(), "KUBEFED_TEST_EXIT_CHILD="+tt.id, "KUBEFED_TEST_EXIT_AFTER_HOST_WRITE=configmaps/shop/settings")
		err := cmd.Run()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		}
		if code != tt.wantExit {
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
		cmd := exec.Command(os.Args[0], "-test.run=^TestTestBuildExitsAfterTheNamedMemberWrites$")
		cmd.Env = append(os.Environ(), "KUBEFED_TEST_EXIT_CHILD="+tt.id, "KUBEFED_TEST_EXIT_AFTER_MEMBER_WRITES=configmaps/shop/settings")
		err := cmd.Run()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		}
		if code != tt.wantExit {
			t.Errorf("the member writes of a set holding %s exited with %d, want %d", tt.id, code, tt.wantExit)
		}
	}
}
