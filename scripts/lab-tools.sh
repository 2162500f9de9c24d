#!/usr/bin/env bash
# Sourced by the scripts that run the lab: builds what is not yet cached,
# after saying what that is and roughly how long it takes, and exports the
# lab's binaries. Expects $root; extra tool names (tofu-1.12, terraform) are built
# too. A KUBEFED_LAB_* variable already set wins over the pinned build.
#
#   source scripts/lab-tools.sh; kubefed_lab_tools tofu-1.12 terraform

# Minutes each build took on a busy two-core machine with an empty Go cache.
# The Kubernetes components share most of their code, so the first one pays
# for the others.
kubefed_build_minutes() {
  case $1 in
    kube-apiserver) echo 14 ;;
    kube-controller-manager) echo 3 ;;
    tofu|tofu-1.12) echo 9 ;;
    terraform) echo 4 ;;
    helm) echo 30 ;;
    *) echo 1 ;;
  esac
}

kubefed_lab_tools() {
  local lab=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)
  local missing=() minutes=0 t
  for t in "${lab[@]}" "$@"; do
    if ! "$root/scripts/tool.sh" --cached "$t" >/dev/null; then
      missing+=("$t")
      minutes=$((minutes + $(kubefed_build_minutes "$t")))
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== first run: building ${missing[*]} from the Go module proxy," \
      "about $minutes minutes on two cores; later runs reuse them" >&2
  fi
  KUBEFED_LAB_ETCD=${KUBEFED_LAB_ETCD:-$("$root/scripts/tool.sh" etcd)}
  KUBEFED_LAB_KUBE_APISERVER=${KUBEFED_LAB_KUBE_APISERVER:-$("$root/scripts/tool.sh" kube-apiserver)}
  KUBEFED_LAB_KUBE_CONTROLLER_MANAGER=${KUBEFED_LAB_KUBE_CONTROLLER_MANAGER:-$("$root/scripts/tool.sh" kube-controller-manager)}
  KUBEFED_LAB_KUBE_SCHEDULER=${KUBEFED_LAB_KUBE_SCHEDULER:-$("$root/scripts/tool.sh" kube-scheduler)}
  KUBEFED_LAB_KWOK=${KUBEFED_LAB_KWOK:-$("$root/scripts/tool.sh" kwok)}
  export KUBEFED_LAB_ETCD KUBEFED_LAB_KUBE_APISERVER KUBEFED_LAB_KUBE_CONTROLLER_MANAGER KUBEFED_LAB_KUBE_SCHEDULER KUBEFED_LAB_KWOK
  for t in "$@"; do
    "$root/scripts/tool.sh" "$t" >/dev/null
  done
}
