#!/usr/bin/env bash
# Writes the schema of the provider built from this tree, as `providers schema
# -json` prints it, to the file OUT, for tfplugindocs's --providers-schema.
#
#   scripts/provider-schema.sh OUT
#
# The CLI has to know ephemeral resources and resource identities: Terraform
# 1.12 or later when that is the `terraform` on PATH, else the pinned OpenTofu
# 1.12 (KUBEFED_DOCS_CLI names another). It runs offline: the provider comes
# from a plugin directory, never from a registry.
#
# tfplugindocs looks the schema up under registry.terraform.io/hashicorp/NAME,
# so the provider is installed under that address. Left to itself, tfplugindocs
# runs `terraform init` with an implied source, which OpenTofu resolves on its
# own registry, so it cannot read the schema through OpenTofu.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: provider-schema.sh OUT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# No user CLI configuration (a plugin cache, a network mirror) and no
# update check.
: >"$work/cli.tfrc"
export TF_CLI_CONFIG_FILE=$work/cli.tfrc TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
unset TF_PLUGIN_CACHE_DIR

# minor_at_least CLI N: whether CLI is version 1.N or later.
minor_at_least() {
  local v
  v=$("$1" version -json 2>/dev/null | sed -n 's/.*"terraform_version": *"\([0-9]*\)\.\([0-9]*\)\..*/\1 \2/p')
  [ -n "$v" ] && { [ "${v% *}" -gt 1 ] || [ "${v#* }" -ge "$2" ]; }
}

tf=${KUBEFED_DOCS_CLI:-}
if [ -z "$tf" ]; then
  path_tf=$(command -v terraform || true)
  if [ -n "$path_tf" ] && minor_at_least "$path_tf" 12; then
    tf=$path_tf
  else
    tf=$("$root/scripts/tool.sh" tofu-1.12)
  fi
fi
minor_at_least "$tf" 12 || { echo "provider-schema.sh: $tf is older than 1.12, which has no resource identities" >&2; exit 1; }
echo "provider-schema.sh: schema read with $("$tf" version | sed -n 1p)" >&2

plugin=$work/plugins/registry.terraform.io/hashicorp/kubefed/0.0.1/$(go env GOOS)_$(go env GOARCH)
(cd "$root" && go build -o "$plugin/terraform-provider-kubefed" .)
cat >"$work/main.tf" <<'TF'
terraform {
  required_providers {
    kubefed = { source = "registry.terraform.io/hashicorp/kubefed" }
  }
}
TF
"$tf" -chdir="$work" init -backend=false -input=false -no-color -plugin-dir="$work/plugins" >"$work/init.log" 2>&1 ||
  { cat "$work/init.log" >&2; exit 1; }
"$tf" -chdir="$work" providers schema -json >"$work/schema.json"
mv "$work/schema.json" "$out"
