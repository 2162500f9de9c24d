#!/usr/bin/env bash
# The demo: a federation of three regions on this machine, run by the
# provider from one `apply`.
#
#   scripts/demo.sh up     lab up (with latency), provider built, examples/three-regions
#                          applied, a table of what each member runs, then a second plan;
#                          fails when the apply or the plan prints a warning
#   scripts/demo.sh down   destroy what the example made and stop the lab
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
lab_dir=${KUBEFED_LAB_DIR:-$root/.lab}
example=$root/examples/three-regions
members=(san-francisco new-york berlin)

source "$root/scripts/cli-config.sh"

# table prints what each member runs, read from the members themselves:
# the application's objects, and the web Deployment's replicas that are ready
# (Running and Ready on the member's simulated nodes) out of those it asks
# for. It gives each rollout a moment to finish first.
table() {
  printf '\n%-15s %-60s %s\n' CLUSTER "OBJECTS (managed by the federation)" "READY/REPLICAS"
  for m in "${members[@]}"; do
    local k="$kubectl --kubeconfig $lab_dir/kubeconfig --context $m"
    local objects ready
    $k -n shop rollout status deployment web --timeout=30s >/dev/null 2>&1 || true
    objects=$($k get namespaces,configmaps,deployments,services -A -l kubefed.io/managed=true -o name 2>/dev/null | sed 's|\.apps/|/|' | sort | paste -sd, - || true)
    ready=$($k -n shop get deployment web -o jsonpath='{.status.readyReplicas}/{.spec.replicas}' 2>/dev/null || echo -)
    # readyReplicas is left out while it is 0.
    printf '%-15s %-60s %s\n' "$m" "${objects:-"(none)"}" "${ready/#\//0/}"
  done
  echo
}

# no_warnings fails the demo when the CLI's output in $1 holds a warning:
# the example is written so that every apply and plan of it is clean.
no_warnings() {
  local count
  count=$(grep -c 'Warning:' "$1" || true)
  if [ "$count" -gt 0 ]; then
    echo "== $count warning(s) in the output above: the demo should print none" >&2
    exit 1
  fi
}

case ${1:-up} in
  up)
    source scripts/lab-tools.sh
    # The pinned OpenTofu and kubectl are built only when none is on PATH.
    extra=()
    command -v tofu >/dev/null 2>&1 || command -v terraform >/dev/null 2>&1 || extra+=(tofu-1.12)
    command -v kubectl >/dev/null 2>&1 || extra+=(kubectl)
    kubefed_lab_tools "${extra[@]}"
    kubectl=$(command -v kubectl || scripts/tool.sh kubectl)
    go build -o bin/kubefed-lab ./cmd/kubefed-lab
    go build -o bin/terraform-provider-kubefed .
    bin/kubefed-lab -dir "$lab_dir" up
    # Round trips of regions far apart: the proxies delay each direction.
    bin/kubefed-lab -dir "$lab_dir" latency san-francisco 20ms
    bin/kubefed-lab -dir "$lab_dir" latency new-york 35ms
    bin/kubefed-lab -dir "$lab_dir" latency berlin 45ms
    kubefed_cli_config "$lab_dir/demo"
    tf=$(kubefed_cli)
    echo "== $("$tf" version | sed -n 1p): init and apply of examples/three-regions"
    # The provider is this tree's build: one rebuilt since the last run has
    # a new checksum, which that run's lock file would refuse.
    rm -f "$example/.terraform.lock.hcl"
    "$tf" -chdir="$example" init -input=false >/dev/null
    "$tf" -chdir="$example" apply -auto-approve -input=false -var "kubeconfig=$lab_dir/kubeconfig" 2>&1 | tee "$lab_dir/demo/apply.log"
    no_warnings "$lab_dir/demo/apply.log"
    table
    echo "== a second plan right after apply must be empty"
    "$tf" -chdir="$example" plan -detailed-exitcode -input=false -var "kubeconfig=$lab_dir/kubeconfig" 2>&1 | tee "$lab_dir/demo/plan.log"
    no_warnings "$lab_dir/demo/plan.log"
    echo "== the second plan is empty, with no warning: what the members run is what the plan showed"
    ;;
  down)
    if [ -d "$lab_dir" ]; then
      go build -o bin/kubefed-lab ./cmd/kubefed-lab
      go build -o bin/terraform-provider-kubefed .
      kubefed_cli_config "$lab_dir/demo"
      tf=$(kubefed_cli)
      rm -f "$example/.terraform.lock.hcl"
      "$tf" -chdir="$example" init -input=false >/dev/null || true
      "$tf" -chdir="$example" destroy -auto-approve -input=false -var "kubeconfig=$lab_dir/kubeconfig" || true
      bin/kubefed-lab -dir "$lab_dir" down
    fi
    rm -rf "$example"/.terraform "$example"/.terraform.lock.hcl "$example"/terraform.tfstate "$example"/terraform.tfstate.backup
    ;;
  *) echo "usage: demo.sh up|down" >&2; exit 2 ;;
esac
