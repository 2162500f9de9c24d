#!/usr/bin/env bash
# Runs the acceptance tests against the lab, once with OpenTofu and once with
# Terraform at the same time, on a second lab beside the first ($lab_dir-terraform),
# and the lab's own integration tests (a plain lab and a full one, each in a
# directory of its own). Brings each lab up when it is not running, and down
# again afterwards in that case only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

source scripts/lab-tools.sh
# helm renders the example chart for TestAccFederatedApplication_helmChart
# and for the guide that federates it.
kubefed_lab_tools tofu-1.12 terraform helm
# The newest OpenTofu and the oldest Terraform the provider supports; the
# CI workflow's matrix covers the versions between.
tofu=$(scripts/tool.sh tofu-1.12)
terraform=$(scripts/tool.sh terraform)

go build -o bin/kubefed-lab ./cmd/kubefed-lab
# Tests that run the CLI as a child process use this build of the provider,
# a test build: only it honours the hook that cuts a create off on purpose.
go build -tags kubefedtest -o bin/test/terraform-provider-kubefed .
export KUBEFED_PROVIDER_BINARY=$root/bin/test/terraform-provider-kubefed
# The state upgrade test takes over a state written by the last build before
# the resources' schema versions changed, built from that commit of this
# repository's history (a clone with its history, as `git clone` makes).
prior_commit=3832f3cc9c78d31d547bb2f738241f39b8b92c12
prior_bin=$root/bin/prior-${prior_commit:0:12}/terraform-provider-kubefed
has_prior() { git cat-file -e "$prior_commit^{commit}" 2>/dev/null; }
if [ -z "${KUBEFED_PRIOR_PROVIDER_BINARY:-}" ]; then
  if [ ! -x "$prior_bin" ] && ! has_prior; then
    # A shallow clone: fetch the one commit from where it came from.
    git fetch -q --depth=1 origin "$prior_commit" 2>/dev/null || true
  fi
  if [ ! -x "$prior_bin" ] && has_prior; then
    prior_src=$(mktemp -d)
    git archive "$prior_commit" | tar -x -C "$prior_src"
    (cd "$prior_src" && go build -tags kubefedtest -o "$prior_bin" .)
    rm -rf "$prior_src"
  fi
  if [ -x "$prior_bin" ]; then
    export KUBEFED_PRIOR_PROVIDER_BINARY=$prior_bin
  else
    echo "WARNING: commit $prior_commit is not in this clone and could not be fetched:" \
      "TestAccUpgrade_priorStatePlansNoChange is skipped (set KUBEFED_PRIOR_PROVIDER_BINARY)" >&2
  fi
fi
lab_dir=${KUBEFED_LAB_DIR:-$root/.lab}
# The Terraform pass runs on a second lab of its own, beside the OpenTofu
# pass (below).
second_dir=$lab_dir-terraform
started=()
for dir in "$lab_dir" "$second_dir"; do
  if [ ! -d "$dir" ]; then started+=("$dir"); fi
done
stop_started() {
  for dir in "${started[@]}"; do bin/kubefed-lab -dir "$dir" down; done
}
trap stop_started EXIT
bin/kubefed-lab -dir "$lab_dir" up
export KUBEFED_LAB_DIR=$lab_dir

go test -count=1 ./internal/lab/...

# OpenTofu 1.12 warns, in the output of `version` that the test framework
# parses, when TF_CLI_CONFIG_FILE names a file that does not exist.
if [ -n "${TF_CLI_CONFIG_FILE:-}" ] && [ ! -e "$TF_CLI_CONFIG_FILE" ]; then
  unset TF_CLI_CONFIG_FILE
fi

# terraform-plugin-testing's default provider namespace is rejected by
# OpenTofu; "hashicorp" works with both CLIs.
export TF_ACC=1 TF_ACC_PROVIDER_NAMESPACE=hashicorp
# The two CLIs' passes run at once, each on a lab of its own: most of a
# test is waiting (for the API servers, a rollout, the CLI), so together
# they take little longer than one. Each pass's output is printed when it
# is done, the OpenTofu pass's first.
bin/kubefed-lab -dir "$second_dir" up >/dev/null
logs=$(mktemp -d)
pids=()
passes=("$tofu:$lab_dir" "$terraform:$second_dir")
for i in "${!passes[@]}"; do
  cli=${passes[$i]%%:*} dir=${passes[$i]#*:}
  KUBEFED_LAB_DIR=$dir TF_ACC_TERRAFORM_PATH=$cli go test -count=1 -timeout 50m -run '^TestAcc' ./internal/... ${TESTARGS:-} \
    >"$logs/$i" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!passes[@]}"; do
  cli=${passes[$i]%%:*}
  wait "${pids[$i]}" || failed=1
  echo "== acceptance tests with $("$cli" version | sed -n 1p)"
  cat "$logs/$i"
done
rm -rf "$logs"
[ "$failed" = 0 ]

# Provider functions need Terraform 1.8 or later, which does not build from
# the module proxy: their tests also run with such a Terraform on PATH.
if newer=$(command -v terraform) && [ "$newer" != "$terraform" ]; then
  version=$("$newer" version -json 2>/dev/null | sed -n 's/.*"terraform_version": *"\([0-9.]*\)".*/\1/p')
  if [ -n "$version" ] && [ "$(printf '%s\n' 1.8.0 "$version" | sort -V | head -n 1)" = 1.8.0 ]; then
    echo "== function tests with Terraform $version ($newer)"
    TF_ACC_TERRAFORM_PATH=$newer go test -count=1 -timeout 20m -run '^TestAccFunction' ./internal/... ${TESTARGS:-}
  fi
fi

for cli in "$tofu" "$terraform"; do
  KUBEFED_EXAMPLES_CLI=$cli scripts/check-examples.sh
done

echo "== make install, as the README's Install section says"
scripts/check-install.sh "$tofu" "$terraform"
