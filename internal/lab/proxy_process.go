package lab

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The latency proxy of each cluster runs as its own long-lived process: the
// binary that started the lab, re-executed with proxyEnv set. Checking the
// environment in init lets any binary that links this package (the CLI, a
// test binary) serve as the proxy without help from its main function.
const (
	proxyEnv      = "KUBEFED_LAB_INTERNAL_PROXY"
	proxyEnvValue = "serve"
	// proxyArgv0 is what ps shows for a proxy.
	proxyArgv0 = "kubefed-lab-proxy"
	// watchdogInterval paces the check that the lab still exists, so a
	// proxy whose state directory was deleted by hand does not keep its
	// port forever.
	watchdogInterval = 2 * time.Second
)

func init() {
	if os.Getenv(proxyEnv) == proxyEnvValue {
		os.Exit(proxyMain(os.Args[1:]))
	}
}

// proxyArgs is the command line of a cluster's proxy process.
func proxyArgs(name string, port, apiserverPort int, latencyFile string) []string {
	return []string{
		proxyArgv0,
		"-cluster", name,
		"-listen", fmt.Sprintf("127.0.0.1:%d", port),
		"-target", fmt.Sprintf("127.0.0.1:%d", apiserverPort),
		"-latency-file", latencyFile,
	}
}

// proxyMain runs a proxy until SIGTERM or SIGINT, reading its latency from a
// file at start and again on every SIGHUP.
func proxyMain(args []string) int {
	fs := flag.NewFlagSet(proxyArgv0, flag.ContinueOnError)
	name := fs.String("cluster", "", "cluster name, for the log")
	listen := fs.String("listen", "", "address clients connect to")
	target := fs.String("target", "", "kube-apiserver address")
	latencyFile := fs.String("latency-file", "", "file holding the one-way latency, re-read on SIGHUP")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger := log.New(os.Stderr, fmt.Sprintf("proxy %s: ", *name), log.LstdFlags|log.Lmicroseconds)
	if *listen == "" || *target == "" || *latencyFile == "" {
		logger.Print("-listen, -target and -latency-file are required")
		return 2
	}

	// Install the handlers before listening: the lab treats a listening
	// proxy as ready for SIGHUP, whose default action would kill it.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)

	p, err := newProxy(*listen, *target)
	if err != nil {
		logger.Print(err)
		return 1
	}
	reload := func() {
		d, err := readLatencyFile(*latencyFile)
		if err != nil {
			logger.Printf("keeping latency %v: %v", p.Latency(), err)
			return
		}
		p.SetLatency(d)
		if err := writeLatencyFile(appliedLatencyPath(*latencyFile), d); err != nil {
			logger.Printf("confirming latency %v: %v", d, err)
		}
		logger.Printf("latency %v each way", d)
	}
	reload()
	countConnections(p, filepath.Join(filepath.Dir(*latencyFile), connectionsFile), logger)
	logger.Printf("forwarding %s to %s", p.Addr(), *target)

	served := make(chan error, 1)
	go func() { served <- p.Serve() }()
	watchdog := time.NewTicker(watchdogInterval)
	defer watchdog.Stop()
	for {
		select {
		case <-hup:
			reload()
		case s := <-term:
			logger.Printf("%v: exiting", s)
			p.Close()
			return 0
		case err := <-served:
			logger.Printf("serving: %v", err)
			return 1
		case <-watchdog.C:
			if _, err := os.Stat(filepath.Dir(*latencyFile)); err != nil {
				logger.Printf("lab directory gone (%v): exiting", err)
				p.Close()
				return 0
			}
		}
	}
}

// readLatencyFile parses a latency file; a missing file means no latency.
func readLatencyFile(path string) (time.Duration, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	if s == "" || s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if d < 0 {
		return 0, fmt.Errorf("%s: negative latency %v", path, d)
	}
	return d, nil
}

// appliedLatencyPath is where the proxy confirms the latency it applies, so
// that whoever changed the latency file can wait until it is in force.
func appliedLatencyPath(latencyFile string) string { return latencyFile + "-applied" }

// waitLatencyApplied waits until the proxy confirms latency d in path. A
// proxy that confirms nothing (one started by an older build) is not waited
// for.
func waitLatencyApplied(ctx context.Context, path string, d time.Duration) error {
	const poll = 5 * time.Millisecond
	ctx, cancel := context.WithTimeout(ctx, latencyConfirmTimeout)
	defer cancel()
	for {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		applied, err := readLatencyFile(path)
		if err == nil && applied == d {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the proxy did not confirm latency %v within %v (it applies %v)", d, latencyConfirmTimeout, applied)
		case <-time.After(poll):
		}
	}
}

// latencyConfirmTimeout bounds the wait for a proxy to apply a new latency;
// it reacts within milliseconds unless the machine is starved.
const latencyConfirmTimeout = 10 * time.Second

// writeLatencyFile stores d for the proxy to read.
func writeLatencyFile(path string, d time.Duration) error {
	return writeFileAtomic(path, []byte(d.String()+"\n"), 0o644)
}

// connectionsFile, next to the latency file, holds how many client
// connections the proxy accepted since it started, so that a test or a
// benchmark can tell whether clients reuse their connections.
const connectionsFile = "connections"

// countConnections keeps the count of p's connections in path, from 0.
func countConnections(p *proxy, path string, logger *log.Logger) {
	write := func(n int64) {
		if err := writeConnectionsFile(path, n); err != nil {
			logger.Printf("counting connections: %v", err)
		}
	}
	write(0)
	p.onAccept = write
}

func writeConnectionsFile(path string, n int64) error {
	return writeFileAtomic(path, []byte(strconv.FormatInt(n, 10)+"\n"), 0o644)
}

// readConnectionsFile reads a connections file; a missing one means none.
func readConnectionsFile(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return n, nil
}
