package main

import (
	"flag"
	"log"
	"os"
	runtimedebug "runtime/debug"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/provider"
)

// version is set by goreleaser at release time.
var version = "dev"

// address is the provider's source address in the registry.
const address = "registry.terraform.io/tf-kubefed/kubefed"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers like delve")
	flag.Parse()

	if logsDiscarded(os.Environ()) {
		for _, name := range quietLoggers(address) {
			if err := os.Setenv(name, "off"); err != nil {
				log.Fatal(err)
			}
		}
	}
	if collectLess(os.Environ()) {
		runtimedebug.SetGCPercent(gcPercent)
		runtimedebug.SetMemoryLimit(gcMemoryLimit)
	}
	server, err := provider.Server(version)()
	if err != nil {
		log.Fatal(err)
	}
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	if err := tf6server.Serve(address, func() tfprotov6.ProviderServer { return server }, opts...); err != nil {
		log.Fatal(err)
	}
}

// The provider is a process of one run, and most of what it allocates
// lives for one request: with Go's default (GOGC=100) a no-change plan of
// 200 objects spends over a quarter of its CPU collecting garbage. It
// collects when the heap has grown by gcPercent instead, which about
// doubles its peak memory, and harder again as the heap nears
// gcMemoryLimit.
const (
	gcPercent     = 300
	gcMemoryLimit = 768 << 20
)

// collectLess reports whether the provider sets gcPercent and
// gcMemoryLimit: unless GOGC or GOMEMLIMIT in the environment says how to
// collect.
func collectLess(environ []string) bool {
	for _, entry := range environ {
		name, _, _ := strings.Cut(entry, "=")
		if name == "GOGC" || name == "GOMEMLIMIT" {
			return false
		}
	}
	return true
}

// quietLoggers are the variables that set the level of the provider's own
// logger and of the SDK's loggers; unset, each logs at TRACE. The
// provider's own logger takes its level from a variable named after the
// provider's type, TF_LOG_PROVIDER_KUBEFED, not from TF_LOG_PROVIDER: the
// SDK names it TF_LOG_PROVIDER_ and the type in capitals, with each "-"
// made "_".
func quietLoggers(sourceAddress string) []string {
	providerType := sourceAddress[strings.LastIndex(sourceAddress, "/")+1:]
	own := "TF_LOG_PROVIDER_" + strings.ToUpper(strings.ReplaceAll(providerType, "-", "_"))
	return []string{own, "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"}
}

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
