#!/usr/bin/env bash
# `npm run lint:workflows`: lints the GitHub Actions workflow files of this repository (the release)
# and of examples/gitops (an infra repository's pipeline) with actionlint, which checks their syntax,
# expressions, action inputs, job dependencies and, through shellcheck, every `run:` script. They
# cannot run on these machines: this is what checks them here (a phase of .ci/run).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

log() { echo "[lint-workflows] $*" >&2; }

actionlint="$(bash scripts/ensure-actionlint.sh)/actionlint"
# The repository's own workflows, and those of each example that is an infra repository of its own
# (examples/*/.github). actionlint resolves a local action (`uses: ./.github/actions/…`) from the
# root of the Git repository holding the workflow, so an example is linted in a copy of its
# .github folder beside a `.git` marker: its own root, as it will be once copied into its repository.
mapfile -t examples < <(find examples -mindepth 3 -maxdepth 3 -path 'examples/*/.github/workflows' -type d | LC_ALL=C sort)
[ -d .github/workflows ] || {
  log "error: no .github/workflows in $repo_root"
  exit 1
}
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

# Without shellcheck actionlint skips the `run:` scripts silently: under CI that is a failure.
shellcheck_flag=()
if command -v shellcheck >/dev/null 2>&1; then
  log "actionlint $("$actionlint" -version | head -n 1), shellcheck $(shellcheck --version | sed -n "s/^version: //p")"
elif [ -n "${CI:-}" ] && [ "${CI}" != "false" ] && [ "${CI}" != "0" ]; then
  log "error: shellcheck is not installed, so the run: scripts would not be checked (apt-get install shellcheck)"
  exit 1
else
  log "warning: shellcheck is not installed: the run: scripts are not checked (sudo apt-get install shellcheck)"
  shellcheck_flag=(-shellcheck=)
fi
count=0
lint() { # <project root> <label>
  local files
  mapfile -t files < <(cd "$1" && find .github/workflows -name '*.yml' | LC_ALL=C sort)
  (cd "$1" && "$actionlint" -no-color "${shellcheck_flag[@]}" "${files[@]}") || {
    log "error: $2 (above: paths are relative to $2)"
    exit 1
  }
  log "$2: ${files[*]} clean"
  count=$((count + ${#files[@]}))
}
lint . "the repository"
for workflows in "${examples[@]}"; do
  example="${workflows%/.github/workflows}"
  mkdir -p "$stage/$example"
  cp -R "$example/.github" "$stage/$example/"
  touch "$stage/$example/.git"
  lint "$stage/$example" "$example"
done
log "$count workflow file(s) clean"
