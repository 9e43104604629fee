#!/usr/bin/env bash
# `npm run gen:sdks`: regenerates sdks/go, sdks/python and sdks/nodejs from the schema the plugin
# serves. `npm run gen:sdks -- --check` writes nothing and fails on any difference (for CI).
# The schema is read from the plugin itself, started as the engine starts it, through
# `pulumi package get-schema`; the generators are pkg/v3's own (sdkgen/, built with Go).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

check=()
case "${1:-}" in
  "") ;;
  --check) check=(-check) ;;
  *)
    echo "usage: npm run gen:sdks [-- --check]" >&2
    exit 2
    ;;
esac

log() { echo "[gen-sdks] $*" >&2; }

command -v go >/dev/null 2>&1 || {
  log "error: Go is needed to build sdkgen/ (the version its go.mod names, or newer); install it and run again"
  exit 1
}
export PATH="$(bash scripts/ensure-node.sh):$PATH"
pulumi_bin="$(bash scripts/ensure-pulumi.sh)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Same module versions as the CLI build, so the module and build caches it left make this quick.
log "building sdkgen"
(cd sdkgen && GOTOOLCHAIN=local GOFLAGS=-mod=readonly go build -o "$work/sdkgen" .)

log "compiling the provider"
node node_modules/typescript/bin/tsc -b tsconfig.json

# The plugin as the engine runs it: an executable named pulumi-resource-cloudplatform.
plugin="$work/pulumi-resource-cloudplatform"
printf '#!/bin/sh\nexec node "%s" "$@"\n' "$repo_root/bin/provider/plugin/launcher.js" >"$plugin"
chmod +x "$plugin"
log "reading the schema from the plugin"
PULUMI_HOME="$work/home" PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
  PULUMI_DISABLE_REGISTRY_RESOLVE=true "$pulumi_bin/pulumi" package get-schema "$plugin" >"$work/schema.json"

"$work/sdkgen" -schema "$work/schema.json" -out sdks "${check[@]}"
if [ "${#check[@]}" -gt 0 ]; then log "sdks/ is up to date"; fi
