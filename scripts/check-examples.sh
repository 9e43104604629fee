#!/usr/bin/env bash
# The examples of the schema's docs (docs/examples/<name>/, which provider/plugin/schema-docs.ts
# embeds in each resource's and function's description) compile against the SDKs generated here:
# TypeScript type-checked against sdks/nodejs, Go type-checked and vetted against sdks/go, Python
# byte-compiled and its names checked against sdks/python (scripts/check-python-examples.py: no
# Python package registry is reachable here, so the SDK cannot be installed and imported). The YAML
# programs are checked against the schema by the tests (test/support/schema-docs.ts). Run by
# `npm run check:sdks`; on its own: `bash scripts/check-examples.sh`.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

log() { echo "[check-examples] $*" >&2; }

for tool in go python3; do
  command -v "$tool" >/dev/null 2>&1 || {
    log "error: $tool is needed to check the examples; install it and run again"
    exit 1
  }
done
export PATH="$(bash scripts/ensure-node.sh):$PATH"

log "type-checking docs/examples/*/index.ts against sdks/nodejs"
node node_modules/typescript/bin/tsc -p docs/examples

# go vet type-checks every program as the compiler does (unused names included), then vets it;
# linking the programs too (`go build`) took a minute more here and proves nothing about the docs.
log "go vet of docs/examples/*/main.go against sdks/go"
(cd docs/examples && GOTOOLCHAIN=local GOFLAGS=-mod=readonly go vet ./...)

log "byte-compiling docs/examples/*/__main__.py and checking its names against sdks/python"
pycache="$(mktemp -d)"
trap 'rm -rf "$pycache"' EXIT
PYTHONPYCACHEPREFIX="$pycache" python3 -m compileall -q docs/examples
python3 scripts/check-python-examples.py sdks/python/pulumi_cloudplatform docs/examples/*/__main__.py
log "the examples compile against the SDKs"
