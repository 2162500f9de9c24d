#!/usr/bin/env bash
# Checks the examples and the guides against the provider as built from this
# tree, with one CLI (KUBEFED_EXAMPLES_CLI, else the pinned OpenTofu):
#
# - every example is formatted, and each of examples/provider,
#   examples/data-sources, examples/resources and examples/managed-clusters
#   validates against the provider's schema (with its import-by-string-id.tf import blocks, and
#   again with its import-by-identity.tf ones on a CLI that has identity);
# - examples/three-regions (with the module it uses) plans against the lab;
# - every guide in templates/guides is one configuration: its ```terraform
#   blocks, in the order they appear, concatenated, must be formatted, init,
#   validate and plan against the lab. The configuration reads the lab's
#   kubeconfig from var.kubeconfig (set here through TF_VAR_kubeconfig) and
#   lives in a directory of examples/, so `../modules/regional-app` is the
#   module of this repository. A piece of HCL that cannot plan on its own
#   (one attribute of a block shown elsewhere, a CLI's backend) is fenced
#   ```hcl instead, and the guide's text says what it belongs to. A guide's
#   `helm create` and `helm template` command lines (in its ```shell blocks)
#   run first, in that directory, with the pinned helm, so the files they
#   write are there.
#
# With guide names as arguments (getting-started ...), it checks those guides
# only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/cli-config.sh
lab_dir=${KUBEFED_LAB_DIR:-$root/.lab}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Guides left out of the check, each with the reason.
#   migrating-from-kubefed: its import blocks take over a KubeFed installation,
#     which the lab does not have; TestAccMigration_generateConfig writes
#     one into the lab and runs the guide's steps.
#   managed-clusters: its members are EKS, GKE and AKS clusters, whose cloud
#     providers cannot be installed here; its configuration is
#     examples/managed-clusters, validated with the examples.
unchecked_guides=(migrating-from-kubefed managed-clusters)

go build -o bin/terraform-provider-kubefed .
kubefed_cli_config "$work"
tf=${KUBEFED_EXAMPLES_CLI:-$(scripts/tool.sh tofu-1.12)}
echo "== examples and guides with $("$tf" version | sed -n 1p)"

guides=("$@")
[ ${#guides[@]} -gt 0 ] || guides=($(ls templates/guides | sed -n 's/\.md\.tmpl$//p'))
example_dirs=(examples/provider examples/data-sources/* examples/resources/* examples/managed-clusters)
[ $# -eq 0 ] || example_dirs=()

[ $# -gt 0 ] || "$tf" fmt -check -diff -recursive examples || { echo "examples are not formatted as \`fmt\` would"; exit 1; }

# Import blocks by identity came with Terraform 1.12 and OpenTofu 1.12.
version=$("$tf" version -json | sed -n 's/.*"terraform_version": *"\([0-9]*\)\.\([0-9]*\)\..*/\1 \2/p')
identity_imports=false
[ "${version% *}" -gt 1 ] || [ "${version#* }" -ge 12 ] && identity_imports=true

# Snippets name no provider source; each is checked beside one that does.
for dir in "${example_dirs[@]}"; do
  copy=$work/$(echo "$dir" | tr / -)
  mkdir -p "$copy"
  cp "$dir"/*.tf "$copy"/
  rm -f "$copy/import-by-identity.tf"
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
  if [ -f "$dir/import-by-identity.tf" ] && $identity_imports; then
    rm -f "$copy/import-by-string-id.tf"
    cp "$dir/import-by-identity.tf" "$copy"/
    "$tf" -chdir="$copy" validate -no-color >/dev/null || { echo "example $dir does not validate with its import by identity"; exit 1; }
    echo "ok   $dir validates with its import by identity"
  fi
done

cp -r examples "$work/examples"
export TF_VAR_kubeconfig=$lab_dir/kubeconfig

# plans DIR WHAT: init and plan the configuration in DIR against the lab.
plans() {
  local dir=$1 what=$2
  "$tf" -chdir="$dir" init -input=false -no-color >"$dir/init.log" 2>&1 || { cat "$dir/init.log"; echo "$what does not init"; exit 1; }
  "$tf" -chdir="$dir" validate -no-color >"$dir/validate.log" 2>&1 || { cat "$dir/validate.log"; echo "$what does not validate"; exit 1; }
  "$tf" -chdir="$dir" plan -no-color -input=false >"$dir/plan.log" 2>&1 ||
    { cat "$dir/plan.log"; echo "$what does not plan against the lab"; exit 1; }
}

if [ $# -eq 0 ]; then
  demo=$work/examples/three-regions
  plans "$demo" examples/three-regions
  grep -q "9 to add" "$demo/plan.log" || { cat "$demo/plan.log"; echo "examples/three-regions: unexpected plan"; exit 1; }
  echo "ok   examples/three-regions plans against the lab"
fi

# render_charts GUIDE DIR: runs the `helm create` and `helm template` lines of
# GUIDE's ```shell blocks in DIR with the pinned helm.
render_charts() {
  local guide=$1 dir=$2 helm line
  awk '/^```shell[[:space:]]*$/ { inside = 1; next } /^```/ { inside = 0; next } inside && /^helm (create|template) /' "$guide" |
    while IFS= read -r line; do
      helm=${helm:-$(scripts/tool.sh helm)}
      (cd "$dir" && eval "\"\$helm\" ${line#helm }") || { echo "$guide: \`$line\` fails"; exit 1; }
    done
}

# The guides are written for a federation's host: some only read its
# registry, which a host without KubeFed's CRDs refuses to list.
kubectl=$(command -v kubectl || scripts/tool.sh kubectl)
"$kubectl" --kubeconfig "$lab_dir/kubeconfig" --context host apply --server-side --force-conflicts --field-manager=terraform-provider-kubefed -f internal/registry/crds/core.yaml >/dev/null

for name in "${guides[@]}"; do
  guide=templates/guides/$name.md.tmpl
  [ -f "$guide" ] || { echo "no guide $guide"; exit 1; }
  if [[ " ${unchecked_guides[*]} " == *" $name "* ]]; then
    echo "skip $guide (in unchecked_guides)"
    continue
  fi
  # An indented fence (inside a list item) would be left out unseen.
  if grep -n '^[[:space:]]\+```terraform' "$guide"; then
    echo "$guide: a \`\`\`terraform block is indented; unindent it, or fence it \`\`\`hcl if it is a fragment"; exit 1
  fi
  dir=$work/examples/guide-$name
  mkdir -p "$dir"
  awk '/^```terraform[[:space:]]*$/ { inside = 1; next } /^```/ { if (inside) print ""; inside = 0; next } inside' \
    "$guide" >"$dir/main.tf"
  [ -s "$dir/main.tf" ] || { echo "$guide has no \`\`\`terraform block: fence its configuration so, or list it in unchecked_guides"; exit 1; }
  render_charts "$guide" "$dir"
  "$tf" fmt -check -diff "$dir/main.tf" >"$dir/fmt.log" 2>&1 || { cat "$dir/fmt.log"; echo "$guide: its HCL is not formatted as \`fmt\` would"; exit 1; }
  plans "$dir" "$guide"
  echo "ok   $guide plans against the lab ($(grep -o 'Plan: .*' "$dir/plan.log" || echo 'no changes'))"
done
