#!/usr/bin/env bash
# Builds the Go end-to-end program (test/e2e/go: Go Automation API inline programs over the
# generated Go SDK in sdks/go) and prints the folder that holds it, `cloudplatform-go-e2e`.
# The first build on a machine downloads github.com/pulumi/pulumi/sdk/v3 and its dependencies from
# the Go module proxy (the Pulumi CLI build has most of them already) and compiles them; Go's own
# module and build caches make every later build a matter of seconds. The program lands in a folder
# named by a hash of its sources (and the Go SDK's), so two checkouts of different code on one
# machine never run each other's program, and unchanged sources are not built again.
# Usage: "$(bash scripts/build-go-e2e.sh)/cloudplatform-go-e2e" '<request JSON>'
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache_root="${CLOUDPLATFORM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-cloudplatform}"

log() { echo "[build-go-e2e] $*" >&2; }

# Every file the build reads from this repository, hashed in a stable order.
sources_hash="$(cd "$repo_root" && find test/e2e/go sdks/go -type f -print0 | LC_ALL=C sort -z |
  xargs -0 sha256sum | sha256sum | cut -c1-16)"
bin_dir="$cache_root/go-e2e/$sources_hash"
if [ -x "$bin_dir/cloudplatform-go-e2e" ]; then
  echo "$bin_dir"
  exit 0
fi

command -v go >/dev/null 2>&1 || {
  log "error: Go is needed to build test/e2e/go (the version its go.mod names, or newer); install it and run again"
  exit 1
}
mkdir -p "$bin_dir"
log "building test/e2e/go (the first time: modules from the Go module proxy and a few minutes of compiling)"
cd "$repo_root/test/e2e/go"
GOTOOLCHAIN=local GOFLAGS=-mod=readonly go build -o "$bin_dir/cloudplatform-go-e2e.partial" .
mv "$bin_dir/cloudplatform-go-e2e.partial" "$bin_dir/cloudplatform-go-e2e"
echo "$bin_dir"
