#!/usr/bin/env bash
# `npm test`: the whole suite (unit, emulator, real-engine e2e), after making sure the toolchain is
# there. Works on a fresh machine after `npm install`. Extra arguments go to vitest.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/toolchain.sh
. "$repo_root/scripts/lib/toolchain.sh"

start=$SECONDS
ensure_toolchain
phase "vitest (projects: unit, emulator, e2e)"
cd "$repo_root"
npx vitest run "$@"
phase "tests passed in $((SECONDS - start)) s"
