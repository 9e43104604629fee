#!/usr/bin/env bash
# `npm run soak [-- options]`: issue 11's soak (docs/soak.md). Makes sure Node >= 22 and the Pulumi
# CLI are there and the project is built, then runs the harness.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=../../scripts/lib/toolchain.sh
. "$repo_root/scripts/lib/toolchain.sh"

ensure_toolchain
exec node "$repo_root/test/soak/soak.mts" "$@"
