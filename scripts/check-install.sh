#!/usr/bin/env bash
# Does what the README's "Install" section says, in an empty home directory:
# `make install`, then `init` of the section's configuration with each CLI,
# offline, and checks that each CLI's lock file holds the provider under its
# own registry's host name and that the provider starts (`validate`).
#
#   scripts/check-install.sh [CLI...]    # default: the pinned OpenTofu and Terraform
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ $# -gt 0 ]; then clis=("$@"); else clis=("$(scripts/tool.sh tofu-1.12)" "$(scripts/tool.sh terraform)"); fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The configuration is the README's own: the first hcl block of "## Install".
awk '/^## /{inside = ($0 == "## Install")} inside && /^```hcl$/{block=1; next} block && /^```$/{exit} block' README.md >"$tmp/main.tf"
grep -q 'source = "tf-kubefed/kubefed"' "$tmp/main.tf" || { echo "check-install: no configuration found in the README's Install section" >&2; exit 1; }

# A new home, so only `make install` can have put the provider there; Go keeps
# its caches, or the build would start from nothing.
export GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOPATH=$(go env GOPATH)
export HOME=$tmp/home CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
unset TF_CLI_CONFIG_FILE TF_PLUGIN_CACHE_DIR XDG_DATA_HOME XDG_CONFIG_HOME
mkdir -p "$HOME"
make --no-print-directory install >/dev/null

for cli in "${clis[@]}"; do
  version=$("$cli" version | sed -n 1p)
  case $version in
    OpenTofu*) registry=registry.opentofu.org ;;
    *)         registry=registry.terraform.io ;;
  esac
  work=$tmp/work-$(basename "$cli")
  mkdir -p "$work" && cp "$tmp/main.tf" "$work/"
  echo "== $version: init and validate"
  (cd "$work" && "$cli" init -input=false -no-color >init.log 2>&1) || { cat "$work/init.log" >&2; exit 1; }
  grep -q "provider \"$registry/tf-kubefed/kubefed\"" "$work/.terraform.lock.hcl" || {
    echo "check-install: $version did not lock $registry/tf-kubefed/kubefed:" >&2; cat "$work/.terraform.lock.hcl" >&2; exit 1; }
  grep -q 'version *= "0.0.1"' "$work/.terraform.lock.hcl" || {
    echo "check-install: $version locked another version than make install's 0.0.1" >&2; exit 1; }
  (cd "$work" && "$cli" validate -no-color)
done
echo "check-install: make install serves ${#clis[@]} CLI(s)"
