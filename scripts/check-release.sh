#!/usr/bin/env bash
# Builds a snapshot release with .goreleaser.yml, for this machine's platform
# only, signs it with a throwaway GPG key, and checks what the registries
# check: the detached signature of the SHA256SUMS file verifies, and the sums
# cover the zip and the manifest and nothing added after signing. Writes
# nothing in the tree. GORELEASER names another goreleaser to try.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
goreleaser=${GORELEASER:-$(scripts/tool.sh goreleaser)}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GNUPGHOME=$tmp/gnupg
mkdir -m 700 "$GNUPGHOME"
gpg --batch --passphrase '' --quick-gen-key "release check <release-check@example.invalid>" default default never 2>/dev/null
fingerprint=$(gpg --list-secret-keys --with-colons 2>/dev/null | awk -F: '/^fpr/ {print $10; exit}')

# One platform, the output outside the tree, and no `go mod tidy` hook.
os=$(go env GOOS) arch=$(go env GOARCH)
{
  echo "dist: $tmp/dist"
  sed -e "s/^    goos: \[.*\]/    goos: [$os]/" -e "s/^    goarch: \[.*\]/    goarch: [$arch]/" -e 's/^    - go mod tidy$/    - go version/' .goreleaser.yml
} >"$tmp/goreleaser.yml"
GPG_FINGERPRINT=$fingerprint "$goreleaser" release --snapshot --clean --skip=publish --config "$tmp/goreleaser.yml" >"$tmp/log" 2>&1 ||
  { cat "$tmp/log" >&2; exit 1; }

sums=$(ls "$tmp"/dist/*_SHA256SUMS)
zip=$(ls "$tmp"/dist/*_"${os}_${arch}".zip)
fail() { echo "check-release: $*" >&2; cat "$sums" >&2; exit 1; }
gpg --verify "$sums.sig" "$sums" 2>/dev/null || fail "the signature of $(basename "$sums") does not verify"
grep -q "^$(sha256sum "$zip" | cut -d' ' -f1)  $(basename "$zip")$" "$sums" || fail "no right sum of $(basename "$zip")"
grep -q '_manifest\.json$' "$sums" || fail "no sum of the registry manifest"
! grep -q '\.sig$' "$sums" || fail "the sums list a signature, so they changed after signing"
echo "check-release: $("$goreleaser" --version 2>/dev/null | awk '/GitVersion/ {print $2}') signs a SHA256SUMS that verifies"
