#!/usr/bin/env bash
# The demo: brings the lab up, builds the provider, and runs the example in
# examples/demo against the lab with OpenTofu or Terraform.
#
#   scripts/demo.sh up     bring everything up and apply the example
#   scripts/demo.sh down   destroy what the example made and stop the lab
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
lab_dir=${KUBEFED_LAB_DIR:-$root/.lab}
example=$root/examples/demo

# cli: the CLI on PATH when there is one, else the pinned OpenTofu build.
cli() {
  if command -v tofu >/dev/null 2>&1; then command -v tofu
  elif command -v terraform >/dev/null 2>&1; then command -v terraform
  else scripts/tool.sh tofu
  fi
}

# The provider is used straight from bin/ through a CLI configuration with a
# development override, so nothing is downloaded or installed.
configure_cli() {
  local rc=$lab_dir/demo.tfrc
  cat >"$rc" <<RC
provider_installation {
  dev_overrides {
    "tf-kubefed/kubefed" = "$root/bin"
  }
  direct {}
}
RC
  export TF_CLI_CONFIG_FILE=$rc TF_IN_AUTOMATION=1
}

case ${1:-up} in
  up)
    export KUBEFED_LAB_KUBE_APISERVER=${KUBEFED_LAB_KUBE_APISERVER:-$(scripts/tool.sh kube-apiserver)}
    go build -o bin/kubefed-lab ./cmd/kubefed-lab
    go build -o bin/terraform-provider-kubefed .
    bin/kubefed-lab -dir "$lab_dir" up
    configure_cli
    tf=$(cli)
    echo "== $("$tf" version | head -n 1) apply on $example"
    "$tf" -chdir="$example" apply -auto-approve -input=false -var "kubeconfig=$lab_dir/kubeconfig"
    bin/kubefed-lab -dir "$lab_dir" status
    ;;
  down)
    if [ -d "$lab_dir" ]; then
      configure_cli
      tf=$(cli)
      "$tf" -chdir="$example" destroy -auto-approve -input=false -var "kubeconfig=$lab_dir/kubeconfig" || true
      bin/kubefed-lab -dir "$lab_dir" down
    fi
    rm -f "$example"/terraform.tfstate "$example"/terraform.tfstate.backup
    ;;
  *) echo "usage: demo.sh up|down" >&2; exit 2 ;;
esac
