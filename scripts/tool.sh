#!/usr/bin/env bash
# Prints the path of a command the project builds for itself, building it from
# the Go module proxy the first time. Binaries are cached outside the
# repository, keyed by version, so a second call is instant.
#
#   scripts/tool.sh etcd | kube-apiserver | kube-controller-manager | kube-scheduler | kubectl | kwok |
#                   tofu | tofu-1.12 | terraform | tfplugindocs | goreleaser | golangci-lint | helm
#   scripts/tool.sh --cached NAME   prints the path only if it is built, else exits 1
#
# The Kubernetes components and kubectl come from one tools module, so they share
# its version and Go's build cache: the second and third build reuse most of
# the first.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${KUBEFED_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/terraform-provider-kubefed}
cached_only=
if [ "${1:-}" = --cached ]; then
  cached_only=1
  shift
fi
name=${1:?usage: tool.sh [--cached] NAME}

# module_version DIR MODULE: the version of MODULE that tools/DIR/go.mod pins.
module_version() {
  (cd "$root/tools/$1" && go list -m -f '{{.Version}}' "$2")
}

case $name in
  etcd)           dir=etcd module=go.etcd.io/etcd/server/v3 pkg=go.etcd.io/etcd/server/v3 ;;
  kube-apiserver|kube-controller-manager|kube-scheduler|kubectl)
                  dir=kube-apiserver module=k8s.io/kubernetes pkg=k8s.io/kubernetes/cmd/$name ;;
  kwok)           dir=kwok module=sigs.k8s.io/kwok pkg=sigs.k8s.io/kwok/cmd/kwok ;;
  tofu)           dir=opentofu module=github.com/opentofu/opentofu pkg=github.com/opentofu/opentofu/cmd/tofu ;;
  tofu-1.12)      dir=opentofu-1.12 module=github.com/opentofu/opentofu pkg=github.com/opentofu/opentofu/cmd/tofu ;;
  tfplugindocs)   dir=tfplugindocs module=github.com/hashicorp/terraform-plugin-docs pkg=github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs ;;
  goreleaser)     dir=goreleaser module=github.com/goreleaser/goreleaser/v2 pkg=github.com/goreleaser/goreleaser/v2 ;;
  golangci-lint)  dir=golangci-lint module=github.com/golangci/golangci-lint/v2 pkg=github.com/golangci/golangci-lint/v2/cmd/golangci-lint ;;
  helm)           dir=helm module=helm.sh/helm/v4 pkg=helm.sh/helm/v4/cmd/helm ;;
  terraform)      dir= module=github.com/hashicorp/terraform pkg=github.com/hashicorp/terraform ;;
  *) echo "tool.sh: unknown tool $name" >&2; exit 2 ;;
esac

if [ -n "$dir" ]; then
  version=$(module_version "$dir" "$module")
else
  # Terraform's newer releases carry replace directives the proxy cannot
  # satisfy; 1.5.7 installs as a plain module.
  version=${KUBEFED_TERRAFORM_VERSION:-v1.5.7}
fi

bin="$cache/bin/$name-$version"
if [ ! -x "$bin" ]; then
  [ -z "$cached_only" ] || exit 1
  mkdir -p "$cache/bin"
  echo "tool.sh: building $name $version (first time only)" >&2
  tmp=$(mktemp -d "$cache/bin/.build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  if [ -n "$dir" ]; then
    (cd "$root/tools/$dir" && CGO_ENABLED=0 go build -trimpath -o "$tmp/$name" "$pkg")
  else
    GOBIN="$tmp" CGO_ENABLED=0 go install -trimpath "$pkg@$version"
  fi
  mv "$tmp/$name" "$bin"
fi
echo "$bin"
