// Command kubefed-lab runs a real Kubernetes federation on loopback for tests,
// benchmarks and demos: one etcd, a host kube-apiserver and member
// kube-apiservers, each behind a proxy that can add latency.
//
// Usage:
//
//	kubefed-lab [-dir DIR] up [-clusters host,a,b] [-kube-apiserver PATH] [-etcd PATH] [-base-port N] [-timeout D]
//	kubefed-lab [-dir DIR] status
//	kubefed-lab [-dir DIR] stop NAME
//	kubefed-lab [-dir DIR] start NAME
//	kubefed-lab [-dir DIR] latency NAME DURATION
//	kubefed-lab [-dir DIR] down
//
// The state directory defaults to .lab at the root of this module (or
// $KUBEFED_LAB_DIR); its kubeconfig has one context per cluster.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/tf-kubefed/terraform-provider-kubefed/internal/lab"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `Usage: kubefed-lab [-dir DIR] COMMAND [flags] [args]

Commands:
  up                     start the lab, or whatever of it is not running, and wait until it is ready
  status                 show each cluster: URL, pids, readiness, latency
  stop NAME              stop one cluster; its URL refuses connections until it starts again
  start NAME             start it again with the same port, certificates and data
  latency NAME DURATION  delay each direction of a cluster's traffic, e.g. 80ms; 0 removes it
  down                   stop every process of the lab and remove its directory

Run "kubefed-lab COMMAND -h" for the flags of a command.
`

// run executes one command and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "help" {
		fmt.Fprint(stderr, usage)
		return 0
	}
	// -dir may come before the command (as the Makefile passes it) or
	// after it.
	global := flag.NewFlagSet("kubefed-lab", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.Usage = func() { fmt.Fprint(stderr, usage) }
	globalDir := global.String("dir", "", "state directory")
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if global.NArg() == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, args := global.Arg(0), global.Args()[1:]
	fs := flag.NewFlagSet("kubefed-lab "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", *globalDir, "state directory (default: .lab at the module root, or $"+lab.EnvDir+")")

	var err error
	switch cmd {
	case "up":
		err = up(ctx, fs, dir, args, stdout, stderr)
	case "status":
		err = withLab(fs, dir, args, 0, "", func(l *lab.Lab, _ []string) error { return printStatus(ctx, l, stdout) })
	case "stop":
		err = withLab(fs, dir, args, 1, "NAME", func(l *lab.Lab, a []string) error {
			if err := l.Stop(ctx, a[0]); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s stopped\n", a[0])
			return nil
		})
	case "start":
		err = withLab(fs, dir, args, 1, "NAME", func(l *lab.Lab, a []string) error {
			if err := l.Start(ctx, a[0]); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s ready at %s\n", a[0], l.Cluster(a[0]).URL)
			return nil
		})
	case "latency":
		err = withLab(fs, dir, args, 2, "NAME DURATION", func(l *lab.Lab, a []string) error {
			d, err := parseLatency(a[1])
			if err != nil {
				return err
			}
			if err := l.SetLatency(ctx, a[0], d); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: %v each way\n", a[0], d)
			return nil
		})
	case "down":
		err = down(ctx, fs, dir, args, stdout)
	default:
		fmt.Fprintf(stderr, "kubefed-lab: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "kubefed-lab %s: %v\n", cmd, err)
		fs.Usage()
		return 2
	default:
		fmt.Fprintf(stderr, "kubefed-lab %s: %v\n", cmd, err)
		return 1
	}
}

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// up parses the flags of the up command and brings the lab up.
func up(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout, stderr io.Writer) error {
	clusters := fs.String("clusters", "", "comma-separated cluster names, the host first (default "+strings.Join(lab.DefaultClusters, ",")+")")
	kas := fs.String("kube-apiserver", "", "kube-apiserver binary (default $"+lab.EnvKubeAPIServer+")")
	etcd := fs.String("etcd", "", "etcd binary (default $"+lab.EnvEtcd+", else etcd on PATH)")
	basePort := fs.Int("base-port", 0, "first of the lab's consecutive ports (default: a free block)")
	timeout := fs.Duration("timeout", 3*time.Minute, "how long to wait for the lab to be ready")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"unexpected arguments " + strings.Join(fs.Args(), " ")}
	}
	cfg := lab.Config{
		Dir:           *dir,
		KubeAPIServer: *kas,
		Etcd:          *etcd,
		BasePort:      *basePort,
		ReadyTimeout:  *timeout,
		Log:           func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) },
	}
	if *clusters != "" {
		cfg.Clusters = strings.Split(*clusters, ",")
	}
	start := time.Now()
	l, err := lab.Up(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "lab ready in %v\n", time.Since(start).Round(100*time.Millisecond))
	if err := printStatus(ctx, l, stdout); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nexport KUBECONFIG=%s\n", l.KubeconfigPath())
	return nil
}

// down brings the lab down; no lab is not an error.
func down(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout io.Writer) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"unexpected arguments " + strings.Join(fs.Args(), " ")}
	}
	l, err := lab.Load(*dir)
	if errors.Is(err, lab.ErrNoLab) {
		fmt.Fprintln(stdout, "no lab running")
		return nil
	}
	if err != nil {
		return err
	}
	if err := l.Down(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "lab in %s stopped and removed\n", l.Dir())
	return nil
}

// withLab parses flags and exactly nargs arguments, loads the lab and runs fn.
func withLab(fs *flag.FlagSet, dir *string, args []string, nargs int, argsUsage string, fn func(*lab.Lab, []string) error) error {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [-dir DIR] %s\n", fs.Name(), argsUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != nargs {
		return usageError{fmt.Sprintf("want %d argument(s) (%s), got %d", nargs, argsUsage, fs.NArg())}
	}
	l, err := lab.Load(*dir)
	if err != nil {
		return err
	}
	return fn(l, fs.Args())
}

// parseLatency reads a duration; a bare 0 is allowed since "no latency"
// needs no unit.
func parseLatency(s string) (time.Duration, error) {
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, usageError{fmt.Sprintf("latency %q: want a duration such as 80ms, or 0", s)}
	}
	if d < 0 {
		return 0, usageError{fmt.Sprintf("latency %q: must not be negative", s)}
	}
	return d, nil
}

// printStatus writes one line per cluster, and etcd's.
func printStatus(ctx context.Context, l *lab.Lab, w io.Writer) error {
	s, err := l.Status(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tURL\tSTATE\tPID\tPROXY PID\tLATENCY")
	for _, c := range s.Clusters {
		state := "stopped"
		switch {
		case c.PID != 0 && c.Ready:
			state = "ready"
		case c.PID != 0:
			state = "running, not ready"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%v\n", c.Name, c.URL, state, pid(c.PID), pid(c.ProxyPID), c.Latency)
	}
	etcdState := "stopped"
	if s.EtcdPID != 0 {
		etcdState = "running"
	}
	fmt.Fprintf(tw, "(etcd)\t%s\t%s\t%s\t\t\n", s.EtcdURL, etcdState, pid(s.EtcdPID))
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "kubeconfig: %s\n", l.KubeconfigPath())
	return err
}

func pid(p int) string {
	if p == 0 {
		return "-"
	}
	return fmt.Sprint(p)
}
