#!/usr/bin/env bash
# `npm run check:sdks`: the checked-in SDKs are exactly what the schema generates today
# (`npm run gen:sdks -- --check`), the Node.js SDK type-checks against the @pulumi/pulumi this
# repository installs, and the Python SDK byte-compiles. The Go SDK is compiled by the Go
# end-to-end program (scripts/build-go-e2e.sh), which imports it. Python programs are not run here:
# no Python package registry is reachable from these machines. Then the schema's doc examples
# compile against these SDKs (scripts/check-examples.sh).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

log() { echo "[check-sdks] $*" >&2; }

bash scripts/gen-sdks.sh --check

log "type-checking sdks/nodejs"
node node_modules/typescript/bin/tsc -p sdks/nodejs --noEmit

command -v python3 >/dev/null 2>&1 || {
  log "error: python3 is needed to byte-compile sdks/python (apt-get install python3)"
  exit 1
}
log "byte-compiling sdks/python with $(python3 --version)"
# The compiled files go to a throw-away folder, not into the checked-in SDK.
pycache="$(mktemp -d)"
trap 'rm -rf "$pycache"' EXIT
PYTHONPYCACHEPREFIX="$pycache" python3 -m compileall -q sdks/python
log "the SDKs are up to date and compile"

bash scripts/check-examples.sh
