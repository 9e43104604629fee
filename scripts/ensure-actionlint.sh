#!/usr/bin/env bash
# Makes sure actionlint, the linter of GitHub Actions workflow files, is available, and prints the
# folder that holds it (put it on PATH). Order: a per-version cache, then a build from the Go module
# proxy (the project's workflows cannot run on these machines, so a real linter is what checks them).
# Usage: "$(bash scripts/ensure-actionlint.sh)/actionlint" .github/workflows/*.yml
set -euo pipefail

version="${ACTIONLINT_VERSION:-v1.7.12}"
cache_root="${CLOUDPLATFORM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-cloudplatform}"
bin_dir="$cache_root/actionlint/$version/bin"

log() { echo "[ensure-actionlint] $*" >&2; }
# shellcheck source=lib/go-proxy-build.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/go-proxy-build.sh"

if [ -x "$bin_dir/actionlint" ]; then
  echo "$bin_dir"
  exit 0
fi

if go_proxy_build \
  "building actionlint $version from the Go module proxy (first time only: about 1 min)" \
  "$bin_dir" actionlint "-X github.com/rhysd/actionlint.version=$version" \
  github.com/rhysd/actionlint/cmd/actionlint "github.com/rhysd/actionlint@$version"; then
  echo "$bin_dir"
  exit 0
fi

log "error: actionlint could not be built. Install Go >= 1.24 so that this script can build $version"
log "  from the Go module proxy, or put actionlint $version in $bin_dir."
exit 1
