package main

import (
	"slices"
	"testing"
)

func TestLogsDiscarded(t *testing.T) {
	cases := []struct {
		name    string
		environ []string
		want    bool
	}{
		{"no variables", nil, true},
		{"unrelated variables", []string{"HOME=/root", "TF_IN_AUTOMATION=1", "PATH=/bin"}, true},
		{"TF_LOG set", []string{"TF_LOG=DEBUG"}, false},
		{"only the provider's level", []string{"TF_LOG_PROVIDER=INFO"}, false},
		{"only this provider's level", []string{"TF_LOG_PROVIDER_KUBEFED=TRACE"}, false},
		{"a log file alone", []string{"TF_LOG_PATH=/tmp/tf.log"}, false},
		{"set but empty", []string{"TF_LOG="}, true},
		{"a value that names TF_LOG", []string{"NOTE=TF_LOG=DEBUG"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := logsDiscarded(tc.environ); got != tc.want {
				t.Errorf("logsDiscarded(%q) = %v, want %v", tc.environ, got, tc.want)
			}
		})
	}
}

func TestCollectLess(t *testing.T) {
	cases := []struct {
		name    string
		environ []string
		want    bool
	}{
		{"nothing said", []string{"HOME=/root", "TF_LOG=DEBUG"}, true},
		{"GOGC given", []string{"GOGC=100"}, false},
		{"GC off", []string{"GOGC=off"}, false},
		{"a memory limit given", []string{"GOMEMLIMIT=256MiB"}, false},
		{"a name that only starts alike", []string{"GOGCX=1"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := collectLess(tc.environ); got != tc.want {
				t.Errorf("collectLess(%q) = %v, want %v", tc.environ, got, tc.want)
			}
		})
	}
}

func TestQuietLoggers_nameTheProvidersOwnLoggerAfterItsType(t *testing.T) {
	cases := []struct {
		address string
		own     string
	}{
		{address, "TF_LOG_PROVIDER_KUBEFED"},
		{"registry.terraform.io/hashicorp/google-beta", "TF_LOG_PROVIDER_GOOGLE_BETA"},
		{"registry.opentofu.org/example/kubefed", "TF_LOG_PROVIDER_KUBEFED"},
	}
	for _, tc := range cases {
		t.Run(tc.address, func(t *testing.T) {
			got := quietLoggers(tc.address)
			for _, want := range []string{tc.own, "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK"} {
				if !slices.Contains(got, want) {
					t.Errorf("quietLoggers(%q) = %q, want it to hold %s", tc.address, got, want)
				}
			}
		})
	}
}
