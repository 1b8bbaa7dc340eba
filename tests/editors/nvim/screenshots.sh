#!/usr/bin/env bash
# Screenshots for the docs, from a real run: Neovim 0.11.4 with the plugin,
# in tmux at a fixed size, against the real server; each screen is captured
# as text with colours (tmux capture-pane -e) and rendered to PNG with
# Pillow and DejaVu Sans Mono. Not part of CI.
#
#   docs/images/nvim-lens.png         verdicts as virtual text, statusline
#   docs/images/nvim-hover.png        the counterexample in a hover
#   docs/images/nvim-code-action.png  the code actions on a Visual selection
#
# EQLENS_BIN as in run.sh. Needs tmux and fonts-dejavu-core (apt).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
here="$repo/tests/editors/nvim"
out="$repo/docs/images"
cols=96
rows=28

die() { printf 'screenshots: FAIL: %s\n' "$*" >&2; exit 1; }
bin="${EQLENS_BIN:-$repo/target/release/eqlens}"
[ -x "$bin" ] || die "no eqlens binary at $bin: build it or set EQLENS_BIN"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
command -v tmux >/dev/null || die "tmux is needed (apt-get install tmux)"
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] \
  || die "DejaVu Sans Mono is needed (apt-get install fonts-dejavu-core)"

nvim=$("$here/install-nvim.sh")
python="$(dirname "$nvim")/python3"
[ -x "$python" ] || python=python3
"$python" -c 'import PIL' 2>/dev/null || "$python" -m pip install -q --disable-pip-version-check pillow \
  || die "could not install Pillow"

work=$(mktemp -d "${TMPDIR:-/tmp}/eqlens-nvim-shots.XXXXXX")
socket="eqlens-shots-$$"
cleanup() { tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
"$here/make-fixtures.sh" "$work/root"
# The developer's uncommitted edits: clamp returns 11 past 10 (not
# equivalent); sum adds the other way round (equivalent).
sed -i -e 's/return 10;/return 11;/' -e 's/int s = a + b;/int s = b + a;/' "$work/root/java/A.java"
mkdir -p "$work/xdg"/{config,data,state,cache} "$out"

tmux_() { tmux -L "$socket" "$@"; }
screen() { tmux_ capture-pane -p -t shots; }
# Waits (up to 120 s) until the screen shows every given text.
wait_screen() {
  local deadline=$((SECONDS + 120)) text
  while :; do
    text=$(screen)
    local all=1
    for needle in "$@"; do
      grep -qF -- "$needle" <<<"$text" || all=0
    done
    [ "$all" = 1 ] && return 0
    [ "$SECONDS" -lt "$deadline" ] || { printf '%s\n' "$text"; die "the screen never showed: $*"; }
    sleep 0.2
  done
}
# Captures the screen with colours (-N: trailing cells keep their
# background) and renders it.
shoot() {
  sleep 0.5 # let Neovim finish drawing what it has started
  tmux_ capture-pane -e -N -p -t shots > "$work/$1.ansi"
  "$python" "$here/ansi2png.py" "$work/$1.ansi" "$out/$1.png" "$cols" "$rows"
  echo "wrote docs/images/$1.png"
}

tmux_ -f /dev/null new-session -d -s shots -x "$cols" -y "$rows" \
  "cd '$work/root/java' && env TERM=tmux-256color EQLENS_BIN='$bin' \
     XDG_CONFIG_HOME='$work/xdg/config' XDG_DATA_HOME='$work/xdg/data' \
     XDG_STATE_HOME='$work/xdg/state' XDG_CACHE_HOME='$work/xdg/cache' \
     '$nvim' --clean --cmd 'set runtimepath^=$repo/editors/nvim' -u '$here/shot.lua' A.java"

wait_screen '≢ not equivalent · a = ' '≡ equivalent · ' '≡ 1 ≢ 1 ? 0'
shoot nvim-lens

# Keystrokes as a user types them: to clamp's name (line 7), K for hover.
tmux_ send-keys -t shots '7G^ww' K
wait_screen 'Inputs:' 'returns 11'
shoot nvim-hover

# Close the hover; sum's first statement (line 3) in Visual mode; gra.
tmux_ send-keys -t shots Escape '3G^' V gra
wait_screen 'Abstract this block (line 3)' 'Pin current version as baseline'
shoot nvim-code-action

tmux_ send-keys -t shots Escape
tmux_ send-keys -t shots ':qa!' Enter
