package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseLatency(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    time.Duration
		wantErr bool
	}{
		{"80ms", 80 * time.Millisecond, false},
		{"0", 0, false},
		{"0s", 0, false},
		{"1.5s", 1500 * time.Millisecond, false},
		{"80", 0, true},
		{"-10ms", 0, true},
		{"fast", 0, true},
	} {
		got, err := parseLatency(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseLatency(%q) = %v, %v; want %v, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestRunWithoutALab(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab")
	for _, tc := range []struct {
		args     []string
		code     int
		inOutput string
	}{
		{nil, 2, "Usage"},
		{[]string{"help"}, 0, "Usage"},
		{[]string{"launch"}, 2, `unknown command "launch"`},
		{[]string{"-dir", dir, "status"}, 1, "no lab in " + dir},
		{[]string{"status", "-dir", dir}, 1, "no lab in " + dir},
		{[]string{"-dir", dir, "down"}, 0, "no lab running"},
		{[]string{"-dir", dir, "stop"}, 2, "want 1 argument"},
		{[]string{"-dir", dir, "latency", "berlin"}, 2, "want 2 argument"},
		{[]string{"-dir", dir, "up", "extra"}, 2, "unexpected arguments"},
	} {
		var out bytes.Buffer
		code := run(t.Context(), tc.args, &out, &out)
		if code != tc.code || !strings.Contains(out.String(), tc.inOutput) {
			t.Errorf("kubefed-lab %s: exit %d, output\n%s\nwant exit %d and %q", strings.Join(tc.args, " "), code, out.String(), tc.code, tc.inOutput)
		}
	}
	// Looking for a lab must not create its directory.
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s exists after commands on a missing lab (%v)", dir, err)
	}
}
