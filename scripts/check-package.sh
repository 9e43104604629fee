#!/usr/bin/env bash
# The package as users get it: packs it once (after a build) and checks that its types resolve for
# every entry point under node10, node16 (CJS and ESM importers) and bundler resolution
# (@arethetypeswrong/cli), and that package.json agrees with the packed files (publint); the same
# for the emulator's own package (emulator/). Then every tarball a release ships (those two, the
# generated Node.js SDK and the plugin) must carry the LICENSE and no install-time script
# (scripts/check-tarballs.mts). Run by `npm test`; on its own: `bash scripts/check-package.sh`.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

npm run --silent build
pack_dir="$(mktemp -d)"
trap 'rm -rf "$pack_dir"' EXIT
# The build above is what `prepack` would run again: skip it.
tarball="$pack_dir/$(npm pack --silent --ignore-scripts --pack-destination "$pack_dir" | tail -n 1)"
npx --no-install attw "$tarball" --profile strict --format table-flipped --no-emoji --no-color
npx --no-install publint run "$tarball" --strict

# The emulator, packed as its release does (its prepack builds it again: quick, tsc -b is incremental).
emulator_tarball="$pack_dir/$(cd emulator && npm pack --silent --pack-destination "$pack_dir" | tail -n 1)"
npx --no-install attw "$emulator_tarball" --profile node16 --format table-flipped --no-emoji --no-color
npx --no-install publint run "$emulator_tarball" --strict

sdk_tarball="$(npm run --silent sdk:pack -- --out-dir "$pack_dir")"
plugin_tarball="$(npm run --silent plugin:pack -- --out-dir "$pack_dir")"
node scripts/check-tarballs.mts "$tarball" "$emulator_tarball" "$sdk_tarball" "$plugin_tarball"
