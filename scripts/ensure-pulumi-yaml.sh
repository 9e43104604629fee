#!/usr/bin/env bash
# Makes sure the YAML language host `pulumi-language-yaml` is available, and prints the folder that
# holds it (put it on PATH: the engine looks for language hosts there and beside the `pulumi` binary).
# Order: PATH (the vendor's CLI bundle ships it beside `pulumi`), then a per-version cache, then a
# build from the Go module proxy, then the CLI's own plugin download (only on machines online).
# Usage: export PATH="$(bash scripts/ensure-pulumi-yaml.sh):$PATH"
set -euo pipefail

version="${PULUMI_YAML_VERSION:-v1.19.1}"
cache_root="${CLOUDPLATFORM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-cloudplatform}"
bin_dir="$cache_root/pulumi-yaml/$version/bin"

log() { echo "[ensure-pulumi-yaml] $*" >&2; }
# shellcheck source=lib/go-proxy-build.sh
. "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lib/go-proxy-build.sh"

if [ -z "${CLOUDPLATFORM_PULUMI_NO_PATH:-}" ] && command -v pulumi-language-yaml >/dev/null 2>&1; then
  dirname "$(command -v pulumi-language-yaml)"
  exit 0
fi

if [ -x "$bin_dir/pulumi-language-yaml" ]; then
  echo "$bin_dir"
  exit 0
fi

# pulumi-yaml v1.19.1 is the newest tag the proxy serves. It does not compile against the CLI's
# pkg/v3 v3.259.0, so it is built in a module of its own with the versions its go.mod asks for.
build_from_go_proxy() {
  go_proxy_build \
    "building pulumi-language-yaml $version from the Go module proxy (first time only: about 3 min on 2 cores)" \
    "$bin_dir" pulumi-language-yaml "-X github.com/pulumi/pulumi-yaml/pkg/version.Version=$version" \
    github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml "github.com/pulumi/pulumi-yaml@$version"
}

# Online machines: the CLI downloads the released host from the vendor.
vendor_install() {
  command -v pulumi >/dev/null 2>&1 || return 1
  log "trying \`pulumi plugin install language yaml\` (needs internet)"
  local home="$cache_root/pulumi-yaml/$version/home"
  PULUMI_HOME="$home" pulumi plugin install language yaml "${version#v}" >&2 || return 1
  mkdir -p "$bin_dir" && cp "$home/plugins/language-yaml-$version/pulumi-language-yaml" "$bin_dir/"
}

if build_from_go_proxy || vendor_install; then
  echo "$bin_dir"
  exit 0
fi

log "error: no pulumi-language-yaml could be found or installed."
log "  Install the Pulumi CLI from https://www.pulumi.com/docs/install/ (it ships the YAML host beside"
log "  \`pulumi\`), or install Go >= 1.24 so that this script can build $version from the Go module proxy."
exit 1
