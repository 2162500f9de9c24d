#!/usr/bin/env bash
# Checks the examples against the provider as built from this tree: every
# example validates against the provider's schema, and examples/three-regions
# (with the module it uses) plans against the running lab.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/cli-config.sh
lab_dir=${KUBEFED_LAB_DIR:-$root/.lab}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o bin/terraform-provider-kubefed .
kubefed_cli_config "$work"
tf=${KUBEFED_EXAMPLES_CLI:-$(scripts/tool.sh tofu)}

# Snippets name no provider source; each is checked beside one that does.
for dir in examples/provider examples/data-sources/* examples/resources/*; do
  copy=$work/$(echo "$dir" | tr / -)
  mkdir -p "$copy"
  cp "$dir"/*.tf "$copy"/
  grep -qs required_providers "$copy"/*.tf || cat >"$copy/versions.tf" <<'TF'
terraform {
  required_providers {
    kubefed = { source = "tf-kubefed/kubefed" }
  }
}
TF
  "$tf" -chdir="$copy" init -backend=false -input=false >"$copy/init.log" 2>&1 || { cat "$copy/init.log"; exit 1; }
  "$tf" -chdir="$copy" validate -no-color >/dev/null || { echo "example $dir does not validate"; exit 1; }
  echo "ok   $dir validates"
done

cp -r examples "$work/examples"
demo=$work/examples/three-regions
"$tf" -chdir="$demo" init -input=false >"$demo/init.log" 2>&1 || { cat "$demo/init.log"; exit 1; }
"$tf" -chdir="$demo" plan -no-color -input=false -var "kubeconfig=$lab_dir/kubeconfig" >"$demo/plan.log" 2>&1 ||
  { cat "$demo/plan.log"; echo "examples/three-regions does not plan against the lab"; exit 1; }
grep -q "10 to add" "$demo/plan.log" || { cat "$demo/plan.log"; echo "examples/three-regions: unexpected plan"; exit 1; }
echo "ok   examples/three-regions plans against the lab"
