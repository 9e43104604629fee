#!/usr/bin/env bash
# npm run bench [-- --row <id>] [--short] [--rounds <k>] [--n <a,b,...>]: every row of issue 15's
# table, measured in one run against its baselines (bench/bench.mts; how to read it: bench/README.md).
# Only loopback traffic: the emulator and s3rver listen on 127.0.0.1.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
for tool in curl /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is required (apt-get install curl time)" >&2; exit 1; }
done
export PATH="$(bash scripts/ensure-node.sh):$PATH"
exec node bench/bench.mts "$@"
