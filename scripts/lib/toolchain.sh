# Sourced by test.sh and demo.sh: puts Node >= 22 and the Pulumi CLI on PATH (fetching or building
# what is missing, with progress), then builds the project. Expects repo_root to be set.

# Each phase's line says how long the one before it took, so a slow phase is seen in every run.
phase() {
  if [ -n "${phase_started:-}" ]; then echo "    ($((SECONDS - phase_started)) s)" >&2; fi
  phase_started=$SECONDS
  echo "==> $*" >&2
}

ensure_toolchain() {
  phase "Node.js >= 22"
  local node_bin
  node_bin="$(bash "$repo_root/scripts/ensure-node.sh")"
  export PATH="$node_bin:$PATH"
  echo "    node $(node -v) ($node_bin)" >&2

  if [ ! -d "$repo_root/node_modules/@pulumi/pulumi" ]; then
    echo "error: dependencies are missing: run \`npm install\` in $repo_root first" >&2
    exit 1
  fi

  phase "Pulumi CLI"
  CLOUDPLATFORM_PULUMI_BIN_DIR="$(bash "$repo_root/scripts/ensure-pulumi.sh")"
  export CLOUDPLATFORM_PULUMI_BIN_DIR
  export PATH="$CLOUDPLATFORM_PULUMI_BIN_DIR:$PATH"
  echo "    $("$CLOUDPLATFORM_PULUMI_BIN_DIR/pulumi" version) ($CLOUDPLATFORM_PULUMI_BIN_DIR)" >&2

  phase "build"
  (cd "$repo_root" && npm run --silent build)
}
