#!/usr/bin/env bash
# Times `apply` of kubefed_federated_object on the lab, and the median of
# three no-change `plan`s after it, with latency in front of every member,
# and prints a table:
#
#   1 object on 1, 3 and 6 member clusters; 20 objects on 1; 20, 50 and
#   200 objects on 3; 1, 20 and 200 objects on 12; 100 objects on 10.
#
# A scenario appNxC (app30x3 and app100x10 by default) compares one
# kubefed_federated_application of N ConfigMaps on C clusters with N
# kubefed_federated_objects of the same ConfigMaps: create, a no-change
# plan, an update of every object and a destroy of each form, the forms in
# turn (application, objects, application, ...), and prints the medians,
# their ratio and the provider's CPU seconds in each operation (every
# provider process of it: an apply's plan and apply) in a second table,
# with the host as far as BENCH_HOST_LATENCY when it is set.
#
# For each it also reports the CPU seconds the provider used in the plans
# (their median; less sensitive than the plan's duration to other work on the machine),
# its peak resident memory (both read from /proc while it runs) and the
# state's size per object and cluster. With BENCH_HOST_LATENCY set, every scenario runs a second
# time with the host behind that latency too, in two more columns.
#
# The default lab has three members; the 6-cluster case registers each of
# them twice, under two names, so every member receives each object twice.
# The 12-cluster cases run on a second, plain lab of twelve members
# (kube-apiservers only: ConfigMaps need no controllers), started for the
# bench in a temporary directory and stopped at the end. Only the lab a
# scenario runs on runs meanwhile.
#
#   scripts/bench.sh                    Terraform 1.5.7, 40ms each way per member (80 ms round trips)
#   BENCH_CLI=tofu scripts/bench.sh     OpenTofu
#   BENCH_LATENCY=80ms scripts/bench.sh
#   BENCH_HOST_LATENCY=40ms scripts/bench.sh  also with the host 80 ms away
#   BENCH_SCENARIOS="20x3" scripts/bench.sh   objects x clusters, space-separated
#   BENCH_PROVIDER=/tmp/old scripts/bench.sh  times that build of the provider instead
#   BENCH_PLAN_ROUNDS=5 scripts/bench.sh      the median of 5 no-change plans (3 by default)
#   BENCH_SCENARIOS="app30x3" scripts/bench.sh  one application of 30 ConfigMaps on 3 clusters
#                                               against 30 federated objects
#   BENCH_APP_ROUNDS=5 scripts/bench.sh       rounds of each form in such a scenario (3 by default)
#   BENCH_PEER=kubectl BENCH_PEER_PROVIDER=/path/to/terraform-provider-kubectl scripts/bench.sh
#                         also times, for each scenario of N objects on C clusters (C no more than a
#                         lab's members), the same ConfigMaps as N x C kubectl_manifest resources of
#                         alekc/kubectl, one provider alias per cluster, against our N objects: apply,
#                         a no-change plan and a destroy of each in turn, BENCH_PEER_ROUNDS (3) rounds,
#                         with the host as far as BENCH_HOST_LATENCY when set; it prints the medians,
#                         the ratios and each provider's CPU seconds. The peer's binary is built by
#                         the user (from its own sources), not by this script. Two floors are timed in
#                         the same turns: as many terraform_data resources (the CLI alone), and the
#                         same with this provider started in every walk but sent no request.
#
# It enables the ConfigMap type and registers clusters named bench-*, and
# destroys them at the end: do not run it while acceptance tests run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
lab_dir=${KUBEFED_LAB_DIR:-$root/.lab}
latency=${BENCH_LATENCY:-40ms}
host_latency=${BENCH_HOST_LATENCY:-}
plan_rounds=${BENCH_PLAN_ROUNDS:-3}
app_rounds=${BENCH_APP_ROUNDS:-3}
peer=${BENCH_PEER:-}
peer_rounds=${BENCH_PEER_ROUNDS:-3}
work=$(mktemp -d)
wide_dir=$work/lab-12
wide_members=12

source scripts/lab-tools.sh
kubefed_lab_tools
go build -o bin/kubefed-lab ./cmd/kubefed-lab
go build -o bin/terraform-provider-kubefed .
provider=${BENCH_PROVIDER:-$root/bin/terraform-provider-kubefed}
case $peer in
  "") ;;
  kubectl)
    if [ ! -x "${BENCH_PEER_PROVIDER:-}" ]; then
      echo "bench.sh: BENCH_PEER=kubectl needs BENCH_PEER_PROVIDER, the path of a terraform-provider-kubectl binary" >&2
      exit 2
    fi ;;
  *) echo "bench.sh: BENCH_PEER=$peer: the only peer is kubectl" >&2; exit 2 ;;
esac
bin/kubefed-lab -dir "$lab_dir" up >/dev/null
case ${BENCH_CLI:-terraform} in
  tofu) tf=$(scripts/tool.sh tofu) ;;
  terraform) tf=$(scripts/tool.sh terraform) ;;
  *) tf=$BENCH_CLI ;;
esac

# dev_overrides: the CLI runs the provider just built, with no init,
# through a wrapper that records, when the provider exits, its peak
# resident memory (VmHWM, in KiB, as last sampled) in $work/rss and the CPU
# time it used (user and system, in seconds, from the shell's account of
# its children) in $work/cpu. The memory is sampled beside the provider, by
# builtins only, so the wrapper exits with the provider: the CLI waits for
# every provider process to exit, and a wrapper that slept before noticing
# would add its sleep to every timing.
# wrapper BINARY FILE writes that wrapper for BINARY to FILE.
wrapper() {
  local binary=$1 file=$2
  mkdir -p "$(dirname "$file")"
  cat >"$file" <<WRAPPER
#!/usr/bin/env bash
samples=\$(mktemp)
"$binary" "\$@" &
pid=\$!
trap 'kill -TERM \$pid 2>/dev/null' TERM INT
(
  while kill -0 \$pid 2>/dev/null; do
    while read -r key value _; do
      if [ "\$key" = VmHWM: ]; then echo "\$value" >"\$samples"; fi
    done </proc/\$pid/status 2>/dev/null
    read -r -t 0.1 <> <(:) || true
  done
) &
sampler=\$!
wait \$pid
rc=\$?
# The children reaped so far are mktemp and the provider.
times >"\$samples.times"
cpu=\$(sed -n 2p "\$samples.times")
kill \$sampler 2>/dev/null
wait \$sampler 2>/dev/null
read -r peak <"\$samples" || peak=0
rm -f "\$samples" "\$samples.times"
echo "\${peak:-0}" >>"$work/rss"
echo "\$cpu" >>"$work/cpu"
exit \$rc
WRAPPER
  chmod +x "$file"
}
wrapper "$provider" "$work/plugin/terraform-provider-kubefed"
if [ -n "$peer" ]; then wrapper "$BENCH_PEER_PROVIDER" "$work/plugin-peer/terraform-provider-kubectl"; fi
cat >"$work/cli.tfrc" <<RC
provider_installation {
  dev_overrides {
    "registry.terraform.io/tf-kubefed/kubefed" = "$work/plugin"
    "registry.opentofu.org/tf-kubefed/kubefed" = "$work/plugin"
    "registry.terraform.io/alekc/kubectl"      = "$work/plugin-peer"
    "registry.opentofu.org/alekc/kubectl"      = "$work/plugin-peer"
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
  use_default_lab >/dev/null 2>&1 || true
  for m in host $(members "$lab_dir"); do bin/kubefed-lab -dir "$lab_dir" latency "$m" 0s >/dev/null || true; done
  rm -rf "$work"
}
trap restore EXIT

# lab_for CLUSTERS prints the lab a scenario runs on: the default lab up to
# 6 clusters, else the wide one, started (with latency) the first time.
# Only the lab in use runs: the other's idle servers would take CPU from the
# scenario (the wide lab is stopped, the default lab's clusters are stopped
# and started again with their data).
lab_for() {
  if [ "$1" -le 6 ]; then
    use_default_lab
    echo "$lab_dir"
    return
  fi
  if [ "$1" -gt "$wide_members" ]; then
    echo "bench.sh: $1 clusters: at most 6 (the default lab) or $wide_members (a plain lab)" >&2
    exit 2
  fi
  if [ ! -e "$work/default-stopped" ]; then
    for c in host $(members "$lab_dir"); do bin/kubefed-lab -dir "$lab_dir" stop "$c" >/dev/null; done
    touch "$work/default-stopped"
  fi
  if [ ! -d "$wide_dir" ]; then
    bin/kubefed-lab -dir "$wide_dir" up -members "$wide_members" -plain >/dev/null
    for m in $(members "$wide_dir"); do bin/kubefed-lab -dir "$wide_dir" latency "$m" "$latency" >/dev/null; done
  fi
  echo "$wide_dir"
}

# use_default_lab stops the wide lab, if it runs, and starts the default
# lab's clusters again if the bench stopped them (lab_for runs in a
# subshell, so a file says so).
use_default_lab() {
  if [ -d "$wide_dir" ]; then bin/kubefed-lab -dir "$wide_dir" down >/dev/null; fi
  if [ -e "$work/default-stopped" ]; then
    bin/kubefed-lab -dir "$lab_dir" up >/dev/null
    rm "$work/default-stopped"
  fi
}

# header writes the part of a run's configuration every form shares: the
# provider, the ConfigMap type and c clusters of the lab in lab_dir, going
# round its members.
header() {
  local run=$1 clusters=$2 lab_dir=$3
  local list
  list=$(members "$lab_dir" | sed 's/.*/"&"/' | paste -sd, -)
  cat <<TF
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
TF
}

# config writes the configuration of a run: n objects on c clusters of the
# lab in lab_dir, going round its members.
config() {
  local dir=$1 run=$2 objects=$3 clusters=$4 lab_dir=$5
  mkdir -p "$dir"
  header "$run" "$clusters" "$lab_dir" >"$dir/main.tf"
  cat >>"$dir/main.tf" <<TF

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

# set_config writes the configuration of an application scenario: the
# same n ConfigMaps on c clusters, as one kubefed_federated_application
# (var.form = "app") or as n kubefed_federated_objects (var.form =
# "objects"), with the clusters and the type shared by both.
# var.generation goes into every ConfigMap's data, so applying another value
# updates all of them.
set_config() {
  local dir=$1 run=$2 objects=$3 clusters=$4 lab_dir=$5
  mkdir -p "$dir"
  header "$run" "$clusters" "$lab_dir" >"$dir/main.tf"
  cat >>"$dir/main.tf" <<TF

variable "form" {
  type    = string
  default = "none"
}

variable "generation" {
  type    = string
  default = "1"
}

locals {
  configmaps = [for i in range($objects) : {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "bench-$run-\${i}", namespace = "default" }
    data       = { index = tostring(i), generation = var.generation }
  }]
}

resource "kubefed_federated_application" "set" {
  count      = var.form == "app" ? 1 : 0
  name       = "bench-$run"
  manifests  = [for m in local.configmaps : yamlencode(m)]
  placement  = { clusters = [for c in kubefed_federation_cluster.member : c.name] }
  depends_on = [kubefed_federated_type.configmaps]
}

resource "kubefed_federated_object" "set" {
  count     = var.form == "objects" ? $objects : 0
  type      = kubefed_federated_type.configmaps.name
  template  = yamlencode(local.configmaps[count.index])
  placement = { clusters = [for c in kubefed_federation_cluster.member : c.name] }
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

# peak_rss_mib prints the largest peak of the provider processes since the
# last call, in MiB, and forgets them.
peak_rss_mib() {
  sort -n "$work/rss" | tail -n 1 | awk '{ printf "%.0f", $1 / 1024 }'
  : >"$work/rss"
}

# state_bytes DIR OBJECTS CLUSTERS prints the state's size per object and
# cluster, in bytes.
state_bytes() {
  local size
  size=$(wc -c <"$1/terraform.tfstate")
  echo "$size / ($2 * $3)" | bc
}

# plan_cpu_seconds prints the CPU time of the provider processes since the
# last call, in seconds, and forgets them. Each line is what `times` says
# of a wrapper's children: user and system time, as 0m0.370s 0m0.050s.
plan_cpu_seconds() {
  awk '{ for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); sum += t[1] * 60 + t[2] } } END { printf "%.2f", sum }' "$work/cpu"
  : >"$work/cpu"
}

# median prints the middle one of the numbers on its input, one a line
# (of an even count, the lower middle one).
median() {
  sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# timed_run DIR prints the seconds of an apply and the median seconds of
# plan_rounds no-change plans after it, and leaves the applied objects in
# place, and in $work/plan-cpu the median CPU time of the provider
# processes of those plans. A single plan's time varies by a tenth or more
# from one run to the next on a shared machine.
timed_run() {
  local apply round plans=() cpus=()
  apply=$(seconds "$tf" -chdir="$1" apply -auto-approve -input=false)
  for ((round = 0; round < plan_rounds; round++)); do
    : >"$work/cpu"
    plans+=("$(seconds "$tf" -chdir="$1" plan -detailed-exitcode -input=false)")
    cpus+=("$(plan_cpu_seconds)")
  done
  printf '%s\n' "${cpus[@]}" | median >"$work/plan-cpu"
  printf '%9.2f %9.2f' "$apply" "$(printf '%s\n' "${plans[@]}" | median)"
}

# timed FILE CMD... runs CMD, and appends its seconds to FILE and the CPU
# seconds of the provider processes it ran to FILE.cpu.
timed() {
  local file=$1
  shift
  : >"$work/cpu"
  seconds "$@" >>"$file"
  plan_cpu_seconds >>"$file.cpu"
  echo >>"$file.cpu"
}

# app_round DIR FORM RESOURCE times, for one form of an application
# scenario, a create, a no-change plan (which fails the bench if it is not
# empty), an update of every object and a destroy, in $work/app-FORM-OP.
app_round() {
  local dir=$1 form=$2 target=$3 out=$work/app-$2
  timed "$out-create" "$tf" -chdir="$dir" apply -auto-approve -input=false -var form="$form"
  timed "$out-plan" "$tf" -chdir="$dir" plan -detailed-exitcode -input=false -var form="$form"
  timed "$out-update" "$tf" -chdir="$dir" apply -auto-approve -input=false -var form="$form" -var generation=2
  timed "$out-destroy" "$tf" -chdir="$dir" destroy -auto-approve -input=false -var form="$form" -var generation=2 \
    -target="$target"
}

# app_scenario OBJECTS CLUSTERS runs app_rounds rounds of the application
# form and the objects form in turn, and adds a row per operation to
# app_rows: the median seconds of each form, their ratio and the median CPU
# seconds of the provider in each.
app_scenario() {
  local objects=$1 clusters=$2 round op app objs lab
  local run=a${objects}c${clusters} dir=$work/a${objects}c${clusters}
  lab=$(lab_for "$clusters")
  set_config "$dir" "$run" "$objects" "$clusters" "$lab"
  "$tf" -chdir="$dir" apply -auto-approve -input=false >"$work/setup.log" 2>&1 || { cat "$work/setup.log" >&2; exit 1; }
  rm -f "$work"/app-*
  if [ -n "$host_latency" ]; then bin/kubefed-lab -dir "$lab" latency host "$host_latency" >/dev/null; fi
  for ((round = 0; round < app_rounds; round++)); do
    app_round "$dir" app kubefed_federated_application.set
    app_round "$dir" objects kubefed_federated_object.set
  done
  if [ -n "$host_latency" ]; then bin/kubefed-lab -dir "$lab" latency host 0s >/dev/null; fi
  for op in create plan update destroy; do
    app=$(median <"$work/app-app-$op") objs=$(median <"$work/app-objects-$op")
    app_rows+=("$(printf '%-8s %-9s %-8s %9.2f %9.2f %9.2f %9.2f %9.2f' "$objects" "$clusters" "$op" "$app" "$objs" \
      "$(echo "$app / $objs" | bc -l)" "$(sed '/^$/d' "$work/app-app-$op.cpu" | median)" \
      "$(sed '/^$/d' "$work/app-objects-$op.cpu" | median)")")
  done
  for op in create plan update destroy; do
    echo "app${objects}x$clusters $op, seconds by round: app $(paste -sd' ' "$work/app-app-$op"), objects $(paste -sd' ' "$work/app-objects-$op")" >&2
  done
  "$tf" -chdir="$dir" destroy -auto-approve -input=false >"$work/destroy.log" 2>&1 || { cat "$work/destroy.log" >&2; exit 1; }
}

# peer_config DIR RUN OBJECTS CLUSTERS LAB writes two configurations of
# var.n ConfigMaps on c members of the lab: DIR/ours, kubefed_federated_objects
# placed on c registered clusters (registered and enabled by the untimed first
# apply), and DIR/peer, kubectl_manifests, one provider alias per member.
peer_config() {
  local dir=$1 run=$2 objects=$3 clusters=$4 lab=$5 i member
  config "$dir/ours" "$run" 0 "$clusters" "$lab"
  sed -i 's/^  count = 0$/  count = var.n/' "$dir/ours/main.tf"
  printf '\nvariable "n" {\n  type    = number\n  default = 0\n}\n' >>"$dir/ours/main.tf"
  mkdir -p "$dir/peer"
  cat >"$dir/peer/main.tf" <<TF
terraform {
  required_providers {
    kubectl = { source = "alekc/kubectl" }
  }
}

variable "n" {
  type    = number
  default = 0
}

locals {
  kubeconfig = yamldecode(file("$lab/kubeconfig"))
  servers    = { for c in local.kubeconfig.clusters : c.name => c.cluster }
  users      = { for u in local.kubeconfig.users : u.name => u.user }
}
TF
  i=0
  for member in $(members "$lab" | head -n "$clusters"); do
    cat >>"$dir/peer/main.tf" <<TF

provider "kubectl" {
  alias                  = "c$i"
  host                   = local.servers["$member"].server
  cluster_ca_certificate = base64decode(local.servers["$member"]["certificate-authority-data"])
  token                  = local.users["$member"].token
  load_config_file       = false
}

resource "kubectl_manifest" "c$i" {
  provider = kubectl.c$i
  count    = var.n
  yaml_body = yamlencode({
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "bench-peer-$run-\${count.index}", namespace = "default" }
    data       = { index = tostring(count.index) }
  })
}
TF
    i=$((i + 1))
  done
}

# floor_config DIR LAB writes two configurations that send no request to
# any cluster, for the floor under the peer table's figures: DIR/cli,
# var.n terraform_data resources (the CLI alone, no provider process), and
# DIR/proc, the same resources with inputs from this provider's
# replica_split function, so that the CLI starts this provider in each walk
# as it does for the objects (the processes' start, handshake and schema).
floor_config() {
  local dir=$1 lab=$2
  mkdir -p "$dir/cli" "$dir/proc"
  cat >"$dir/cli/main.tf" <<TF
variable "n" {
  type    = number
  default = 0
}

resource "terraform_data" "config" {
  count = var.n
  input = tostring(count.index)
}
TF
  cat >"$dir/proc/main.tf" <<TF
terraform {
  required_providers {
    kubefed = { source = "tf-kubefed/kubefed" }
  }
}

provider "kubefed" {
  config_path    = "$lab/kubeconfig"
  config_context = "host"
}

variable "n" {
  type    = number
  default = 0
}

resource "terraform_data" "config" {
  count = var.n
  input = provider::kubefed::replica_split(count.index + 1, ["a", "b", "c"], {}, { strategy = "balanced" })
}
TF
}

# peer_round DIR FORM OBJECTS times, for one form (ours, peer, or the floors
# cli and proc), an apply of OBJECTS resources, a no-change plan (which
# fails the bench if it is not empty) and a destroy of them (an apply of
# none), in $work/peer-FORM-OP.
peer_round() {
  local dir=$1/$2 out=$work/peer-$2 objects=$3
  timed "$out-apply" "$tf" -chdir="$dir" apply -auto-approve -input=false -var n="$objects"
  timed "$out-plan" "$tf" -chdir="$dir" plan -detailed-exitcode -input=false -var n="$objects"
  timed "$out-destroy" "$tf" -chdir="$dir" apply -auto-approve -input=false -var n=0
}

# peer_scenario OBJECTS CLUSTERS LAB runs peer_rounds rounds of our form and
# the peer's in turn, with the host at BENCH_HOST_LATENCY when set, and adds
# a row per operation to peer_rows.
peer_scenario() {
  local objects=$1 clusters=$2 lab=$3 round op ours theirs
  local run=p${objects}c${clusters} dir=$work/p${objects}c${clusters}
  if [ "$clusters" -gt "$(members "$lab" | wc -l)" ]; then
    echo "bench.sh: $objects x $clusters: the peer gets one alias per member, and the lab has fewer; skipped" >&2
    return
  fi
  peer_config "$dir" "$run" "$objects" "$clusters" "$lab"
  floor_config "$dir" "$lab"
  "$tf" -chdir="$dir/ours" apply -auto-approve -input=false >"$work/setup.log" 2>&1 || { cat "$work/setup.log" >&2; exit 1; }
  if [ -n "$host_latency" ]; then bin/kubefed-lab -dir "$lab" latency host "$host_latency" >/dev/null; fi
  rm -f "$work"/peer-*
  for ((round = 0; round < peer_rounds; round++)); do
    peer_round "$dir" ours "$objects"
    peer_round "$dir" peer "$objects"
    peer_round "$dir" cli "$objects"
    peer_round "$dir" proc "$objects"
  done
  if [ -n "$host_latency" ]; then bin/kubefed-lab -dir "$lab" latency host 0s >/dev/null; fi
  for op in apply plan destroy; do
    ours=$(median <"$work/peer-ours-$op") theirs=$(median <"$work/peer-peer-$op")
    peer_rows+=("$(printf '%-8s %-9s %-8s %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f' "$objects" "$clusters" "$op" "$ours" "$theirs" \
      "$(echo "$theirs / $ours" | bc -l)" "$(sed '/^$/d' "$work/peer-ours-$op.cpu" | median)" \
      "$(sed '/^$/d' "$work/peer-peer-$op.cpu" | median)" "$(median <"$work/peer-cli-$op")" \
      "$(median <"$work/peer-proc-$op")")")
    echo "peer ${objects}x$clusters $op, seconds by round: ours $(paste -sd' ' "$work/peer-ours-$op"), peer $(paste -sd' ' "$work/peer-peer-$op"), cli floor $(paste -sd' ' "$work/peer-cli-$op"), with our processes $(paste -sd' ' "$work/peer-proc-$op")" >&2
  done
  "$tf" -chdir="$dir/ours" destroy -auto-approve -input=false >"$work/destroy.log" 2>&1 || { cat "$work/destroy.log" >&2; exit 1; }
}

for m in $(members "$lab_dir"); do bin/kubefed-lab -dir "$lab_dir" latency "$m" "$latency" >/dev/null; done
: >"$work/rss" >"$work/cpu"

rows=() app_rows=() peer_rows=()
for scenario in ${BENCH_SCENARIOS:-1x1 1x3 1x6 20x1 20x3 50x3 200x3 1x12 20x12 200x12 100x10 app30x3 app100x10}; do
  objects=${scenario%x*} clusters=${scenario#*x}
  if [ "${objects#app}" != "$objects" ]; then
    app_scenario "${objects#app}" "$clusters"
    continue
  fi
  run=o${objects}c${clusters}
  dir=$work/$run
  lab=$(lab_for "$clusters")
  config "$dir" "$run" "$objects" "$clusters" "$lab"
  # Clusters and type first, untimed: the bench times the objects.
  "$tf" -chdir="$dir" apply -auto-approve -input=false \
    -target=kubefed_federated_type.configmaps -target=kubefed_federation_cluster.member >"$work/setup.log" 2>&1 ||
    { cat "$work/setup.log" >&2; exit 1; }
  : >"$work/rss"
  near=$(timed_run "$dir")
  cpu=$(cat "$work/plan-cpu")
  rss=$(peak_rss_mib)
  state=$(state_bytes "$dir" "$objects" "$clusters")
  far=""
  if [ -n "$host_latency" ]; then
    # The same objects again, created anew, with the host far away.
    "$tf" -chdir="$dir" destroy -auto-approve -input=false -target=kubefed_federated_object.config >"$work/destroy.log" 2>&1 ||
      { cat "$work/destroy.log" >&2; exit 1; }
    bin/kubefed-lab -dir "$lab" latency host "$host_latency" >/dev/null
    far=$(timed_run "$dir")
    bin/kubefed-lab -dir "$lab" latency host 0s >/dev/null
  fi
  rows+=("$(printf '%-8s %-9s %s %s %9s %9s %9s' "$objects" "$clusters" "$near" "$far" "$cpu" "$rss" "$state")")
  "$tf" -chdir="$dir" destroy -auto-approve -input=false >"$work/destroy.log" 2>&1 ||
    { cat "$work/destroy.log" >&2; exit 1; }
  if [ -n "$peer" ]; then peer_scenario "$objects" "$clusters" "$lab"; fi
done

echo
echo "$("$tf" version | sed -n 1p), ${latency} on each member's proxy${host_latency:+ and ${host_latency} on the host proxy in the FAR columns}, $(nproc) CPUs"
if [ ${#rows[@]} -eq 0 ]; then
  :
elif [ -n "$host_latency" ]; then
  printf '%-8s %-9s %9s %9s %9s %9s %9s %9s %9s\n' OBJECTS CLUSTERS "APPLY s" "PLAN s" "FAR APPLY" "FAR PLAN" "PLAN CPU" "RSS MiB" "STATE B"
else
  printf '%-8s %-9s %9s %9s %9s %9s %9s\n' OBJECTS CLUSTERS "APPLY s" "PLAN s" "PLAN CPU" "RSS MiB" "STATE B"
fi
if [ ${#rows[@]} -gt 0 ]; then printf '%s\n' "${rows[@]}"; fi
if [ ${#app_rows[@]} -gt 0 ]; then
  echo
  echo "One kubefed_federated_application against as many kubefed_federated_objects, medians of $app_rounds rounds, the forms in turn"
  printf '%-8s %-9s %-8s %9s %9s %9s %9s %9s\n' OBJECTS CLUSTERS OP "APP s" "OBJECTS s" RATIO "APP CPU" "OBJ CPU"
  printf '%s\n' "${app_rows[@]}"
fi
if [ ${#peer_rows[@]} -gt 0 ]; then
  echo
  echo "kubefed_federated_objects against alekc/kubectl's kubectl_manifests (one alias per cluster), medians of $peer_rounds rounds, in turn${host_latency:+, host at ${host_latency} each way}"
  echo "CLI s: as many terraform_data resources (the CLI alone); +PROC s: the same, with this provider started in each walk, no request"
  printf '%-8s %-9s %-8s %9s %9s %9s %9s %9s %9s %9s\n' OBJECTS CLUSTERS OP "OURS s" "PEER s" "PEER/OURS" "OURS CPU" "PEER CPU" \
    "CLI s" "+PROC s"
  printf '%s\n' "${peer_rows[@]}"
fi
