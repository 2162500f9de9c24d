#!/usr/bin/env bash
# Times `apply` and a no-change `plan` of kubefed_federated_object on the lab,
# with latency in front of every member, and prints a table:
#
#   1 object on 1, 3 and 6 member clusters, 20 and 50 objects on 3,
#   1 and 20 objects on 12.
#
# The default lab has three members; the 6-cluster case registers each of
# them twice, under two names, so every member receives each object twice.
# The 12-cluster cases run on a second, plain lab of twelve members
# (kube-apiservers only: ConfigMaps need no controllers), started for the
# bench in a temporary directory and stopped at the end.
#
#   scripts/bench.sh                    Terraform 1.5.7, 40ms each way per member (80 ms round trips)
#   BENCH_CLI=tofu scripts/bench.sh     OpenTofu
#   BENCH_LATENCY=80ms scripts/bench.sh
#   BENCH_SCENARIOS="20x3" scripts/bench.sh   objects x clusters, space-separated
#
# It enables the ConfigMap type and registers clusters named bench-*, and
# destroys them at the end: do not run it while acceptance tests run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
lab_dir=${KUBEFED_LAB_DIR:-$root/.lab}
latency=${BENCH_LATENCY:-40ms}
work=$(mktemp -d)
wide_dir=$work/lab-12
wide_members=12

export KUBEFED_LAB_KUBE_APISERVER=${KUBEFED_LAB_KUBE_APISERVER:-$(scripts/tool.sh kube-apiserver)}
export KUBEFED_LAB_KUBE_CONTROLLER_MANAGER=${KUBEFED_LAB_KUBE_CONTROLLER_MANAGER:-$(scripts/tool.sh kube-controller-manager)}
export KUBEFED_LAB_KUBE_SCHEDULER=${KUBEFED_LAB_KUBE_SCHEDULER:-$(scripts/tool.sh kube-scheduler)}
export KUBEFED_LAB_KWOK=${KUBEFED_LAB_KWOK:-$(scripts/tool.sh kwok)}
go build -o bin/kubefed-lab ./cmd/kubefed-lab
go build -o bin/terraform-provider-kubefed .
bin/kubefed-lab -dir "$lab_dir" up >/dev/null
case ${BENCH_CLI:-terraform} in
  tofu) tf=$(scripts/tool.sh tofu) ;;
  terraform) tf=$(scripts/tool.sh terraform) ;;
  *) tf=$BENCH_CLI ;;
esac

# dev_overrides: the CLI runs the provider just built, with no init.
cat >"$work/cli.tfrc" <<RC
provider_installation {
  dev_overrides {
    "registry.terraform.io/tf-kubefed/kubefed" = "$root/bin"
    "registry.opentofu.org/tf-kubefed/kubefed" = "$root/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE=$work/cli.tfrc TF_IN_AUTOMATION=1

# members DIR lists the members of the lab in DIR.
members() {
  bin/kubefed-lab -dir "$1" status | awk '$2 == "kube-apiserver" && $1 != "host" { print $1 }'
}

restore() {
  for m in $(members "$lab_dir"); do bin/kubefed-lab -dir "$lab_dir" latency "$m" 0s >/dev/null || true; done
  if [ -d "$wide_dir" ]; then bin/kubefed-lab -dir "$wide_dir" down >/dev/null || true; fi
  rm -rf "$work"
}
trap restore EXIT

# lab_for CLUSTERS prints the lab a scenario runs on: the default lab up to
# 6 clusters, else the wide one, started (with latency) the first time.
lab_for() {
  if [ "$1" -le 6 ]; then
    echo "$lab_dir"
    return
  fi
  if [ "$1" -gt "$wide_members" ]; then
    echo "bench.sh: $1 clusters: at most 6 (the default lab) or $wide_members (a plain lab)" >&2
    exit 2
  fi
  if [ ! -d "$wide_dir" ]; then
    bin/kubefed-lab -dir "$wide_dir" up -members "$wide_members" -plain >/dev/null
    for m in $(members "$wide_dir"); do bin/kubefed-lab -dir "$wide_dir" latency "$m" "$latency" >/dev/null; done
  fi
  echo "$wide_dir"
}

# config writes the configuration of a run: n objects on c clusters of the
# lab in lab_dir, going round its members.
config() {
  local dir=$1 run=$2 objects=$3 clusters=$4 lab_dir=$5
  local list
  list=$(members "$lab_dir" | sed 's/.*/"&"/' | paste -sd, -)
  mkdir -p "$dir"
  cat >"$dir/main.tf" <<TF
terraform {
  required_providers {
    kubefed = { source = "tf-kubefed/kubefed" }
  }
}

provider "kubefed" {
  config_path    = "$lab_dir/kubeconfig"
  config_context = "host"
}

locals {
  kubeconfig = yamldecode(file("$lab_dir/kubeconfig"))
  servers    = { for c in local.kubeconfig.clusters : c.name => c.cluster }
  users      = { for u in local.kubeconfig.users : u.name => u.user }
  members    = [$list]
  clusters   = { for i in range($clusters) : "bench-$run-\${i}" => local.members[i % length(local.members)] }
}

resource "kubefed_federated_type" "configmaps" {
  target_api_version = "v1"
  target_kind        = "ConfigMap"
}

resource "kubefed_federation_cluster" "member" {
  for_each     = local.clusters
  name         = each.key
  api_endpoint = local.servers[each.value].server
  ca_bundle    = base64decode(local.servers[each.value]["certificate-authority-data"])
  token        = local.users[each.value].token
}

resource "kubefed_federated_object" "config" {
  count = $objects
  type  = kubefed_federated_type.configmaps.name
  template = yamlencode({
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "bench-$run-\${count.index}", namespace = "default" }
    data       = { index = tostring(count.index) }
  })
  placement = {
    clusters = [for c in kubefed_federation_cluster.member : c.name]
  }
}
TF
}

seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log" >&2; return 1; }
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}

for m in $(members "$lab_dir"); do bin/kubefed-lab -dir "$lab_dir" latency "$m" "$latency" >/dev/null; done

rows=()
for scenario in ${BENCH_SCENARIOS:-1x1 1x3 1x6 20x3 50x3 1x12 20x12}; do
  objects=${scenario%x*} clusters=${scenario#*x}
  run=o${objects}c${clusters}
  dir=$work/$run
  lab=$(lab_for "$clusters")
  config "$dir" "$run" "$objects" "$clusters" "$lab"
  # Clusters and type first, untimed: the bench times the objects.
  "$tf" -chdir="$dir" apply -auto-approve -input=false \
    -target=kubefed_federated_type.configmaps -target=kubefed_federation_cluster.member >"$work/setup.log" 2>&1 ||
    { cat "$work/setup.log" >&2; exit 1; }
  apply=$(seconds "$tf" -chdir="$dir" apply -auto-approve -input=false)
  plan=$(seconds "$tf" -chdir="$dir" plan -detailed-exitcode -input=false)
  rows+=("$(printf '%-8s %-9s %9.2f %9.2f' "$objects" "$clusters" "$apply" "$plan")")
  "$tf" -chdir="$dir" destroy -auto-approve -input=false >"$work/destroy.log" 2>&1 ||
    { cat "$work/destroy.log" >&2; exit 1; }
done

echo
echo "$("$tf" version | head -n 1), ${latency} on each member's proxy, $(nproc) CPUs"
printf '%-8s %-9s %9s %9s\n' OBJECTS CLUSTERS "APPLY s" "PLAN s"
printf '%s\n' "${rows[@]}"
