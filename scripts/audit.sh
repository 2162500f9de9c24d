#!/usr/bin/env bash
# The audit of bad inputs (internal/provider/audit_test.go): each input is
# run through validate, plan and apply by the CLI, and the test reports where
# it was caught, whether anything was written before, and whether the
# message names the attribute and the cluster. Brings the lab up when it is
# not running, and down again afterwards in that case only.
#
#   scripts/audit.sh                 OpenTofu
#   AUDIT_CLI=terraform scripts/audit.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
source scripts/lab-tools.sh
kubefed_lab_tools "${AUDIT_CLI:-tofu}"
go build -o bin/kubefed-lab ./cmd/kubefed-lab
go build -o bin/terraform-provider-kubefed .
export KUBEFED_PROVIDER_BINARY=$root/bin/terraform-provider-kubefed
lab_dir=${KUBEFED_LAB_DIR:-$root/.lab}
if [ ! -d "$lab_dir" ]; then
  trap 'bin/kubefed-lab -dir "$lab_dir" down' EXIT
fi
bin/kubefed-lab -dir "$lab_dir" up >/dev/null
export KUBEFED_LAB_DIR=$lab_dir KUBEFED_AUDIT=1 TF_ACC=1 TF_ACC_PROVIDER_NAMESPACE=hashicorp
TF_ACC_TERRAFORM_PATH=$(scripts/tool.sh "${AUDIT_CLI:-tofu}") go test -count=1 -timeout 60m -run '^TestAccAudit' -v ./internal/provider/ |
  grep -E 'audit_test.go|^(--- |ok|FAIL)'
