#!/usr/bin/env python3
"""Renders a terminal screen captured with `tmux capture-pane -e -p` to a PNG.

Understands the SGR sequences tmux emits: reset, bold, italic, underline,
reverse, the 8/16 colours, 256 colours and 24-bit colours. Wide characters
take two cells. Usage: ansi2png.py SCREEN.ansi OUT.png COLS ROWS
"""
import re
import sys
import unicodedata

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
FONT_SIZE = 16
# Neovim's default dark colour scheme: what an unpainted cell shows.
DEFAULT_FG = (0xE0, 0xE2, 0xEA)
DEFAULT_BG = (0x14, 0x16, 0x1B)
BASE16 = [
    (0x00, 0x00, 0x00), (0xCD, 0x31, 0x31), (0x0D, 0xBC, 0x79), (0xE5, 0xE5, 0x10),
    (0x24, 0x72, 0xC8), (0xBC, 0x3F, 0xBC), (0x11, 0xA8, 0xCD), (0xE5, 0xE5, 0xE5),
    (0x66, 0x66, 0x66), (0xF1, 0x4C, 0x4C), (0x23, 0xD1, 0x8B), (0xF5, 0xF5, 0x43),
    (0x3B, 0x8E, 0xEA), (0xD6, 0x70, 0xD6), (0x29, 0xB8, 0xDB), (0xFF, 0xFF, 0xFF),
]


def color256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + 10 * (n - 232)
    return (v, v, v)


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = None
        self.bg = None
        self.bold = self.italic = self.underline = self.reverse = False

    def copy(self):
        s = Style()
        s.__dict__.update(self.__dict__)
        return s

    def apply(self, params):
        # Parameters are separated by ';'; a parameter may carry ':'
        # sub-parameters (4:3 undercurl, 38:2::r:g:b, 58:… underline colour).
        tokens = params.split(";") if params else ["0"]
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if ":" in tok:
                sub = [int(p) if p else 0 for p in tok.split(":")]
                if sub[0] == 4:
                    self.underline = sub[1] != 0
                elif sub[0] in (38, 48) and sub[1] == 2:
                    rgb = tuple(sub[-3:])
                    if sub[0] == 38:
                        self.fg = rgb
                    else:
                        self.bg = rgb
                elif sub[0] in (38, 48) and sub[1] == 5:
                    col = color256(sub[2])
                    if sub[0] == 38:
                        self.fg = col
                    else:
                        self.bg = col
                i += 1
                continue
            c = int(tok) if tok else 0
            rest = [int(t) if t and ":" not in t else 0 for t in tokens[i + 1 : i + 5]]
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 3:
                self.italic = True
            elif c == 4:
                self.underline = True
            elif c == 7:
                self.reverse = True
            elif c == 22:
                self.bold = False
            elif c == 23:
                self.italic = False
            elif c == 24:
                self.underline = False
            elif c == 27:
                self.reverse = False
            elif 30 <= c <= 37:
                self.fg = BASE16[c - 30]
            elif 90 <= c <= 97:
                self.fg = BASE16[c - 90 + 8]
            elif 40 <= c <= 47:
                self.bg = BASE16[c - 40]
            elif 100 <= c <= 107:
                self.bg = BASE16[c - 100 + 8]
            elif c == 39:
                self.fg = None
            elif c == 49:
                self.bg = None
            elif c in (38, 48, 58) and rest:
                col = None
                if rest[0] == 5 and len(rest) >= 2:
                    col = color256(rest[1])
                    i += 2
                elif rest[0] == 2 and len(rest) >= 4:
                    col = tuple(rest[1:4])
                    i += 4
                if c == 38:
                    self.fg = col
                elif c == 48:
                    self.bg = col
            i += 1


SGR = re.compile(r"\x1b\[([0-9;:]*)m")
# Anything else that is not text (other CSI sequences, charset switches).
OTHER_ESCAPES = re.compile(r"\x1b(\[[0-9;:?]*[A-Za-ln-z]|\([0-9A-Za-z])")


def parse(text, cols, rows):
    """Grid of (char, style) cells; continuation cells of wide chars are None."""
    grid = [[(" ", Style()) for _ in range(cols)] for _ in range(rows)]
    style = Style()
    for y, line in enumerate(text.split("\n")[:rows]):
        x = 0
        pos = 0
        for m in list(SGR.finditer(line)) + [None]:
            chunk = line[pos : m.start()] if m else line[pos:]
            for ch in chunk:
                if x >= cols:
                    break
                width = 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
                grid[y][x] = (ch, style.copy())
                if width == 2 and x + 1 < cols:
                    grid[y][x + 1] = None
                x += width
            if m:
                style.apply(m.group(1))
                pos = m.end()
    return grid


# Box-drawing characters (window borders) drawn as lines, so that they
# join across cells whatever the font's glyph metrics: the arms each
# character has from the cell's centre (left, right, up, down).
BOX_ARMS = {
    "─": "lr", "│": "ud", "┌": "rd", "┐": "ld", "└": "ru", "┘": "lu",
    "╭": "rd", "╮": "ld", "╰": "ru", "╯": "lu", "├": "rud", "┤": "lud",
    "┬": "lrd", "┴": "lru", "┼": "lrud",
}


def draw_box(draw, char, x0, y0, cw, ch, fg):
    cx, cy = x0 + cw // 2, y0 + ch // 2
    for arm in BOX_ARMS[char]:
        if arm == "l":
            draw.line([x0, cy, cx, cy], fill=fg)
        elif arm == "r":
            draw.line([cx, cy, x0 + cw - 1, cy], fill=fg)
        elif arm == "u":
            draw.line([cx, y0, cx, cy], fill=fg)
        elif arm == "d":
            draw.line([cx, cy, cx, y0 + ch - 1], fill=fg)


def render(grid, out):
    fonts = {
        (False, False): ImageFont.truetype(FONT_DIR + "DejaVuSansMono.ttf", FONT_SIZE),
        (True, False): ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Bold.ttf", FONT_SIZE),
        (False, True): ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Oblique.ttf", FONT_SIZE),
        (True, True): ImageFont.truetype(FONT_DIR + "DejaVuSansMono-BoldOblique.ttf", FONT_SIZE),
    }
    base = fonts[(False, False)]
    cw = round(base.getlength("M"))
    ascent, descent = base.getmetrics()
    ch = ascent + descent + 2
    pad = 8
    rows, cols = len(grid), len(grid[0])
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * ch + 2 * pad), DEFAULT_BG)
    draw = ImageDraw.Draw(img)
    for y, row in enumerate(grid):
        for x, cell in enumerate(row):
            if cell is None:
                continue
            char, st = cell
            fg, bg = st.fg or DEFAULT_FG, st.bg or DEFAULT_BG
            if st.reverse:
                fg, bg = bg, fg
            wide = x + 1 < cols and row[x + 1] is None
            x0, y0 = pad + x * cw, pad + y * ch
            draw.rectangle([x0, y0, x0 + cw * (2 if wide else 1) - 1, y0 + ch - 1], fill=bg)
            if char in BOX_ARMS:
                draw_box(draw, char, x0, y0, cw, ch, fg)
            elif char != " ":
                draw.text((x0, y0 + 1), char, font=fonts[(st.bold, st.italic)], fill=fg)
            if st.underline:
                draw.line([x0, y0 + ch - 2, x0 + cw - 1, y0 + ch - 2], fill=fg)
    img.save(out)


def main():
    src, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    with open(src, encoding="utf-8") as f:
        text = OTHER_ESCAPES.sub("", f.read())
    render(parse(text, cols, rows), out)


if __name__ == "__main__":
    main()
