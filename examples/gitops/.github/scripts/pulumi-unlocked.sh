#!/usr/bin/env bash
# Usage: pulumi-unlocked.sh <output file> pulumi <args…>
# Runs the command with its output (stdout and stderr) in the file and exits with its status; while
# it fails only because someone else holds the stack's lock, waits and runs it again: a merge's `up`
# then waits out a maintainer's `pulumi up` or `pulumi refresh --yes` by hand instead of failing
# (infrastructure.yml's comment on concurrency says what else may run beside it). A run that was
# killed leaves its lock until `pulumi cancel`, which the last message says.
set -uo pipefail
output="$1"
shift
wait_seconds="${PULUMI_LOCK_WAIT_SECONDS:-20}"
attempts="${PULUMI_LOCK_ATTEMPTS:-30}"
for attempt in $(seq "$attempts"); do
  status=0
  "$@" >"$output" 2>&1 || status=$?
  if [ "$status" -eq 0 ] || ! grep -q 'the stack is currently locked' "$output"; then
    exit "$status"
  fi
  echo "The stack is locked by another run (attempt $attempt of $attempts); trying again in $wait_seconds s" >&2
  sleep "$wait_seconds"
done
echo "The stack stayed locked for $((attempts * wait_seconds)) s: if no other run is going, \`pulumi cancel\` removes a lock left behind" >>"$output"
exit "$status"
