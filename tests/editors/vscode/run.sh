#!/usr/bin/env bash
# The VS Code extension's whole check, from the repository root:
#   tests/editors/vscode/run.sh
# installs what is missing (Debian: chromium, ripgrep, libkrb5-dev; npm:
# code-server and playwright-core, pinned, into a cache directory), builds,
# lints and unit-tests editors/vscode, packages the .vsix, and runs the
# end-to-end test in a real VS Code (code-server driven by headless
# Chromium). Any failure exits non-zero with a message; nothing is skipped.
#
# Environment:
#   EQLENS_BIN            the server binary (default: target/release/eqlens)
#   EQLENS_EDITOR_TOOLS   tool cache (default: ~/.cache/eqlens-editor-tools)
#   EQLENS_SCREENSHOTS    where the docs' screenshots go (default: docs/images)
#   EQLENS_KEEP_WORK=1    keep the scratch directory even when all passes
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_CORE_VERSION=1.65.1
# The ripgrep release @vscode/ripgrep 1.15.11 (code-server 4.100.3) downloads.
RIPGREP_CACHE_DIR=vscode-ripgrep-cache-1.15.11
RIPGREP_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
EXTENSION_DIR="$ROOT/editors/vscode"
E2E_DIR="$ROOT/tests/editors/vscode/e2e"
TOOLS="${EQLENS_EDITOR_TOOLS:-$HOME/.cache/eqlens-editor-tools}/vscode"
CODE_SERVER_DIR="$TOOLS/code-server-$CODE_SERVER_VERSION"
CODE_SERVER_BIN="$CODE_SERVER_DIR/node_modules/.bin/code-server"
PLAYWRIGHT_DIR="$TOOLS/playwright-core-$PLAYWRIGHT_CORE_VERSION"
SCREENSHOTS="${EQLENS_SCREENSHOTS:-$ROOT/docs/images}"

CURRENT_STEP=""
TIMINGS=()
WORK="$(mktemp -d "${TMPDIR:-/tmp}/eqlens-vscode-e2e.XXXXXX")"
PIDS="$WORK/process-groups"
: >"$PIDS"
# Stops every process group the e2e test started (code-server with its
# extension host and eqlens serve, Chromium), even if the test was killed;
# keeps the scratch directory (logs, failure screenshots) after a failure.
cleanup() {
  local status=$?
  local pgid
  if [ "$status" -ne 0 ] && [ -n "$CURRENT_STEP" ]; then
    echo "tests/editors/vscode: FAILED in step: $CURRENT_STEP" >&2
  fi
  while read -r pgid; do
    [ -n "$pgid" ] || continue
    kill -TERM -- "-$pgid" 2>/dev/null || true
  done <"$PIDS"
  sleep 0.5
  while read -r pgid; do
    [ -n "$pgid" ] || continue
    kill -KILL -- "-$pgid" 2>/dev/null || true
  done <"$PIDS"
  # Kept when there is something to look at: a failure after the
  # end-to-end test started, or on request.
  if [ "${EQLENS_KEEP_WORK:-0}" = 1 ] || { [ "$status" -ne 0 ] && [ -d "$WORK/e2e" ]; }; then
    echo "tests/editors/vscode: logs and screenshots kept in $WORK" >&2
  else
    rm -rf "$WORK"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# step NAME COMMAND...: runs one step and prints how long it took. The
# command runs plainly (not as an `if` condition, where bash would ignore
# `set -e` inside it); a failure exits through the trap, which names the step.
step() {
  CURRENT_STEP="$1"
  shift
  local start=$SECONDS
  echo "==> $CURRENT_STEP"
  "$@"
  echo "<== $CURRENT_STEP: $((SECONDS - start)) s"
  TIMINGS+=("$(printf '%5d s  %s' "$((SECONDS - start))" "$CURRENT_STEP")")
  CURRENT_STEP=""
}

find_server() {
  EQLENS_BIN="${EQLENS_BIN:-$ROOT/target/release/eqlens}"
  if [ ! -x "$EQLENS_BIN" ]; then
    echo "no server binary at $EQLENS_BIN: run 'cargo build --release' first, or set EQLENS_BIN" >&2
    return 1
  fi
  EQLENS_BIN="$(cd "$(dirname "$EQLENS_BIN")" && pwd)/$(basename "$EQLENS_BIN")"
  echo "server: $EQLENS_BIN"
}

check_node() {
  # code-server 4.100.3 builds its native modules for, and insists on, Node 20.
  local major
  major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" || {
    echo "node is not installed (Node 20 is needed)" >&2
    return 1
  }
  if [ "$major" != 20 ]; then
    echo "Node $major found; code-server $CODE_SERVER_VERSION needs Node 20" >&2
    return 1
  fi
  node --version
}

debian_packages() {
  local missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  command -v rg >/dev/null || missing+=(ripgrep)
  dpkg-query -W -f='${Status}' libkrb5-dev 2>/dev/null | grep -q "install ok installed" || missing+=(libkrb5-dev)
  if [ "${#missing[@]}" -eq 0 ]; then
    echo "already installed: chromium ripgrep libkrb5-dev"
    return 0
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages: ${missing[*]} (run as root, or install them: apt-get install ${missing[*]})" >&2
    return 1
  fi
  echo "installing: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# code-server's own commands write a default config under the user's home;
# every call here points it at scratch directories instead.
code_server_quietly() {
  XDG_CONFIG_HOME="$WORK/xdg-install/config" XDG_DATA_HOME="$WORK/xdg-install/data" \
    XDG_CACHE_HOME="$WORK/xdg-install/cache" "$CODE_SERVER_BIN" --config "$WORK/xdg-install/none.yaml" "$@"
}

install_code_server() {
  mkdir -p "$WORK/xdg-install"
  echo "auth: none" >"$WORK/xdg-install/none.yaml"
  if [ -f "$CODE_SERVER_DIR/.installed" ] && [ -x "$CODE_SERVER_BIN" ]; then
    code_server_quietly --version | head -1
    return 0
  fi
  rm -rf "$CODE_SERVER_DIR"
  mkdir -p "$CODE_SERVER_DIR/tmp/$RIPGREP_CACHE_DIR"
  # @vscode/ripgrep would download rg from the internet: give it Debian's,
  # in the cache directory it looks in first (os.tmpdir(), so TMPDIR).
  tar -czf "$CODE_SERVER_DIR/tmp/$RIPGREP_CACHE_DIR/$RIPGREP_ASSET" -C "$(dirname "$(command -v rg)")" rg
  echo '{"private": true}' >"$CODE_SERVER_DIR/package.json"
  # unsafe_perm: root may run the install scripts; yes: node-pty's `npx
  # node-gyp` must not prompt; dangerously_allow_all_scripts: npm 11 runs
  # no dependency's install script otherwise, and code-server's postinstall
  # installs VS Code's own modules, whose native ones build in scripts.
  (cd "$CODE_SERVER_DIR" &&
    TMPDIR="$CODE_SERVER_DIR/tmp" npm_config_unsafe_perm=true npm_config_yes=true \
      npm_config_dangerously_allow_all_scripts=true \
      npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION") >"$WORK/code-server-install.log" 2>&1 || {
    tail -40 "$WORK/code-server-install.log" >&2
    return 1
  }
  [ -x "$CODE_SERVER_DIR/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ] || {
    echo "code-server installed without ripgrep: its postinstall did not run (see $WORK/code-server-install.log)" >&2
    return 1
  }
  code_server_quietly --version | grep -q "^$CODE_SERVER_VERSION " || {
    echo "code-server --version does not say $CODE_SERVER_VERSION" >&2
    return 1
  }
  touch "$CODE_SERVER_DIR/.installed"
  code_server_quietly --version | head -1
}

install_playwright() {
  if [ -f "$PLAYWRIGHT_DIR/.installed" ]; then
    echo "playwright-core $PLAYWRIGHT_CORE_VERSION (cached)"
    return 0
  fi
  rm -rf "$PLAYWRIGHT_DIR"
  mkdir -p "$PLAYWRIGHT_DIR"
  echo '{"private": true}' >"$PLAYWRIGHT_DIR/package.json"
  # playwright-core alone: no browser download, Debian's chromium is used.
  (cd "$PLAYWRIGHT_DIR" && npm install --no-audit --no-fund --loglevel=error "playwright-core@$PLAYWRIGHT_CORE_VERSION") || return 1
  touch "$PLAYWRIGHT_DIR/.installed"
}

# npm ci wipes node_modules; skip it while the lock file is the one it was run for.
extension_dependencies() {
  local stamp="$EXTENSION_DIR/node_modules/.eqlens-lock-sha256"
  local want
  want="$(sha256sum "$EXTENSION_DIR/package-lock.json" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "node_modules matches package-lock.json"
    return 0
  fi
  (cd "$EXTENSION_DIR" && npm ci --no-audit --no-fund --loglevel=error) || return 1
  echo "$want" >"$stamp"
}

in_extension() {
  (cd "$EXTENSION_DIR" && "$@")
}

package_vsix() {
  local version
  version="$(node -p 'require("./editors/vscode/package.json").version')"
  VSIX="$WORK/eqlens-$version.vsix"
  in_extension npx --no-install vsce package --allow-missing-repository --out "$VSIX" >"$WORK/vsce.log" 2>&1 || {
    cat "$WORK/vsce.log" >&2
    return 1
  }
  grep -E "DONE|WARNING" "$WORK/vsce.log" || true
  local listing
  listing="$(unzip -l "$VSIX")"
  grep -q "extension/out/src/extension.js" <<<"$listing" || {
    echo "the .vsix has no out/src/extension.js" >&2
    return 1
  }
}

run_e2e() {
  mkdir -p "$SCREENSHOTS" "$WORK/e2e"
  EQLENS_BIN="$EQLENS_BIN" EQLENS_VSIX="$VSIX" CODE_SERVER_BIN="$CODE_SERVER_BIN" \
    CHROMIUM_BIN="$(command -v chromium)" PLAYWRIGHT_CORE_DIR="$PLAYWRIGHT_DIR/node_modules/playwright-core" \
    EQLENS_E2E_WORK="$WORK/e2e" EQLENS_E2E_PIDS="$PIDS" EQLENS_SCREENSHOTS="$SCREENSHOTS" \
    node --test --test-reporter=spec "$E2E_DIR/vscode.e2e.test.mjs"
}

TOTAL_START=$SECONDS
step "find the server binary" find_server
step "check Node" check_node
step "Debian packages" debian_packages
step "code-server $CODE_SERVER_VERSION" install_code_server
step "playwright-core $PLAYWRIGHT_CORE_VERSION" install_playwright
step "extension dependencies (npm ci)" extension_dependencies
step "compile (tsc --strict)" in_extension npm run --silent compile
step "lint (eslint)" in_extension npm run --silent lint
step "unit tests" in_extension npm test --silent
step "package the .vsix" package_vsix
step "end-to-end in code-server" run_e2e

echo
echo "tests/editors/vscode: all steps passed in $((SECONDS - TOTAL_START)) s"
printf '%s\n' "${TIMINGS[@]}"
