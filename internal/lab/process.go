package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// procInfo identifies a process the lab started. The command line is kept
// so that a recycled pid is never mistaken for ours: we only signal a pid
// whose /proc/PID/cmdline still matches.
type procInfo struct {
	PID  int      `json:"pid,omitempty"`
	Args []string `json:"args,omitempty"`
}

// Grace periods for stopping processes.
const (
	// stopGrace is how long a process gets to exit on SIGTERM before SIGKILL.
	stopGrace = 10 * time.Second
	// killWait is how long the kernel gets to remove a killed process.
	killWait = 5 * time.Second
	// reapWait bounds the wait for a dead process to leave the process
	// table.
	reapWait = 5 * time.Second
	// execWait bounds the time the kernel takes to replace a started
	// process's image.
	execWait = 2 * time.Second
	// pollInterval paces every wait in this package.
	pollInterval = 50 * time.Millisecond
)

// running reports whether p is alive and still the process we started.
// A zombie counts as dead: it holds no port and serves nothing.
func (p procInfo) running() bool {
	if p.PID <= 0 || len(p.Args) == 0 {
		return false
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID))
	if err != nil || !bytes.Equal(cmdline, joinCmdline(p.Args)) {
		return false
	}
	return !isZombie(p.PID)
}

// joinCmdline renders args the way /proc/PID/cmdline stores them.
func joinCmdline(args []string) []byte {
	var b bytes.Buffer
	for _, a := range args {
		b.WriteString(a)
		b.WriteByte(0)
	}
	return b.Bytes()
}

// isZombie reports whether pid is dead: gone, or a zombie waiting for
// its parent.
func isZombie(pid int) bool {
	state, ok := procState(pid)
	return !ok || state == 'Z' || state == 'X'
}

// procState reads the state letter of /proc/PID/stat, which follows the
// command name in parentheses (a name that may itself contain parentheses).
// ok is false when there is no such process.
func procState(pid int) (state byte, ok bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return 0, true
	}
	return stat[i+2], true
}

// waitReaped gives the parent of a dead process a moment to collect it, so
// that it vanishes from the process table (and from pgrep) before we
// report it stopped. Our own children are reaped at once; orphans wait for
// init, which some container inits do lazily. Not being reaped in time is
// not an error: a zombie holds no port and no memory.
func waitReaped(pid int, timeout time.Duration) {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(pollInterval) {
		if state, ok := procState(pid); !ok || state != 'Z' {
			return
		}
	}
}

// startProcess starts path with args (args[0] is what ps shows) in a new
// session, so it survives the exit of the caller and a terminal hang-up,
// with stdin from /dev/null and stdout and stderr appended to logPath.
// The child is reaped in the background for as long as the caller lives;
// after that it is re-parented like any daemon.
func startProcess(path string, args, env []string, dir, logPath string) (procInfo, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return procInfo{}, fmt.Errorf("opening the log %s: %w", logPath, err)
	}
	defer logf.Close()
	fmt.Fprintf(logf, "\n=== %s started by kubefed-lab (pid %d): %s\n", time.Now().Format(time.RFC3339), os.Getpid(), strings.Join(args, " "))
	cmd := &exec.Cmd{
		Path:        path,
		Args:        args,
		Env:         env,
		Dir:         dir,
		Stdout:      logf,
		Stderr:      logf,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if err := cmd.Start(); err != nil {
		return procInfo{}, fmt.Errorf("starting %s: %w", path, err)
	}
	// Only reaps; liveness is checked through /proc.
	go func() { _ = cmd.Wait() }()
	p := procInfo{PID: cmd.Process.Pid, Args: args}
	// Start returns while the kernel may still be setting up the new
	// program, when /proc/PID/cmdline reads empty; wait for it, so that
	// running() is true from now on for as long as the process lives.
	for deadline := time.Now().Add(execWait); !p.running(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			return p, fmt.Errorf("%s (pid %d) exited at once; end of %s:\n%s", path, p.PID, logPath, logTail(logPath, logTailLines))
		}
	}
	return p, nil
}

// stopProcess ends p if it is still ours: SIGTERM to its process group,
// SIGKILL after grace, then it waits until the process is gone.
func stopProcess(ctx context.Context, p procInfo, grace time.Duration) error {
	if !p.running() {
		return nil
	}
	// The process leads its own group (it was started with Setsid), so
	// signalling the group also reaches anything it forked.
	if err := syscall.Kill(-p.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stopping pid %d: %w", p.PID, err)
	}
	if !waitGone(ctx, p, grace) && p.running() {
		if err := syscall.Kill(-p.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("killing pid %d: %w", p.PID, err)
		}
		if !waitGone(context.WithoutCancel(ctx), p, killWait) {
			return fmt.Errorf("pid %d (%s) is still running after SIGKILL", p.PID, p.Args[0])
		}
	}
	waitReaped(p.PID, reapWait)
	return nil
}

// waitGone polls until p has exited, the timeout passes or ctx ends.
func waitGone(ctx context.Context, p procInfo, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for p.running() {
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(pollInterval):
		}
	}
	return true
}

// logTail returns the last n lines of a log file, for error messages.
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer f.Close()
	const maxRead = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > maxRead {
		if _, err := f.Seek(fi.Size()-maxRead, io.SeekStart); err != nil {
			return fmt.Sprintf("(log unreadable: %v)", err)
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// residentBytes is the resident memory of a process, 0 when it cannot be
// read (the process is gone).
func residentBytes(pid int) int64 {
	if pid <= 0 {
		return 0
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	return parseVmRSS(string(status))
}

// parseVmRSS reads the VmRSS line of /proc/PID/status ("VmRSS:  1234 kB").
func parseVmRSS(status string) int64 {
	for _, line := range strings.Split(status, "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		var kb int64
		if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
			return kb << 10
		}
	}
	return 0
}
