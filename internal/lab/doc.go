// Package lab runs a real Kubernetes federation on loopback: one etcd and
// one kube-apiserver per cluster, each with its own etcd prefix, TLS serving
// certificate, certificate authority, static admin token and service-account
// signing key. The first cluster is the federation host; the others are
// members.
//
// In a full lab (the default) every cluster also runs a
// kube-controller-manager, and every member a kube-scheduler and kwok,
// which simulates the member's nodes (made Ready, with the capacity the lab
// gives them) and the pods bound to them (Running and Ready, or crash-looping
// behind the failure switch, FailLabel or FailImageSuffix). A plain lab runs
// the kube-apiservers alone.
//
// Every cluster is reached through a small TCP proxy owned by the lab, so a
// test can add artificial one-way latency to a cluster. A test can also stop
// a cluster: its clients then get a refused connection at once, never a
// hang, and the cluster comes back at the same URL with its data.
//
// All processes run in their own sessions and outlive the process that
// started them. Everything needed to find them again (ports, pids, command
// lines, credentials) lives in a state directory, so a CLI, a test binary's
// TestMain and a benchmark can share one lab. Operations that change the lab
// take a file lock on that directory, so concurrent callers are serialised.
//
// The state directory (by default .lab at the module root) holds:
//
//	state.json                 mode, ports, binaries, each member's region and nodes, and the
//	                           pid and command line of each process
//	kubeconfig                 one context per cluster, named after it (token users, CA embedded)
//	etcd/data, etcd/etcd.log   etcd's data and log
//	clusters/NAME/ca.crt       the cluster's own CA (ca.key signs client certificates)
//	clusters/NAME/token        the static admin token (tokens.csv is kube-apiserver's token file)
//	clusters/NAME/admin.crt    an admin client certificate, with admin.key
//	clusters/NAME/apiserver.*  serving certificate and key, and apiserver.log
//	clusters/NAME/sa.key       the service-account signing key, with sa.pub
//	clusters/NAME/latency      the proxy's one-way latency, with proxy.log
//	clusters/NAME/COMPONENT.*  a control component's client certificate (.crt, .key),
//	                           kubeconfig and log: kube-controller-manager,
//	                           kube-scheduler, kwok
//	clusters/NAME/kwok.yaml    the Stages kwok plays
//
// The latency proxies run as separate processes too. They are the calling
// binary itself, re-executed with a marker in the environment: any program
// that imports this package can therefore start a lab, whether it is the
// kubefed-lab command or a test binary.
package lab
