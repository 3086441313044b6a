"""Procedural textures: the ink of each die's faces (numerals, pips) and the tray surfaces.

The label atlas is a mask, not a colour: channel 0 is ink, channel 1 the dark rim of an
engraved or drilled mark. The shader colours both, so one mask serves every ink colour.
Tray surfaces (felt, neoprene, wood, patterned cloth, cardboard, paper) are made with numpy from
a texture id, so a bulk image is reproducible from its seed without any image files.
"""

from __future__ import annotations

import os
from functools import lru_cache

import cv2
import numpy as np

from reader.synth.digit_forms import FORMS, compose
from reader.synth.geometry import needs_mark, numbered
from reader.synth.logos import emblem
from reader.synth.glyphs import MORE_FONT_CANDIDATES, THIN, THIN_FONT_CANDIDATES, draw_varied, font_set, reshape
from reader.synth.mesh import atlas_grid

TILE = 128

_FONT_CANDIDATES = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Bold.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSerifBold.ttf",
    "/usr/share/fonts/truetype/freefont/FreeSerif.ttf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSans-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/NimbusRoman-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/URWBookman-Demi.otf",
    "/usr/share/fonts/opentype/urw-base35/C059-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/P052-Bold.otf",
    "/usr/share/fonts/opentype/urw-base35/URWGothic-Demi.otf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Bold.otf",
    "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf",
    "/usr/share/fonts/truetype/noto/NotoSerif-Bold.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Black.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansMono-Bold.ttf",
]


# the Debian packages that hold _FONT_CANDIDATES (models/README.md installs them before renders travel)
FONT_PACKAGES = "apt-get install fonts-dejavu fonts-liberation fonts-freefont-ttf fonts-urw-base35 fonts-noto-core"


# every seed rendered so far found this many of _FONT_CANDIDATES (all but NotoSans-Black and
# NotoSansMono-Bold, which FONT_PACKAGES do not hold). A seed draws its font modulo the fonts found, so on
# a machine with fewer every die is drawn in fewer fonts, and in others than the same seed was before
# (session 56 rendered 20,000 D20 in 4 fonts before it saw this). bulk warns below it; gpu.sh's
# fonts_check stops below it (unless FONTS_MIN says another number).
FONTS_RENDERED = 20


@lru_cache(maxsize=3)
def fonts(more: bool = False, thin: bool = False) -> tuple[str, ...]:
    """The numeral fonts found on this machine (Debian font packages); `more`: with the fonts
    only varied-glyph renders draw from; `thin`: the light and regular weights alone, the fonts
    thin-glyph renders draw from."""
    candidates = THIN_FONT_CANDIDATES if thin else _FONT_CANDIDATES + (MORE_FONT_CANDIDATES if more else [])
    found = tuple(p for p in candidates if os.path.exists(p))
    if not found:
        raise RuntimeError("no numeral fonts found; apt-get install fonts-dejavu fonts-liberation")
    return found


PIP_LAYOUT = {
    1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)],
}


def _font(path: str, px: int):
    from PIL import ImageFont

    return _font_cached(path, px)


@lru_cache(maxsize=512)
def _font_cached(path: str, px: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, px)


@lru_cache(maxsize=6000)
def _draw_text_tile(text: str, font_path: str, height_frac: float, mark: str,
                    angle: float = 0.0, offset=(0.0, 0.0), size: int = TILE,
                    glyphs: tuple = (), forms: tuple = ()) -> np.ndarray:
    """Mask (size x size) with `text` centred, its top toward the tile top, rotated by angle deg.
    `glyphs` (x scale, shear, stroke weight, digit spacing; see `vary_glyphs`) reshapes a font's
    digits the way other makers' moulds do: narrower or wider, leaning, heavier or lighter, the two
    digits of a number closer or further apart. `forms` (see `digit_forms.vary_forms`) draws some
    digits of the base font in a maker's form: a footed 1, a flat-topped 3, a crossed 7."""
    from PIL import Image, ImageDraw

    big = size * 2
    img = Image.new("L", (big, big), 0)
    draw = ImageDraw.Draw(img)
    target_h = height_frac * big
    px = max(8, int(target_h * 1.35))
    font = _font(font_path, px)
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
    # scale to the target height (digit height, no descender)
    s = target_h / max(1, (y1 - y0))
    px = max(8, int(px * s))
    font = _font(font_path, px)
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
    w, h = x1 - x0, y1 - y0
    max_w = 0.8 * big
    if w > max_w:  # two-digit numerals: narrow the font rather than overflow the face
        px = max(8, int(px * max_w / w))
        font = _font(font_path, px)
        x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font)
        w, h = x1 - x0, y1 - y0
    cx = big / 2 + offset[0] * big
    cy = big / 2 + offset[1] * big
    if glyphs:
        w = draw_varied(draw, text, font, (cx, cy), h, max_w, glyphs)
        img = reshape(img, (cx, cy), w, max_w, glyphs)
        draw = ImageDraw.Draw(img)
    elif forms and any(FORMS[f][0] in text for f in forms):  # the base font, digit by digit
        strip = compose(text, font, max_w, forms)
        sh, w = strip.shape
        x, y = int(round(cx - w / 2)), int(round(cy - h / 2 + (h - sh)))
        ink = np.zeros((big, big), np.uint8)
        ink[y: y + sh, x: x + w] = strip
        img = Image.fromarray(ink)
        draw = ImageDraw.Draw(img)
    else:
        draw.text((cx - w / 2 - x0, cy - h / 2 - y0), text, fill=255, font=font)
    if mark == "underline":
        t = max(2, int(h * 0.09))
        yy = cy + h / 2 + t * 1.6
        draw.rectangle([cx - w * 0.45, yy, cx + w * 0.45, yy + t], fill=255)
    elif mark == "dot":
        r = max(2, int(h * 0.08))
        xx, yy = cx + w / 2 + r * 1.8, cy + h / 2 - r
        draw.ellipse([xx - r, yy - r, xx + r, yy + r], fill=255)
    if angle:
        img = img.rotate(angle, resample=Image.BILINEAR)
    arr = np.asarray(img, dtype=np.uint8)
    out = cv2.resize(arr, (size, size), interpolation=cv2.INTER_AREA)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=2000)
def _pip_tile(value: int, spread: float, radius: float, size: int = TILE) -> np.ndarray:
    big = size * 4
    img = np.zeros((big, big), np.uint8)
    for px, py in PIP_LAYOUT[value]:
        cx = big / 2 + px * spread * big / 2
        cy = big / 2 + py * spread * big / 2
        r = radius * big / 2 * (1.25 if value == 1 and radius < 0.2 else 1.0)
        cv2.circle(img, (int(cx), int(cy)), int(r), 255, -1, lineType=cv2.LINE_AA)
    out = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=200)
def _d4_tile(values: tuple[int, ...], font_path: str, height_frac: float) -> np.ndarray:
    """Three small numerals near a D4 face's corners, each pointing at its corner."""
    tile = np.zeros((TILE, TILE), np.uint8)
    # corners of the face in tile coords (y up): (0, 1), (-0.866, -0.5), (0.866, -0.5)
    for k, v in enumerate(values):
        ang = 120.0 * k
        t = _draw_text_tile(str(v), font_path, height_frac, "none", angle=ang,
                            offset=(-0.5 * np.sin(np.radians(ang)) * 0.55 * 0 + 0, 0.0))
        # shift toward the corner: numeral centred at 55% of the way to the corner
        dx = -np.sin(np.radians(ang)) * 0.5 * 0.55 * TILE
        dy = -np.cos(np.radians(ang)) * 0.5 * 0.55 * TILE
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        tile = np.maximum(tile, cv2.warpAffine(t, m, (TILE, TILE)))
    return tile


@lru_cache(maxsize=192)
def label_atlas(die: str, style: str, font_idx: int, height_frac: float, mark69: str,
                pip_spread: float = 0.5, pip_radius: float = 0.16, engrave: float = 0.0,
                glyphs: tuple = (), forms: tuple = (), numbers: tuple = (), logo: tuple = (),
                tens: bool = False) -> np.ndarray:
    """(H, W, 2) uint8 atlas: ink mask and engraved-rim mask for every face of `die`; `glyphs`
    (from `vary_glyphs`) draws from the larger font set, or (from `thin_glyphs`) from the light
    fonts, and reshapes the digits; `forms` (from `digit_forms.vary_forms`) draws some digits in a
    maker's form; `numbers` (from `numbering.vary_numbers`) puts numbers[i] on face i instead of
    the solid's own; `logo` (value, kind), from `logos.put_logos`, draws emblem `kind` on the face
    showing `value` in place of its number or pips; `tens` (from `percentile.put_tens`) writes a D10's
    faces as a percentile die's tens, "00" to "90" (value 10 shows "00", 3 shows "30")."""
    s = numbered(die, tuple(numbers))
    cols, rows = atlas_grid(len(s.faces))
    atlas = np.zeros((rows * TILE, cols * TILE), np.uint8)
    kind = font_set(glyphs)
    found = fonts(more=kind == "more", thin=kind == THIN)
    fpath = found[font_idx % len(found)]
    for i in range(len(s.faces)):
        col, row = i % cols, i // cols
        if logo and die != "d4" and s.values[i] == logo[0]:
            tile = emblem(logo[1], TILE)
        elif die == "d4":
            # the numbers at a face's corners name the vertex that is up when that corner is up
            tile = _d4_tile(tuple((i + k) % 4 + 1 for k in range(3)), fpath, height_frac)
        elif die == "d6" and style == "pips":
            tile = _pip_tile(s.values[i], pip_spread, pip_radius)
        else:
            text = s.label(i) + ("0" if tens and die == "d10" else "")
            mark = mark69 if needs_mark(text) else "none"
            tile = _draw_text_tile(text, fpath, height_frac, mark, glyphs=glyphs, forms=forms)
        atlas[row * TILE:(row + 1) * TILE, col * TILE:(col + 1) * TILE] = tile
    rim = atlas
    if engrave > 0:
        k = max(3, int(TILE * 0.04) | 1)
        rim = cv2.GaussianBlur(cv2.dilate(atlas, np.ones((k, k), np.uint8)), (k, k), 0)
        rim = (rim.astype(np.float32) * engrave).astype(np.uint8)
    else:
        rim = np.zeros_like(atlas)
    out = np.dstack([atlas, rim])
    out.setflags(write=False)
    return out


# ---- tray surfaces ---------------------------------------------------------------------------

SURFACES = ("felt", "neoprene", "wood", "cloth", "cardboard", "paper")
TEX = 512


def _wrap_blur(img: np.ndarray, sx: float, sy: float | None = None) -> np.ndarray:
    """Gaussian blur that wraps around the edges, so the texture tiles without seams."""
    sy = sx if sy is None else sy
    pad = int(3 * max(sx, sy)) + 1
    pad = min(pad, img.shape[0])
    big = np.pad(img, ((pad, pad), (pad, pad)), mode="wrap")
    big = cv2.GaussianBlur(big, (0, 0), sigmaX=sx, sigmaY=sy)
    return big[pad:-pad, pad:-pad]


def _noise(rng: np.random.Generator, size: int, scale: float) -> np.ndarray:
    """Smooth value noise in [0,1], tileable by wrap-around blurring."""
    n = rng.random((size, size)).astype(np.float32)
    k = max(1, int(scale))
    n = _wrap_blur(n, k)
    n -= n.min()
    return n / max(1e-6, n.max())


def _fbm(rng, size, scales=(2, 6, 20, 60), weights=(0.15, 0.25, 0.3, 0.3)) -> np.ndarray:
    out = sum(w * _noise(rng, size, s) for s, w in zip(scales, weights))
    out -= out.min()
    return out / max(1e-6, out.max())


def _hsv_color(rng, h, s, v) -> np.ndarray:
    hsv = np.uint8([[[int(h) % 180, int(np.clip(s, 0, 255)), int(np.clip(v, 0, 255))]]])
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0].astype(np.float32) / 255.0


# The printed chessboard (reader.synth.chessboard): 8 x 6 squares of 20 mm on white paper, drawn
# CHESS_SQUARE_PX to a square in the TEX texture, centred on the texture's corner, so that a sheet
# laid about the world's origin (texture coordinates -0.5 to 0.5, wrapping) shows it whole.
CHESS_SQUARE_PX = 48
CHESS_SQUARE_MM = 20.0


def chessboard_texture() -> np.ndarray:
    """The board `dice-reader camera` looks for (reader.vision.camera_setup.Board, as printed) as an
    RGB TEX x TEX texture (see above): printed ink and paper, not pure black and white."""
    from reader.vision.camera_setup import Board

    board = Board().image(CHESS_SQUARE_PX, margin_px=0)
    h, w = board.shape
    img = np.full((TEX, TEX), 235, np.uint8)
    y0, x0 = (TEX - h) // 2, (TEX - w) // 2
    img[y0:y0 + h, x0:x0 + w] = np.where(board == 0, 25, 235)
    img = np.ascontiguousarray(np.repeat(np.roll(img, (TEX // 2, TEX // 2), axis=(0, 1))[..., None], 3, axis=2))
    img.setflags(write=False)
    return img


@lru_cache(maxsize=100)
def surface_texture(tex_id: int, kind: str | None = None) -> tuple[np.ndarray, str, float]:
    """(RGB uint8 TEXxTEX tileable texture, kind, millimetres the texture spans) for tex_id."""
    if kind == "chessboard":
        return chessboard_texture(), kind, TEX / CHESS_SQUARE_PX * CHESS_SQUARE_MM
    rng = np.random.default_rng(1000 + tex_id)
    kind = kind or SURFACES[tex_id % len(SURFACES)]
    size = TEX
    if kind == "felt":
        base = _hsv_color(rng, rng.choice([60, 65, 110, 0, 120, 15, 100]) + rng.normal(0, 4),
                          rng.uniform(50, 170), rng.uniform(40, 150))
        n = 0.6 * _fbm(rng, size, (1, 3, 12, 40), (0.4, 0.3, 0.2, 0.1)) + 0.4 * rng.random((size, size))
        img = base[None, None, :] * (0.75 + 0.45 * n[..., None])
    elif kind == "neoprene":
        base = _hsv_color(rng, rng.uniform(0, 180), rng.uniform(0, 120), rng.uniform(20, 80))
        n = _fbm(rng, size, (1, 2, 8), (0.5, 0.3, 0.2))
        img = base[None, None, :] * (0.85 + 0.3 * n[..., None])
        # neoprene mats are often printed: a faint large pattern
        if rng.random() < 0.5:
            pat = _noise(rng, size, 40)
            tint = _hsv_color(rng, rng.uniform(0, 180), 150, 120)
            img = img * (1 - 0.25 * pat[..., None]) + tint * 0.25 * pat[..., None]
    elif kind == "wood":
        base = _hsv_color(rng, rng.uniform(8, 22), rng.uniform(70, 170), rng.uniform(100, 210))
        dark = base * rng.uniform(0.55, 0.75)
        y, x = np.mgrid[0:size, 0:size].astype(np.float32)
        warp = _fbm(rng, size, (30, 90, 160), (0.3, 0.4, 0.3)) * rng.uniform(30, 90)
        freq = rng.uniform(10, 40) * 2 * np.pi / size
        rings = 0.5 + 0.5 * np.sin((y + warp) * freq)
        rings = rings ** rng.uniform(3, 8)  # thin dark late-wood lines, not a sine wave
        fine = _noise(rng, size, 1)
        fine = _wrap_blur(fine, 10, 0.5)
        fine = (fine - fine.min()) / max(1e-6, np.ptp(fine))
        blotch = _noise(rng, size, 50)
        t = np.clip(rings * rng.uniform(0.3, 0.6) + 0.35 * fine + 0.25 * blotch, 0, 1)
        img = base[None, None, :] * (1 - t[..., None]) + dark[None, None, :] * t[..., None]
        if rng.random() < 0.6:  # planks
            pw = size // int(rng.choice([2, 4]))
            seam = (np.abs(((y + rng.integers(size)) % pw) - pw / 2) > pw / 2 - 1.5)
            img[seam] *= 0.6
            img = np.rot90(img, int(rng.integers(2)))
    elif kind == "cloth":
        c1 = _hsv_color(rng, rng.uniform(0, 180), rng.uniform(20, 150), rng.uniform(60, 220))
        c2 = _hsv_color(rng, rng.uniform(0, 180), rng.uniform(0, 120), rng.uniform(60, 240))
        y, x = np.mgrid[0:size, 0:size].astype(np.float32)
        p = int(rng.choice([8, 16, 24, 32, 64]))  # checks of a few mm to a few cm
        style = rng.integers(4)
        if style == 0:
            m = (((x // p) + (y // p)) % 2).astype(np.float32)
        elif style == 1:
            m = ((y // p) % 2).astype(np.float32)
        elif style == 2:  # plaid
            m = 0.5 * ((x // p) % 2) + 0.5 * ((y // p) % 2)
        else:  # dots
            m = (((x % p) - p / 2) ** 2 + ((y % p) - p / 2) ** 2 < (p / 4) ** 2).astype(np.float32)
        m = cv2.GaussianBlur(m.astype(np.float32), (0, 0), 1.0)
        weave = 0.5 + 0.5 * np.sin(x * np.pi / 2) * np.sin(y * np.pi / 2)
        img = c1 * (1 - m[..., None]) + c2 * m[..., None]
        img = img * (0.85 + 0.15 * weave[..., None]) * (0.9 + 0.2 * _noise(rng, size, 30)[..., None])
    elif kind == "cardboard":
        base = _hsv_color(rng, rng.uniform(10, 25), rng.uniform(0, 110), rng.uniform(150, 215))
        speck = (rng.random((size, size)) < 0.02).astype(np.float32)
        speck = cv2.GaussianBlur(speck, (0, 0), 0.7)
        n = _fbm(rng, size, (1, 4, 30), (0.3, 0.3, 0.4))
        img = base[None, None, :] * (0.9 + 0.15 * n[..., None] - 0.6 * speck[..., None])
    else:  # paper / plain table
        base = _hsv_color(rng, rng.uniform(0, 180), rng.uniform(0, 60) * rng.random(), rng.uniform(110, 240))
        n = _fbm(rng, size, (2, 10, 50), (0.3, 0.3, 0.4))
        img = base[None, None, :] * (0.93 + 0.1 * n[..., None])
    img = np.clip(img * 255, 0, 255).astype(np.uint8)
    img.setflags(write=False)
    return img, kind, surface_span(tex_id, kind)


_SPANS = {"felt": (60, 140), "neoprene": (100, 250), "wood": (150, 400), "cloth": (100, 300),
          "cardboard": (80, 200), "paper": (100, 300)}


def surface_span(tex_id: int, kind: str) -> float:
    """Millimetres of table one copy of the texture covers (cheap: no texture is made)."""
    lo, hi = _SPANS[kind]
    return float(np.random.default_rng(3000 + tex_id).uniform(lo, hi))
