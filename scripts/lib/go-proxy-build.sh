# Sourced by ensure-pulumi.sh and ensure-pulumi-yaml.sh: builds one Go command from the Go module
# proxy in a throw-away module, and only then moves it into its cache folder, so that an interrupted
# build never leaves a binary behind. The caller defines `log`.
# Usage: go_proxy_build <message> <bin_dir> <binary name> <ldflags> <package> <module@version>...
go_proxy_build() {
  local message="$1" bin_dir="$2" name="$3" ldflags="$4" package="$5"
  shift 5
  command -v go >/dev/null 2>&1 || {
    log "go is not installed"
    return 1
  }
  log "$message"
  local work
  work="$(mktemp -d)"
  (
    set -e
    cd "$work"
    export GOFLAGS=-mod=mod GOTOOLCHAIN=local
    go mod init go-proxy-build >/dev/null 2>&1
    # The upstream clipboard module is not served by the proxy; Pulumi's own fork is.
    go mod edit -replace github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e
    log "downloading modules..."
    go get "$@" >&2
    log "compiling (progress: one dot every 30 s)..."
    (while sleep 30; do printf . >&2; done) &
    ticker=$!
    trap 'kill $ticker 2>/dev/null || true' EXIT
    mkdir -p "$bin_dir.partial"
    go build -ldflags "$ldflags" -o "$bin_dir.partial/$name" "$package"
    echo >&2
  ) || {
    rm -rf "$work" "$bin_dir.partial"
    return 1
  }
  rm -rf "$work"
  rm -rf "$bin_dir" && mkdir -p "$(dirname "$bin_dir")" && mv "$bin_dir.partial" "$bin_dir"
}
