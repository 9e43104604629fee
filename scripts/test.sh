#!/usr/bin/env bash
# `npm test`: the whole suite after making sure the toolchain is there: which Debian tools the tests
# use are missing (skipped tests then, a failure under CI=true), typecheck and lint, the packed
# package's types, then vitest's three projects (unit, emulator with real S3 clients, real-engine
# e2e), closed by one summary line. Works on a fresh machine after `npm install`. Extra arguments
# go to vitest and skip typecheck, lint and the package check.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/toolchain.sh
. "$repo_root/scripts/lib/toolchain.sh"

start=$SECONDS
ensure_toolchain
cd "$repo_root"
phase "Debian tools the tests use"
CLOUDPLATFORM_TEST_TOOLS="$(node scripts/check-tools.mts)"
export CLOUDPLATFORM_TEST_TOOLS
if [ "$#" -eq 0 ]; then
  phase "typecheck and lint, side by side"
  # Each is one process on one core for about 30 s: on two cores they take the time of one. The
  # build first, so that lint never reads a declaration file the typecheck is writing.
  npm run --silent build
  lint_log="$(mktemp)"
  npm run --silent lint >"$lint_log" 2>&1 &
  lint_pid=$!
  typecheck_status=0
  npm run --silent typecheck || typecheck_status=$?
  lint_status=0
  wait "$lint_pid" || lint_status=$?
  cat "$lint_log"
  rm -f "$lint_log"
  if [ "$typecheck_status" -ne 0 ] || [ "$lint_status" -ne 0 ]; then
    echo "typecheck exited $typecheck_status, lint $lint_status" >&2
    exit 1
  fi
  phase "packed package: types for every resolution, publint"
  bash scripts/check-package.sh
  phase "public API report: api/*.api.md against the built declarations"
  npm run --silent api:check
fi

phase "vitest (projects: unit, emulator, e2e)"
report="$(mktemp)"
# Test files share what they pack (the plugin, the npm package, the emulator's) within this run
# (test/e2e/support/pack-once.ts): everything is built once above, so the tarballs are the same.
CLOUDPLATFORM_PACK_CACHE="$(mktemp -d)"
export CLOUDPLATFORM_PACK_CACHE
# The tests record there which blocks of the documentation they run (test/support/doc-blocks.mts).
CLOUDPLATFORM_DOC_COVERAGE="$(mktemp -d)"
export CLOUDPLATFORM_DOC_COVERAGE
# Node's compile cache for every Node process of the run that keeps the variable (npm, npx, tsc,
# the language host, the runner, the plugin): a module compiled once in a folder is not compiled
# again there, about 0.25 s of CPU per load of @pulumi/pulumi. The provider turns the cache on for
# itself anyway (provider/compile-cache.ts). A folder of this run's: the temporary folders of one
# run would only pile up in the next.
NODE_COMPILE_CACHE="$(mktemp -d)"
export NODE_COMPILE_CACHE
# Each file's wall time with its hooks (test/support/timing-reporter.mts), for the closing figures.
CLOUDPLATFORM_TIMINGS="$(mktemp)"
export CLOUDPLATFORM_TIMINGS
# Each file's CPU, its worker's and its children's (test/support/file-cpu.mts): the run is
# CPU-bound, so the files that cost the most CPU are the ones that set its length.
CLOUDPLATFORM_FILE_CPU="$(mktemp)"
export CLOUDPLATFORM_FILE_CPU
trap 'rm -rf "$report" "$CLOUDPLATFORM_PACK_CACHE" "$CLOUDPLATFORM_DOC_COVERAGE" "$NODE_COMPILE_CACHE" "$CLOUDPLATFORM_TIMINGS" "$CLOUDPLATFORM_FILE_CPU"' EXIT
# CPU seconds this shell and the children it waited for have used (/proc: utime, stime, cutime,
# cstime): the suite is CPU-bound when the vitest run's CPU nears twice its wall time on two cores.
# A process that outlives its parent is not counted: a lower bound.
cpu_seconds() { awk -v tick="$(getconf CLK_TCK)" '{ printf "%d", ($14 + $15 + $16 + $17) / tick }' "/proc/$$/stat"; }
vitest_started=$SECONDS
cpu_before="$(cpu_seconds 2>/dev/null || echo 0)"
vitest_status=0
# The whole suite is three projects: the fourth, faults (fault loops and kills), is the soak's
# (vitest.config.mts, test/support/phases.mts). Named files run in whichever project holds them.
projects=()
if [ "$#" -eq 0 ]; then projects=(--project unit --project emulator --project e2e); fi
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" \
  --reporter=./test/support/timing-reporter.mts ${projects[@]+"${projects[@]}"} "$@" || vitest_status=$?
vitest_wall=$((SECONDS - vitest_started))
vitest_cpu=$(($(cpu_seconds 2>/dev/null || echo 0) - cpu_before))
echo "vitest: ${vitest_wall} s wall, ${vitest_cpu} s of CPU on $(nproc 2>/dev/null || echo "?") cores"
# The closing line and the exit status come from one place, so they cannot disagree.
status=0
node scripts/test-summary.mts "$report" "$vitest_status" || status=$?
# vitest's JSON report (each test's duration), kept where asked, to see where a run's time went.
if [ -n "${CLOUDPLATFORM_KEEP_REPORT:-}" ]; then cp "$report" "$CLOUDPLATFORM_KEEP_REPORT"; fi
if [ "$#" -eq 0 ]; then
  # Only the whole suite runs every block it covers; a part of it would report the rest as not run.
  phase "documentation: every command and program run by a test, or marked with why not"
  node scripts/doc-coverage.mts "$CLOUDPLATFORM_DOC_COVERAGE" || status=1
fi
phase "done in $((SECONDS - start)) s (exit $status)"
exit "$status"
