#!/usr/bin/env bash
# Benchmark of the Transcript upload path (issue 5): the provider's streaming PUT against
# `curl -T` to the same emulator endpoint, in the same run, alternating, several rounds.
# Reports medians of wall time, throughput and peak RSS, and the provider/curl ratios.
# Usage: npm run bench [-- <size-MiB> <rounds>]   (defaults: 1024 MiB, 5 rounds)
# Only loopback traffic: the emulator listens on 127.0.0.1.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"
size_mib="${1:-1024}"
rounds="${2:-5}"

for tool in curl /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is required (apt-get install curl time)" >&2; exit 1; }
done
export PATH="$(bash scripts/ensure-node.sh):$PATH"
[ -f bin/provider/resources/transcript/upload.js ] && [ -f emulator/dist/cli.js ] || npm run build >/dev/null

work="$(mktemp -d)"
emulator_pid=""
cleanup() {
  [ -n "$emulator_pid" ] && kill "$emulator_pid" 2>/dev/null && wait "$emulator_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

file="$work/audio.bin"
head -c "$((size_mib * 1024 * 1024))" /dev/urandom > "$file"

mkfifo "$work/ready"
node emulator/bin/cloudplatform-emulator.js --port 0 --data-dir "$work/data" > "$work/ready" 2> "$work/emulator.log" &
emulator_pid=$!
read -r ready < "$work/ready"
api_url="$(node -p 'JSON.parse(process.argv[1]).apiUrl' "$ready")"
api_key="$(node -p 'JSON.parse(process.argv[1]).apiKey' "$ready")"
# Keep the FIFO's writer side from blocking the emulator's later stdout writes.
cat "$work/ready" > /dev/null &

new_upload_url() {
  curl -fsS -X POST -H "authorization: $api_key" -H 'content-type: application/json' -d '{}' \
    "$api_url/v1/transcripts/upload" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const b=JSON.parse(s);process.stdout.write(b.uploadUrl??b.upload_url)})'
}

# /usr/bin/time -f: elapsed seconds and peak RSS in KiB.
measure() {
  local label="$1"; shift
  /usr/bin/time -f "$label %e %M" -a -o "$work/times" "$@" > /dev/null
}

for round in $(seq 1 "$rounds"); do
  echo "round $round/$rounds" >&2
  measure provider node bench/upload-provider.js "$(new_upload_url)" "$file"
  measure curl curl -fsS -o /dev/null -T "$file" "$(new_upload_url)"
  # The same Node process without the upload: what the runtime itself costs in memory.
  measure node-idle node -e 'require("./bin/provider/resources/transcript/upload.js")'
done

node - "$work/times" "$size_mib" "$rounds" <<'JS'
const fs = require("node:fs");
const [timesFile, sizeMiB, rounds] = process.argv.slice(2);
const rows = fs.readFileSync(timesFile, "utf8").trim().split("\n").map((l) => l.split(" "));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const stats = {};
for (const who of ["provider", "curl", "node-idle"]) {
  const mine = rows.filter((r) => r[0] === who);
  const secs = median(mine.map((r) => Number(r[1])));
  const rssMiB = median(mine.map((r) => Number(r[2]) / 1024));
  stats[who] = { secs, rssMiB, mibps: Number(sizeMiB) / secs };
}
console.log(`upload of ${sizeMiB} MiB to the emulator, median of ${rounds} alternating rounds\n`);
console.log("| process | wall time (s) | throughput (MiB/s) | peak RSS (MiB) |");
console.log("|---|---|---|---|");
for (const [who, s] of Object.entries(stats)) console.log(`| ${who} | ${s.secs.toFixed(2)} | ${who === "node-idle" ? "—" : s.mibps.toFixed(0)} | ${s.rssMiB.toFixed(0)} |`);
console.log(`\nratios provider/curl: time ${(stats.provider.secs / stats.curl.secs).toFixed(2)}, peak RSS ${(stats.provider.rssMiB / stats.curl.rssMiB).toFixed(1)}`);
console.log(`memory the upload adds over an idle Node process: ${(stats.provider.rssMiB - stats["node-idle"].rssMiB).toFixed(0)} MiB`);
JS
