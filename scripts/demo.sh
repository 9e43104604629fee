#!/usr/bin/env bash
# `npm run demo [-- --keep]`: deploys examples/quickstart against a local emulator with the real
# Pulumi engine, writes and reads an object with the new credential, then tears everything down.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/toolchain.sh
. "$repo_root/scripts/lib/toolchain.sh"

ensure_toolchain
exec node "$repo_root/scripts/demo.mts" "$@"
