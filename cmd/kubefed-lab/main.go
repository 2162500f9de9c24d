// Command kubefed-lab runs a real Kubernetes federation on loopback for tests,
// benchmarks and demos: one etcd, a host cluster and member clusters, each
// behind a proxy that can add latency. Each cluster runs a kube-apiserver
// and a kube-controller-manager; each member also runs a kube-scheduler and
// kwok, which simulates its nodes, so workloads really roll out. A plain
// lab runs kube-apiservers only.
//
// Usage:
//
//	kubefed-lab [-dir DIR] up [-clusters host,a,b | -members N | -config FILE] [-plain] [-nodes CLUSTER=POOLS]... [binaries] [-base-port N] [-timeout D]
//	kubefed-lab [-dir DIR] status
//	kubefed-lab [-dir DIR] stop NAME
//	kubefed-lab [-dir DIR] start NAME
//	kubefed-lab [-dir DIR] latency NAME DURATION
//	kubefed-lab [-dir DIR] nodes CLUSTER [add NAME [CPU MEMORY [PODS]] | remove NAME | cordon NAME | uncordon NAME]
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
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

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
  status                 show every process of every cluster, readiness, latency and Ready nodes
  stop NAME              stop one cluster; its URL refuses connections until it starts again
  start NAME             start it again with the same port, certificates and data
  latency NAME DURATION  delay each direction of a cluster's traffic, e.g. 80ms; 0 removes it
  nodes CLUSTER          list a member's simulated nodes; change them while the lab runs with
    add NAME [CPU MEMORY [PODS]]   a node, e.g. add berlin-2 4 16Gi (default: like the member's last node)
    remove NAME                    a node and its pods at once, as when a machine is lost
    cordon NAME | uncordon NAME    no new pods on a node, or new pods again
  down                   stop every process of the lab and remove its directory

Each cluster runs kube-apiserver and kube-controller-manager; each member also runs kube-scheduler and
kwok, which makes the member's simulated nodes Ready and runs the pods scheduled on them (Running and
Ready at once; pods of Jobs complete). up -plain runs kube-apiservers only.

The failure switch: kwok keeps a pod labelled ` + lab.FailLabel + `=true, or with a container image ending in
"` + lab.FailImageSuffix + `" (e.g. nginx` + lab.FailImageSuffix + `), crash-looping: Running but never Ready. A Deployment of such pods never
becomes Available and, after its progressDeadlineSeconds, reports ProgressDeadlineExceeded. Set it on one
member with an override of the pod template's labels or image.

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

	h, ok := commands[cmd]
	if !ok {
		fmt.Fprintf(stderr, "kubefed-lab: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	err := h(ctx, fs, dir, args, stdout, stderr)
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

// handler runs one command on its flag set and arguments.
type handler func(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout, stderr io.Writer) error

// commands are the handlers by command name.
var commands = map[string]handler{
	"up": up,
	"status": func(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout, _ io.Writer) error {
		return withLab(fs, dir, args, 0, "", func(l *lab.Lab, _ []string) error { return printStatus(ctx, l, stdout) })
	},
	"stop": func(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout, _ io.Writer) error {
		return withLab(fs, dir, args, 1, "NAME", func(l *lab.Lab, a []string) error {
			if err := l.Stop(ctx, a[0]); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s stopped\n", a[0])
			return nil
		})
	},
	"start": func(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout, _ io.Writer) error {
		return withLab(fs, dir, args, 1, "NAME", func(l *lab.Lab, a []string) error {
			if err := l.Start(ctx, a[0]); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s ready at %s\n", a[0], l.Cluster(a[0]).URL)
			return nil
		})
	},
	"latency": func(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout, _ io.Writer) error {
		return withLab(fs, dir, args, 2, "NAME DURATION", func(l *lab.Lab, a []string) error {
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
	},
	"nodes": func(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout, _ io.Writer) error {
		return nodes(ctx, fs, dir, args, stdout)
	},
	"down": func(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout, _ io.Writer) error {
		return down(ctx, fs, dir, args, stdout)
	},
}

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// up parses the flags of the up command and brings the lab up.
func up(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout, stderr io.Writer) error {
	var o upOptions
	fs.StringVar(&o.clusters, "clusters", "", "comma-separated cluster names, the host first (default "+strings.Join(lab.DefaultClusters, ",")+")")
	fs.IntVar(&o.members, "members", 0, "a host and N members: "+strings.Join(lab.MemberNames(4), ", ")+", ... (instead of -clusters)")
	fs.StringVar(&o.configFile, "config", "", "a YAML file of clusters, regions and nodes (see CONTRIBUTING.md)")
	fs.BoolVar(&o.plain, "plain", false, "kube-apiservers only: no controller manager, scheduler or nodes")
	fs.Func("nodes", "a member's nodes, CLUSTER=COUNTxCPU/MEMORY[/PODS][,...], e.g. berlin=2x4/16Gi; repeatable", func(v string) error {
		o.nodes = append(o.nodes, v)
		return nil
	})
	kas := fs.String("kube-apiserver", "", "kube-apiserver binary (default $"+lab.EnvKubeAPIServer+")")
	kcm := fs.String("kube-controller-manager", "", "kube-controller-manager binary (default $"+lab.EnvKubeControllerManager+")")
	sched := fs.String("kube-scheduler", "", "kube-scheduler binary (default $"+lab.EnvKubeScheduler+")")
	kwok := fs.String("kwok", "", "kwok binary (default $"+lab.EnvKwok+")")
	etcd := fs.String("etcd", "", "etcd binary (default $"+lab.EnvEtcd+", else etcd on PATH)")
	basePort := fs.Int("base-port", 0, "first of the lab's consecutive ports (default: a free block)")
	timeout := fs.Duration("timeout", 3*time.Minute, "how long to wait for the lab to be ready")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{"unexpected arguments " + strings.Join(fs.Args(), " ")}
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	cfg.Dir, cfg.BasePort, cfg.ReadyTimeout = *dir, *basePort, *timeout
	cfg.KubeAPIServer, cfg.KubeControllerManager, cfg.KubeScheduler, cfg.Kwok, cfg.Etcd = *kas, *kcm, *sched, *kwok, *etcd
	cfg.Log = func(format string, a ...any) { fmt.Fprintf(stderr, format+"\n", a...) }
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

// upOptions are the flags of up that shape the lab.
type upOptions struct {
	clusters   string
	members    int
	configFile string
	plain      bool
	nodes      []string
}

// config turns the flags into the clusters, mode and members of a lab.
func (o upOptions) config() (lab.Config, error) {
	var cfg lab.Config
	set := 0
	for _, given := range []bool{o.clusters != "", o.members != 0, o.configFile != ""} {
		if given {
			set++
		}
	}
	if set > 1 {
		return cfg, usageError{"-clusters, -members and -config each name the clusters: give one of them"}
	}
	switch {
	case o.configFile != "":
		var err error
		if cfg, err = lab.ReadConfigFile(o.configFile); err != nil {
			return cfg, err
		}
	case o.clusters != "":
		cfg.Clusters = strings.Split(o.clusters, ",")
	case o.members < 0:
		return cfg, usageError{fmt.Sprintf("-members %d: want a number of members, 0 or more", o.members)}
	case o.members > 0:
		cfg.Clusters = append([]string{lab.DefaultClusters[0]}, lab.MemberNames(o.members)...)
	}
	if o.plain {
		cfg.Mode = lab.ModePlain
	}
	for _, spec := range o.nodes {
		name, pools, err := lab.ParseNodeSpec(spec)
		if err != nil {
			return cfg, usageError{err.Error()}
		}
		if cfg.Members == nil {
			cfg.Members = map[string]lab.Member{}
		}
		m, ok := cfg.Members[name]
		if !ok {
			m = lab.DefaultMember(name)
		}
		m.Nodes = pools
		cfg.Members[name] = m
	}
	return cfg, nil
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

// printStatus writes one line per process of each cluster, and etcd's.
func printStatus(ctx context.Context, l *lab.Lab, w io.Writer) error {
	s, err := l.Status(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLUSTER\tCOMPONENT\tSTATE\tPID\tRSS\tDETAIL")
	total := s.EtcdRSS
	for _, c := range s.Clusters {
		for i, comp := range c.Components {
			name := ""
			if i == 0 {
				name = c.Name
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, comp.Name, componentState(c, comp), pid(comp.PID), mib(comp.RSS), componentDetail(c, comp))
			total += comp.RSS
		}
	}
	etcdState := "stopped"
	if s.EtcdPID != 0 {
		etcdState = "running"
	}
	fmt.Fprintf(tw, "(etcd)\tetcd\t%s\t%s\t%s\t%s\n", etcdState, pid(s.EtcdPID), mib(s.EtcdRSS), s.EtcdURL)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "mode: %s; resident memory: %s in all; kubeconfig: %s\n", s.Mode, mib(total), l.KubeconfigPath())
	return err
}

// mib renders a memory size in MiB, "-" for none.
func mib(bytes int64) string {
	if bytes == 0 {
		return "-"
	}
	return fmt.Sprintf("%d MiB", bytes>>20)
}

// componentState is "ready" for an apiserver that answers /readyz, else
// whether the process runs.
func componentState(c lab.ClusterStatus, comp lab.ComponentStatus) string {
	switch {
	case comp.PID == 0:
		return "stopped"
	case comp.Name == "kube-apiserver" && c.Ready:
		return "ready"
	case comp.Name == "kube-apiserver":
		return "running, not ready"
	}
	return "running"
}

// componentDetail is where an apiserver answers, the latency of a proxy and
// the connections it accepted, and the nodes kwok simulates.
func componentDetail(c lab.ClusterStatus, comp lab.ComponentStatus) string {
	switch comp.Name {
	case "kube-apiserver":
		return c.URL
	case "proxy":
		return fmt.Sprintf("latency %v each way, %d connections", c.Latency, c.Connections)
	case "kwok":
		return fmt.Sprintf("%d/%d nodes Ready, region %s", c.NodesReady, c.Nodes, c.Region)
	}
	return ""
}

// nodes lists or changes the simulated nodes of a member.
func nodes(ctx context.Context, fs *flag.FlagSet, dir *string, args []string, stdout io.Writer) error {
	const argsUsage = "CLUSTER [add NAME [CPU MEMORY [PODS]] | remove NAME | cordon NAME | uncordon NAME]"
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [-dir DIR] %s\n", fs.Name(), argsUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	a := fs.Args()
	if len(a) != 1 && len(a) < 3 {
		return usageError{"want " + argsUsage}
	}
	l, err := lab.Load(*dir)
	if err != nil {
		return err
	}
	cluster := a[0]
	if len(a) == 1 {
		return printNodes(ctx, l, cluster, stdout)
	}
	verb, name, rest := a[1], a[2], a[3:]
	if verb != "add" && len(rest) > 0 {
		return usageError{fmt.Sprintf("nodes %s %s takes one node name", cluster, verb)}
	}
	switch verb {
	case "add":
		n, err := parseNewNode(name, rest)
		if err != nil {
			return err
		}
		if n, err = l.AddNode(ctx, cluster, n); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: added node %s (%s CPU, %s memory, %d pods, zone %s)\n", cluster, n.Name, n.CPU.String(), n.Memory.String(), n.Pods, n.Zone)
	case "remove":
		if err := l.RemoveNode(ctx, cluster, name); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: removed node %s and its pods\n", cluster, name)
	case "cordon", "uncordon":
		if err := l.CordonNode(ctx, cluster, name, verb == "cordon"); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: node %s %sed\n", cluster, name, verb)
	default:
		return usageError{fmt.Sprintf("unknown nodes action %q: want add, remove, cordon or uncordon", verb)}
	}
	return nil
}

// parseNewNode reads NAME [CPU MEMORY [PODS]] of nodes add.
func parseNewNode(name string, rest []string) (lab.Node, error) {
	n := lab.Node{Name: name}
	switch len(rest) {
	case 0:
		return n, nil
	case 2, 3:
	default:
		return n, usageError{"nodes add NAME takes a CPU and a memory, and optionally a pod capacity, or none of them"}
	}
	var err error
	if n.CPU, err = resource.ParseQuantity(rest[0]); err != nil {
		return n, usageError{fmt.Sprintf("CPU %q: want a quantity such as 4 or 500m", rest[0])}
	}
	if n.Memory, err = resource.ParseQuantity(rest[1]); err != nil {
		return n, usageError{fmt.Sprintf("memory %q: want a quantity such as 16Gi", rest[1])}
	}
	if len(rest) == 3 {
		if n.Pods, err = strconv.ParseInt(rest[2], 10, 64); err != nil || n.Pods <= 0 {
			return n, usageError{fmt.Sprintf("pods %q: want a positive number", rest[2])}
		}
	}
	return n, nil
}

// printNodes writes one line per simulated node of a member.
func printNodes(ctx context.Context, l *lab.Lab, cluster string, w io.Writer) error {
	list, err := l.Nodes(ctx, cluster)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tZONE\tCPU\tMEMORY\tPOD CAPACITY\tPODS\tSTATE")
	for _, n := range list {
		state := "NotReady"
		if n.Ready {
			state = "Ready"
		}
		if n.Unschedulable {
			state += ",SchedulingDisabled"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", n.Name, n.Zone, n.CPU.String(), n.Memory.String(), n.Pods, n.BoundPods, state)
	}
	return tw.Flush()
}

func pid(p int) string {
	if p == 0 {
		return "-"
	}
	return fmt.Sprint(p)
}
