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
# Every workflow folder of the repository: its own, and those of the examples (an infra repository's).
mapfile -t files < <(find . \( -name node_modules -o -name .git -o -name .pulumi-test \) -prune -o \
  -path '*/.github/workflows/*.yml' -print | sed 's|^\./||' | LC_ALL=C sort)
[ "${#files[@]}" -gt 0 ] || {
  log "error: no workflow file found (.github/workflows/*.yml)"
  exit 1
}

# Without shellcheck actionlint skips the `run:` scripts silently: under CI that is a failure.
shellcheck_flag=()
if command -v shellcheck >/dev/null 2>&1; then
  log "actionlint $("$actionlint" -version | head -n 1), $(shellcheck --version | sed -n 2p)"
elif [ -n "${CI:-}" ] && [ "${CI}" != "false" ] && [ "${CI}" != "0" ]; then
  log "error: shellcheck is not installed, so the run: scripts would not be checked (apt-get install shellcheck)"
  exit 1
else
  log "warning: shellcheck is not installed: the run: scripts are not checked (sudo apt-get install shellcheck)"
  shellcheck_flag=(-shellcheck=)
fi
"$actionlint" -no-color "${shellcheck_flag[@]}" "${files[@]}"
log "${#files[@]} workflow file(s) clean: ${files[*]}"
