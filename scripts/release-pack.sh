#!/usr/bin/env bash
# `npm run release:pack -- <out dir> [<tag>]`: every asset of a release, packed from this checkout
# into <out dir>: the npm package (pulumi-cloudplatform-<v>.tgz), the emulator's package
# (cloudplatform-emulator-<v>.tgz), the generated Node.js SDK (pulumi-cloudplatform-sdk-<v>.tgz),
# the plugin tarballs of the five platforms, and SHA256SUMS. With <tag> (the release workflow
# passes the pushed tag), it first checks that the tag names the version of every package, and
# `--check <tag>` stops after that check. Needs `npm ci` (and a build) done; prints the assets.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

log() { echo "[release-pack] $*" >&2; }

check_only=false
if [ "${1:-}" = "--check" ]; then
  check_only=true
  shift
  set -- "" "${1:-}"
fi
out="${1:-}"
tag="${2:-}"
if [ "$check_only" = false ] && [ -z "$out" ]; then
  echo "usage: npm run release:pack -- <out dir> [<tag>]   |   bash scripts/release-pack.sh --check <tag>" >&2
  exit 2
fi

version="$(node -p 'require("./package.json").version')"
if [ -n "$tag" ]; then
  [ "$tag" = "v$version" ] || {
    log "error: the tag $tag does not name the version of package.json ($version): tag v$version, or set the version first"
    exit 1
  }
fi
# The SDKs ask the engine for the plugin at the schema's version, which is package.json's: a
# package left behind would ask for a plugin the release does not carry.
for manifest in emulator/package.json sdks/nodejs/package.json sdks/python/pulumi_cloudplatform/pulumi-plugin.json; do
  other="$(node -p "require('./$manifest').version")"
  [ "$other" = "$version" ] || {
    log "error: $manifest says version $other, package.json $version: set them equal (npm run gen:sdks for the SDKs)"
    exit 1
  }
done
log "version $version${tag:+ (tag $tag)}"
if [ "$check_only" = true ]; then exit 0; fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -f "$out"/*.tgz "$out"/*.tar.gz "$out/SHA256SUMS"

log "the plugin, for the five platforms"
npm run --silent plugin:pack -- --all --out-dir "$out" >/dev/null
log "the npm package (its prepack builds it)"
npm pack --silent --pack-destination "$out" >/dev/null
log "the emulator's package (its prepack builds it)"
(cd emulator && npm pack --silent --pack-destination "$out" >/dev/null)
log "the generated Node.js SDK"
npm run --silent sdk:pack -- --out-dir "$out" >/dev/null

(cd "$out" && sha256sum -- *.tgz *.tar.gz >SHA256SUMS)
# Exactly the expected assets, so a packer that changes its names cannot slip a release through.
expected="cloudplatform-emulator-$version.tgz
pulumi-cloudplatform-$version.tgz
pulumi-cloudplatform-sdk-$version.tgz
pulumi-resource-cloudplatform-v$version-darwin-amd64.tar.gz
pulumi-resource-cloudplatform-v$version-darwin-arm64.tar.gz
pulumi-resource-cloudplatform-v$version-linux-amd64.tar.gz
pulumi-resource-cloudplatform-v$version-linux-arm64.tar.gz
pulumi-resource-cloudplatform-v$version-windows-amd64.tar.gz
SHA256SUMS"
actual="$(cd "$out" && LC_ALL=C ls -1 | LC_ALL=C sort)"
[ "$actual" = "$(echo "$expected" | LC_ALL=C sort)" ] || {
  log "error: $out holds other files than the release's assets:"
  echo "$actual" >&2
  exit 1
}
(cd "$out" && ls -l)
