#!/usr/bin/env bash
# Makes sure a Pulumi CLI and the dynamic-provider plugin are available, and prints the folder
# that holds both (put it first on PATH, or pass it to the Automation API's PulumiCommand).
# Order: PATH, then a per-version cache, then a build from the Go module proxy, then the
# vendor installer (only reachable on machines that are online).
# Usage: export PATH="$(bash scripts/ensure-pulumi.sh):$PATH"
set -euo pipefail

version="${PULUMI_VERSION:-v3.259.0}"
cache_root="${CLOUDPLATFORM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-cloudplatform}"
bin_dir="$cache_root/pulumi/$version/bin"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

log() { echo "[ensure-pulumi] $*" >&2; }
# shellcheck source=lib/go-proxy-build.sh
. "$repo_root/scripts/lib/go-proxy-build.sh"

# The dynamic-provider plugin is a script inside the @pulumi/pulumi npm package; a CLI built from
# source lacks it, and the engine then fails with "no resource plugin 'pulumi-resource-pulumi-nodejs'".
install_plugin() {
  local dir="$1" plugin
  [ -x "$dir/pulumi-resource-pulumi-nodejs" ] && return 0
  plugin="$repo_root/node_modules/@pulumi/pulumi/pulumi-resource-pulumi-nodejs"
  if [ ! -f "$plugin" ]; then
    log "warning: $plugin not found (run npm install first); dynamic resources need it beside the CLI"
    return 0
  fi
  if [ -w "$dir" ]; then
    cp "$plugin" "$dir/" && chmod +x "$dir/pulumi-resource-pulumi-nodejs"
  else
    log "warning: cannot write $dir; put $(dirname "$plugin") on PATH for the dynamic-provider plugin"
  fi
}

if [ -z "${CLOUDPLATFORM_PULUMI_NO_PATH:-}" ] && command -v pulumi >/dev/null 2>&1; then
  dir="$(dirname "$(command -v pulumi)")"
  install_plugin "$dir"
  echo "$dir"
  exit 0
fi

if [ -x "$bin_dir/pulumi" ]; then
  install_plugin "$bin_dir"
  echo "$bin_dir"
  exit 0
fi

build_from_go_proxy() {
  go_proxy_build \
    "building Pulumi CLI $version from the Go module proxy (first time only: ~1 min download, ~7 min compile on 2 cores)" \
    "$bin_dir" pulumi "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$version" \
    github.com/pulumi/pulumi/pkg/v3/cmd/pulumi \
    "github.com/pulumi/pulumi/pkg/v3@$version" "github.com/pulumi/pulumi/sdk/v3@$version"
}

vendor_install() {
  command -v curl >/dev/null 2>&1 || return 1
  log "trying the vendor installer (needs internet)"
  local home="$cache_root/pulumi/$version/vendor"
  curl -fsSL --max-time 60 https://get.pulumi.com | sh -s -- --version "${version#v}" --install-root "$home" --no-edit-path >&2 || return 1
  mkdir -p "$bin_dir" && cp "$home"/bin/* "$bin_dir/"
}

if build_from_go_proxy || vendor_install; then
  install_plugin "$bin_dir"
  "$bin_dir/pulumi" version >&2
  echo "$bin_dir"
  exit 0
fi

log "error: no Pulumi CLI could be found or installed."
log "  Install it from https://www.pulumi.com/docs/install/ and put it on PATH, or install Go >= 1.24"
log "  so that this script can build $version from the Go module proxy."
exit 1
