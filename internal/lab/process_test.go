package lab

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStartProcessDetachesAndLogs(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "out.log")
	args := []string{"/bin/sh", "-c", "echo hello from the child; sleep 60 & echo $! > child.pid; wait"}
	p, err := startProcess(args[0], args, os.Environ(), dir, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stopProcess(context.Background(), p, time.Second) })
	if !p.running() {
		t.Fatal("running() = false for a live child")
	}
	if sid := session(t, p.PID); sid != p.PID {
		t.Errorf("child session = %d, want its own (%d): it would die with our terminal", sid, p.PID)
	}
	waitFor(t, func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "hello from the child")
	})
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "started by kubefed-lab") {
		t.Errorf("log lacks the start banner:\n%s", b)
	}

	// Stopping signals the whole process group: the grandchild goes too.
	var grandchild int
	waitFor(t, func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "child.pid"))
		grandchild, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	if err := stopProcess(t.Context(), p, stopGrace); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return isZombie(grandchild) })
}

func TestRunningRejectsAnotherCommandLine(t *testing.T) {
	p := startSleep(t)
	other := procInfo{PID: p.PID, Args: []string{"/bin/sleep", "61"}}
	if other.running() {
		t.Error("running() = true for a pid whose command line differs: a recycled pid would be signalled")
	}
	if (procInfo{}).running() {
		t.Error("running() = true for the zero procInfo")
	}
}

func TestStopProcessLeavesNothing(t *testing.T) {
	p := startSleep(t)
	if err := stopProcess(t.Context(), p, stopGrace); err != nil {
		t.Fatal(err)
	}
	if p.running() {
		t.Fatal("process still running after stopProcess")
	}
	// Stopping again is a no-op.
	if err := stopProcess(t.Context(), p, stopGrace); err != nil {
		t.Errorf("second stop: %v", err)
	}
}

func TestStopProcessKillsWhatIgnoresTerm(t *testing.T) {
	dir := t.TempDir()
	args := []string{"/bin/sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"}
	p, err := startProcess(args[0], args, os.Environ(), dir, filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-p.PID, syscall.SIGKILL) })
	time.Sleep(100 * time.Millisecond) // let the shell install its trap
	if err := stopProcess(t.Context(), p, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if p.running() {
		t.Fatal("process that ignores SIGTERM still runs after stopProcess")
	}
}

func TestStopProcessSparesStrangers(t *testing.T) {
	p := startSleep(t)
	stranger := procInfo{PID: p.PID, Args: []string{"something", "else"}}
	if err := stopProcess(t.Context(), stranger, time.Second); err != nil {
		t.Fatal(err)
	}
	if !p.running() {
		t.Fatal("stopProcess killed a pid whose command line was not the recorded one")
	}
}

func TestLogTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	var b strings.Builder
	for i := range 100 {
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	b.WriteString("last line\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got := logTail(path, 3)
	if lines := strings.Split(got, "\n"); len(lines) != 3 || lines[2] != "last line" {
		t.Errorf("logTail(3) = %q", got)
	}
	if got := logTail(filepath.Join(t.TempDir(), "none"), 3); !strings.Contains(got, "no log") {
		t.Errorf("logTail of a missing file = %q", got)
	}
}

func startSleep(t *testing.T) procInfo {
	t.Helper()
	dir := t.TempDir()
	p, err := startProcess("/bin/sleep", []string{"/bin/sleep", "60"}, os.Environ(), dir, filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stopProcess(context.Background(), p, time.Second) })
	return p
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// session reads the session id of pid from /proc/PID/stat, where it is the
// fourth field after the parenthesised command name.
func session(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	sid, err := strconv.Atoi(fields[3])
	if err != nil {
		t.Fatal(err)
	}
	return sid
}

func TestParseVmRSS(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status string
		want   int64
	}{
		{"a running process", "Name:\tetcd\nVmPeak:\t  999 kB\nVmRSS:\t   51200 kB\nRssAnon:\t 100 kB\n", 50 << 20},
		{"a kernel thread has none", "Name:\tkthreadd\nState:\tS (sleeping)\n", 0},
		{"garbage", "VmRSS:\tlots\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseVmRSS(tc.status); got != tc.want {
				t.Errorf("parseVmRSS = %d, want %d", got, tc.want)
			}
		})
	}
	if rss := residentBytes(os.Getpid()); rss <= 0 {
		t.Errorf("resident memory of this test: %d, want some", rss)
	}
}
