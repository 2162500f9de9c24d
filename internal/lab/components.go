package lab

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// component names a process of a cluster. The names are what ps, logs and
// status show.
type component string

const (
	compProxy             component = "proxy"
	compAPIServer         component = "kube-apiserver"
	compControllerManager component = "kube-controller-manager"
	compScheduler         component = "kube-scheduler"
	compKwok              component = "kwok"
)

// controlComponents lists what runs on a cluster besides its kube-apiserver
// and proxy, in start order: nothing in a plain lab, the controller manager
// on the host (it has no nodes, so nothing to schedule), and the controller
// manager, scheduler and kwok on a member.
func controlComponents(mode string, host bool) []component {
	switch {
	case mode == ModePlain:
		return nil
	case host:
		return []component{compControllerManager}
	default:
		return []component{compControllerManager, compScheduler, compKwok}
	}
}

// proc is the record of a component's process.
func (c *clusterState) proc(comp component) *procInfo {
	switch comp {
	case compProxy:
		return &c.Proxy
	case compAPIServer:
		return &c.APIServer
	case compControllerManager:
		return &c.ControllerManager
	case compScheduler:
		return &c.Scheduler
	case compKwok:
		return &c.Kwok
	}
	panic("lab: unknown component " + comp)
}

// binary is the program of a control component.
func (s *state) binary(comp component) string {
	switch comp {
	case compControllerManager:
		return s.KubeControllerManager
	case compScheduler:
		return s.KubeScheduler
	case compKwok:
		return s.Kwok
	}
	panic("lab: no binary for component " + comp)
}

// Controllers of the controller managers. A member runs what makes
// workloads progress and clean up as on a real cluster; the host, which
// only stores the federation's objects, what namespaces, service accounts,
// aggregated roles and garbage collection need. Controllers for volumes, certificates,
// cloud routes and autoscaling are left out: nothing in the lab uses them.
var (
	hostControllers = []string{
		"namespace-controller", "garbage-collector-controller",
		"serviceaccount-controller", "serviceaccount-token-controller", "root-ca-certificate-publisher-controller",
		"clusterrole-aggregation-controller",
	}
	memberControllers = append(slices.Clone(hostControllers),
		"deployment-controller", "replicaset-controller", "statefulset-controller", "daemonset-controller",
		"job-controller", "cronjob-controller", "ttl-after-finished-controller", "disruption-controller",
		"endpoints-controller", "endpointslice-controller", "resourcequota-controller",
		"pod-garbage-collector-controller", "node-lifecycle-controller", "taint-eviction-controller",
	)
)

// Files of the control components in each cluster's directory. Each has a
// kubeconfig with a client certificate of its own, so RBAC sees who acts.
const (
	kwokStagesFile = "kwok.yaml"
	kwokWorkDir    = "kwok"
)

// Identities of the control components. The first two are the users
// Kubernetes' default RBAC policy grants the components' rights to; kwok's
// user gets the rights of a kubelet from the lab (bootstrapRBAC).
var componentUsers = map[component]string{
	compControllerManager: "system:kube-controller-manager",
	compScheduler:         "system:kube-scheduler",
	compKwok:              kwokUser,
}

const kwokUser = "kubefed-lab:kwok"

func componentKubeconfig(comp component) string { return string(comp) + ".kubeconfig" }
func componentLog(comp component) string        { return string(comp) + ".log" }
func componentCert(comp component) string       { return string(comp) + ".crt" }
func componentKey(comp component) string        { return string(comp) + ".key" }

// componentArgs is the command line of a control component. Leader
// election is off (one replica of each) and so is serving: nothing scrapes
// metrics, and a secure port per component would cost ports and
// certificates for nothing.
func componentArgs(st *state, comp component, dir string, host bool) []string {
	path := func(f string) string { return filepath.Join(dir, f) }
	kubeconfig := "--kubeconfig=" + path(componentKubeconfig(comp))
	switch comp {
	case compControllerManager:
		controllers := memberControllers
		if host {
			controllers = hostControllers
		}
		return []string{
			st.KubeControllerManager, kubeconfig,
			"--leader-elect=false",
			"--secure-port=0",
			"--controllers=" + strings.Join(controllers, ","),
			// Each controller acts as its own service account, as on a
			// kubeadm cluster, so RBAC denials look like the real ones.
			"--use-service-account-credentials=true",
			"--service-account-private-key-file=" + path(saKeyFile),
			"--root-ca-file=" + path(caCertFile),
		}
	case compScheduler:
		return []string{st.KubeScheduler, kubeconfig, "--leader-elect=false", "--secure-port=0"}
	case compKwok:
		return []string{
			st.Kwok, kubeconfig,
			"--config=" + path(kwokStagesFile),
			"--manage-nodes-with-label-selector=" + NodeSelectorLabel + "=" + nodeSelectorValue,
			// Pod addresses, away from the service range 10.0.0.0/24.
			"--cidr=10.244.0.0/16",
			"--node-ip=10.243.0.1",
			"--node-lease-duration-seconds=40",
		}
	}
	panic("lab: no command line for component " + comp)
}

// componentEnv is a control component's environment. kwok reads
// ~/.kwok/kwok.yaml, when there is one, before its --config: pointing its
// work directory into the lab keeps a user's own kwok setup out.
func componentEnv(comp component, dir string) []string {
	env := childEnv()
	if comp == compKwok {
		env = append(env, "KWOK_WORKDIR="+filepath.Join(dir, kwokWorkDir))
	}
	return env
}

//go:embed kwok-stages.yaml
var kwokStagesTemplate string

// failingJQ is the failure switch as a jq predicate over a pod: true when
// the pod carries FailLabel=true or one of its containers runs an image
// ending in FailImageSuffix.
var failingJQ = fmt.Sprintf(`(.metadata.labels[%q] == "true") or ([.spec.containers[]?.image | strings | endswith(%q)] | any)`,
	FailLabel, FailImageSuffix)

// kwokStages renders the Stages kwok plays on the lab's nodes and pods.
func kwokStages() []byte {
	quoted, _ := json.Marshal(failingJQ)
	return []byte(strings.ReplaceAll(kwokStagesTemplate, "key: FAILING", "key: "+string(quoted)))
}
