"""Other makers' digits: more fonts and reshaped numerals for the renderer's label atlas.

Real D20s of other makers were misread by their numeral shapes (models/reader.md, session 21: a
flagged 1 read 7, a 13 read 12, an 11 read 1): digits the renderer's 20 base fonts never drew.
Renders asked for varied glyphs (`bulk crops --glyphs varied`) draw from these fonts too and bend
the digits as other moulds do; every other render, and every earlier seed, is untouched.

Thin glyphs (`bulk crops --glyphs thin`) draw from light and regular weights alone: every font above is
bold or black, and a real numeral D6 with thin-stroked digits (crops-fickett's translucent blue die, its
plain "6") was read 5 by both looks (models/reader.md, "Session 62").
"""

from __future__ import annotations

import cv2
import numpy as np

# Chosen by eye for what the base fonts lack: footed and flagged 1s, condensed, rounded, mono and
# geometric digits (Debian: fonts-roboto fonts-open-sans fonts-cantarell fonts-comfortaa fonts-lato
# fonts-croscore fonts-crosextra-carlito fonts-cabin fonts-quicksand fonts-league-spartan
# fonts-hack fonts-inter fonts-jura fonts-play fonts-bebas-neue fonts-adf-gillius fonts-firacode
# fonts-yanone-kaffeesatz fonts-fantasque-sans fonts-manrope fonts-sil-andika fonts-noto-core).
MORE_FONT_CANDIDATES = [
    "/usr/share/fonts/opentype/bebas-neue/BebasNeue-Bold.otf",
    "/usr/share/fonts/opentype/cabin/Cabin-Bold.otf",
    "/usr/share/fonts/opentype/cantarell/Cantarell-Bold.otf",
    "/usr/share/fonts/opentype/inter/Inter-Black.otf",
    "/usr/share/fonts/opentype/jura/Jura-Bold.otf",
    "/usr/share/fonts/opentype/league-spartan/LeagueSpartan-Bold.otf",
    "/usr/share/fonts/opentype/play/Play-Bold.otf",
    "/usr/share/fonts/opentype/yanone-kaffeesatz/YanoneKaffeesatz-Bold.otf",
    "/usr/share/fonts/truetype/adf/GilliusADF-Bold.otf",
    "/usr/share/fonts/truetype/adf/GilliusADF-BoldCond.otf",
    "/usr/share/fonts/truetype/andika/Andika-Bold.ttf",
    "/usr/share/fonts/truetype/comfortaa/Comfortaa-Bold.ttf",
    "/usr/share/fonts/truetype/croscore/Cousine-Bold.ttf",
    "/usr/share/fonts/truetype/crosextra/Carlito-Bold.ttf",
    "/usr/share/fonts/truetype/fantasque-sans/Normal/TTF/FantasqueSansMono-Bold.ttf",
    "/usr/share/fonts/truetype/firacode/FiraCode-Bold.ttf",
    "/usr/share/fonts/truetype/hack/Hack-Bold.ttf",
    "/usr/share/fonts/truetype/lato/Lato-Heavy.ttf",
    "/usr/share/fonts/truetype/manrope/Manrope-Bold.ttf",
    "/usr/share/fonts/truetype/noto/NotoSansDisplay-Bold.ttf",
    "/usr/share/fonts/truetype/open-sans/OpenSans-Bold.ttf",
    "/usr/share/fonts/truetype/open-sans/OpenSans-CondBold.ttf",
    "/usr/share/fonts/truetype/quicksand/Quicksand-Bold.ttf",
    "/usr/share/fonts/truetype/roboto/unhinted/RobotoCondensed-Bold.ttf",
    "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Black.ttf",
    "/usr/share/fonts/opentype/urw-base35/NimbusMonoPS-Bold.otf",
]

# Light and regular weights: a plain 5 holds 15 px of ink per digit height (median, of the 256 px
# drawing; 8-23) where the bold fonts' hold 26 (the same Debian packages as above, with fonts-dejavu,
# fonts-liberation, fonts-urw-base35 and fonts-noto-core). The hairline and thinnest cuts are left
# out: cut into plastic and read at 96 px they would not survive.
THIN_FONT_CANDIDATES = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-ExtraLight.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
    "/usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf",
    "/usr/share/fonts/opentype/urw-base35/NimbusMonoPS-Regular.otf",
    "/usr/share/fonts/opentype/urw-base35/URWBookman-Light.otf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSerif-Regular.ttf",
    "/usr/share/fonts/truetype/roboto/unhinted/RobotoTTF/Roboto-Light.ttf",
    "/usr/share/fonts/truetype/roboto/unhinted/RobotoCondensed-Light.ttf",
    "/usr/share/fonts/truetype/lato/Lato-Light.ttf",
    "/usr/share/fonts/truetype/open-sans/OpenSans-Light.ttf",
    "/usr/share/fonts/truetype/open-sans/OpenSans-CondLight.ttf",
    "/usr/share/fonts/opentype/inter/Inter-Light.otf",
    "/usr/share/fonts/opentype/cantarell/Cantarell-Light.otf",
    "/usr/share/fonts/truetype/comfortaa/Comfortaa-Light.ttf",
    "/usr/share/fonts/truetype/quicksand/Quicksand-Light.ttf",
    "/usr/share/fonts/opentype/jura/Jura-Light.otf",
    "/usr/share/fonts/truetype/manrope/Manrope-Light.ttf",
    "/usr/share/fonts/opentype/league-spartan/LeagueSpartan-Light.otf",
    "/usr/share/fonts/opentype/yanone-kaffeesatz/YanoneKaffeesatz-Light.otf",
    "/usr/share/fonts/truetype/firacode/FiraCode-Light.ttf",
    "/usr/share/fonts/truetype/hack/Hack-Regular.ttf",
    "/usr/share/fonts/truetype/fantasque-sans/Normal/TTF/FantasqueSansMono-Regular.ttf",
    "/usr/share/fonts/truetype/croscore/Tinos-Regular.ttf",
    "/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf",
    "/usr/share/fonts/truetype/adf/GilliusADF-Regular.otf",
    "/usr/share/fonts/truetype/andika/Andika-Regular.ttf",
    "/usr/share/fonts/opentype/cabin/Cabin-Regular.otf",
    "/usr/share/fonts/opentype/play/Play-Regular.otf",
]

# the fifth item of a glyphs tuple that draws from THIN_FONT_CANDIDATES (`thin_glyphs`)
THIN = "thin"


def draw_varied(draw, text: str, font, centre, h: float, max_w: float, glyphs: tuple) -> float:
    """Draw `text` (digit height `h`) centred with its digits spaced by glyphs[3] x `h` and strokes
    thickened by glyphs[2] px (of the 256 px drawing); returns the drawn width."""
    _, _, weight, spacing = glyphs[:4]
    gap = spacing * h if len(text) > 1 else 0.0
    boxes = [draw.textbbox((0, 0), ch, font=font) for ch in text]
    widths = [b[2] - b[0] for b in boxes]
    total = sum(widths) + gap * (len(text) - 1)
    if total > max_w:  # spread too wide for the face: close the gap instead
        gap = max(0.0, (max_w - sum(widths)) / max(1, len(text) - 1))
        total = sum(widths) + gap * (len(text) - 1)
    top = min(b[1] for b in boxes)
    x = centre[0] - total / 2
    stroke = max(0, int(round(weight)))
    for ch, b, cw in zip(text, boxes, widths):
        draw.text((x - b[0], centre[1] - h / 2 - top), ch, fill=255, font=font,
                  stroke_width=stroke, stroke_fill=255)
        x += cw + gap
    return total


def reshape(img, centre, w: float, max_w: float, glyphs: tuple):
    """Scale the drawn numeral across (never past the face's width) and lean it, about its
    centre; a negative weight thins the strokes."""
    from PIL import Image

    xscale, shear, weight, _ = glyphs[:4]
    xscale = min(xscale, max_w / max(w, 1.0)) if xscale > 1 else xscale
    cx, cy = centre
    # output (x, y) samples input (a x + b y + c, d x + e y + f)
    a, b = 1.0 / xscale, shear / xscale
    img = img.transform(img.size, Image.AFFINE, (a, b, cx - a * cx - b * cy, 0.0, 1.0, 0.0),
                        resample=Image.BILINEAR)
    if weight < 0:
        k = int(round(-weight)) * 2 + 1
        img = Image.fromarray(cv2.erode(np.asarray(img), np.ones((k, k), np.uint8)))
    return img


def vary_glyphs(scene: dict, rng) -> None:
    """Give every numeral die in `scene` another maker's digits: a font from the larger set and
    its shape varied (x scale 0.75-1.2, shear -0.15-0.15, stroke -1 to +3 px of 256, digit gap
    -0.04-0.18 of the digit height), its numerals 0.8-1.05 as tall. Drawn from its own `rng`
    after the scene is laid out, so the scene is otherwise the one its seed always gave."""
    _vary(scene, rng, heavier=4)


def thin_glyphs(scene: dict, rng) -> None:
    """vary_glyphs, with the font drawn from the light and regular weights (THIN_FONT_CANDIDATES)
    and the strokes 1 px thinner to 1 px heavier (of 256): the thin-stroked digits some makers
    print, which no bold font draws."""
    _vary(scene, rng, heavier=2, fonts=THIN)


def font_set(glyphs: tuple) -> str:
    """Which fonts a numeral's glyphs tuple draws from: "base" (none), "more" or THIN."""
    if not glyphs:
        return "base"
    return THIN if len(glyphs) > 4 and glyphs[4] == THIN else "more"


def _vary(scene: dict, rng, heavier: int, fonts: str | None = None) -> None:
    for d in scene["dice"]:
        atlas = list(d["material"]["atlas"])
        if atlas[1] == "pips" or atlas[0] == "d4":
            continue
        atlas[2] = int(rng.integers(720))
        atlas[3] = round(float(atlas[3]) * float(rng.uniform(0.8, 1.05)) / 0.02) * 0.02
        glyphs = (round(float(rng.uniform(0.75, 1.2)), 2), round(float(rng.uniform(-0.15, 0.15)), 2),
                  int(rng.integers(-1, heavier)), round(float(rng.uniform(-0.04, 0.18)), 2))
        d["material"]["atlas"] = atlas[:8] + [glyphs + ((fonts,) if fonts else ())]
