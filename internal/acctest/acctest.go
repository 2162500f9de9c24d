// Package acctest runs acceptance tests against the lab: a real host and
// real member clusters on loopback. It attaches to the lab that `make lab-up`
// started, or starts one for the test run and stops it afterwards.
package acctest

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/lab"
)

var running *lab.Lab

// Main is the TestMain of packages with acceptance tests. Without TF_ACC it
// runs the unit tests alone and starts nothing.
func Main(m *testing.M) {
	if os.Getenv("TF_ACC") == "" {
		os.Exit(m.Run())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	l, err := lab.Up(ctx, lab.Config{Log: func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "lab: "+format+"\n", args...)
	}})
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "acceptance tests need the lab, and it did not start: %v\n"+
			"(set KUBEFED_LAB_KUBE_APISERVER to a kube-apiserver binary, or run `make testacc`)\n", err)
		os.Exit(1)
	}
	running = l
	code := m.Run()
	if l.Created() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := l.Down(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "stopping the lab: %v\n", err)
			code = 1
		}
		cancel()
	}
	os.Exit(code)
}

// Lab returns the running lab. Without TF_ACC it skips the test, as
// resource.Test does, since there is no lab then.
func Lab(t testing.TB) *lab.Lab {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: runs with TF_ACC=1 against the lab (make testacc)")
	}
	if running == nil {
		t.Fatal("the lab is not running: acceptance tests run under acctest.Main with TF_ACC=1")
	}
	return running
}

// HostProviderConfig is a provider block that reaches the lab's host through
// its kubeconfig context.
func HostProviderConfig(t testing.TB) string {
	host := Lab(t).Host()
	return fmt.Sprintf(`
provider "kubefed" {
  config_path    = %q
  config_context = %q
}
`, host.KubeconfigPath, host.Context)
}

// Quote renders s as an HCL string literal. Go's quoting escapes newlines
// and quotes the way HCL reads them, which is all PEM and tokens need.
func Quote(s string) string {
	return fmt.Sprintf("%q", s)
}

// ErrorMatching builds a pattern for ExpectError from phrases that must
// appear in that order. The CLIs wrap diagnostics at any space, so each
// space matches any run of white space.
func ErrorMatching(phrases ...string) *regexp.Regexp {
	quoted := make([]string, len(phrases))
	for i, phrase := range phrases {
		quoted[i] = strings.Join(strings.Fields(regexp.QuoteMeta(phrase)), `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(quoted, ".*"))
}
