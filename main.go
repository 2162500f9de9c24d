package main

import (
	"context"
	"flag"
	"log"
	"os"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/provider"
)

// version is set by goreleaser at release time.
var version = "dev"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	if logsDiscarded(os.Environ()) {
		for _, name := range quietLoggers {
			if err := os.Setenv(name, "off"); err != nil {
				log.Fatal(err)
			}
		}
	}
	err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: "registry.terraform.io/tf-kubefed/kubefed",
		Debug:   debug,
	})
	if err != nil {
		log.Fatal(err)
	}
}

// quietLoggers are the variables that set the level of the provider's own
// logger and of the SDK's loggers; unset, each logs at TRACE.
var quietLoggers = []string{"TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"}

// logsDiscarded reports whether Terraform or OpenTofu will throw away all
// the provider logs: they keep a provider's log lines only when one of the
// TF_LOG variables asks for them. The SDK still formats a line at TRACE for
// every request and every attribute it handles, a fifth of a large plan's
// CPU time, so in that case the loggers are turned off instead.
func logsDiscarded(environ []string) bool {
	for _, entry := range environ {
		name, value, _ := strings.Cut(entry, "=")
		if strings.HasPrefix(name, "TF_LOG") && value != "" {
			return false
		}
	}
	return true
}
