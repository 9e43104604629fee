#!/usr/bin/env bash
# `npm test`: the whole suite after making sure the toolchain is there: typecheck and lint, then
# vitest's three projects (unit, emulator with real S3 clients, real-engine e2e). Works on a fresh
# machine after `npm install`. Extra arguments go to vitest and skip typecheck and lint.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/toolchain.sh
. "$repo_root/scripts/lib/toolchain.sh"

start=$SECONDS
ensure_toolchain
cd "$repo_root"
if [ "$#" -eq 0 ]; then
  phase "typecheck and lint"
  npm run --silent typecheck
  npm run --silent lint
fi

phase "vitest (projects: unit, emulator, e2e)"
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
# One plain closing line, the same whatever the reporter prints above it.
node -e '
  const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
' "$report" || echo "vitest wrote no report" >&2
phase "done in $((SECONDS - start)) s (exit $status)"
exit "$status"
