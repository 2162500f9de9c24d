#!/usr/bin/env bash
# Sourced by the scripts that run OpenTofu or Terraform on the examples:
# installs bin/terraform-provider-kubefed into a local mirror, under both
# registries' host names, and points the CLI at it, so `init` works offline
# with either CLI. Expects $root and a directory $1 for the mirror.
#
#   source scripts/cli-config.sh DIR; tf=$(kubefed_cli)

kubefed_provider_version=0.0.1

kubefed_cli_config() {
  local dir=$1 mirror=$1/plugins
  mkdir -p "$dir"
  for registry in registry.terraform.io registry.opentofu.org; do
    local target=$mirror/$registry/tf-kubefed/kubefed/$kubefed_provider_version/$(go env GOOS)_$(go env GOARCH)
    mkdir -p "$target"
    cp "$root/bin/terraform-provider-kubefed" "$target/terraform-provider-kubefed_v$kubefed_provider_version"
  done
  local ours='"registry.terraform.io/tf-kubefed/kubefed", "registry.opentofu.org/tf-kubefed/kubefed"'
  cat >"$dir/cli.tfrc" <<RC
provider_installation {
  filesystem_mirror {
    path    = "$mirror"
    include = [$ours]
  }
  direct {
    exclude = [$ours]
  }
}
RC
  export TF_CLI_CONFIG_FILE=$dir/cli.tfrc TF_IN_AUTOMATION=1
}

# kubefed_cli prints the CLI to use: OpenTofu or Terraform found on PATH,
# else the pinned build of the newest OpenTofu.
kubefed_cli() {
  if command -v tofu >/dev/null 2>&1; then command -v tofu
  elif command -v terraform >/dev/null 2>&1; then command -v terraform
  else "$root/scripts/tool.sh" tofu-1.12
  fi
}
