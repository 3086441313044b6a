"""Dice whose maker put a logo on one face: an emblem where a number or pips would be.

Why: branded dice are common at a card-game table (a maker's, a store's, a game's emblem on the
D20's 20, a D6's 1 or 6), and the reader never saw one: asked what such a face shows, it reads the
emblem as a number. Rendered with an emblem on the face up, 52 of 900 dice were given a value other
than the one makers put the logo on, 29 of them D6, where the same dice numbered read 7 of 900 wrong
(benchmarks/logo_faces.py; models/reader.md, "Session 75"). A logo face has no number the reader can
read, so its right answer is "roll again" (or, by luck, the maker's number); these renders measure
how often it is, and are the no-face crops a look can be taught to refuse (models/train/
train_top_face.py --unsure).

Which face bears it follows makers: the highest face of a numbered die (the D20's 20, the D10's "0",
the D6's 6), the 1 of a pip D6 (the face with the most room). `put_logos` marks dice of a rendered
scene in place: the emblem is drawn into the die's label atlas (textures.label_atlas's `logo`), and
a label row whose die shows an emblem up says so ("logo": true). Its value stays the number the die's
numbering has on that face: with `up`, the emblem goes on whatever face is up, so on a real die it
would stand for logo_value instead (benchmarks/logo_faces.py scores it so). Drawn after the scene is
laid out and numbered, from an rng of its own, so the dice lie as the seed put them.

The emblems come in families (FAMILIES): six drawn here, which bulk draws by default; six more that
bulk never draws, to judge a look on shapes it was not taught; and "procedural", a shape of its own
for each die from reader.synth.emblem_shapes, so that a look taught them learns logos, not six.
"""

from __future__ import annotations

import cv2
import numpy as np

from reader.synth.emblem_shapes import shape, unit_points

# the emblems (kind -> how it is drawn in `emblem`): a star, a ring round a triangle, a drop, a shield
# with a bar, a crown, a monogram-like pair of strokes; each drawn at the tile's middle, 55-75% of it
KINDS = 6
# of the dice of a scene put_logos marks with share unset ("some"): a share of dice drawn with a logo
SOME_SHARE = 0.3
# A second family no look is taught (kinds HELD_OUT..HELD_OUT+5): a heart, a spiral, a sword, the letters
# "GA", a leaf, a skull. Why: the D6 look taught the six emblems above as no face refused those six and
# read these nearly as often wrong as the release (session 75): a look that learnt logos, not six of them,
# is judged on emblems it never saw (benchmarks/logo_faces.py --emblems held-out).
HELD_OUT = 100
# A family without end (kinds DRAWN_FROM..): each kind a shape emblem_shapes.shape draws from that number,
# none of them a digit or a pip, for a look to learn that a logo is no face rather than six logos
# (bulk crops --emblems procedural; session 76).
DRAWN_FROM = 1000
FAMILIES = {"drawn": tuple(range(KINDS)), "held-out": tuple(range(HELD_OUT, HELD_OUT + 6)),
            "procedural": range(DRAWN_FROM, DRAWN_FROM + 100_000)}
# the families a look may be taught (bulk); the held-out family only judges one
TAUGHT = ("drawn", "procedural")


def logo_value(die: str, style: str | None) -> int | None:
    """The value whose face a maker puts the logo on: a pip D6's 1, else the die's highest; None for a
    D4 (its numbers stand at the corners: no face is the die's own)."""
    if die == "d4":
        return None
    if die == "d6":
        return 1 if style == "pips" else 6
    return int(die[1:])


def emblem(kind: int, size: int) -> np.ndarray:
    """The ink mask (size x size, uint8) of emblem `kind` (a kind of FAMILIES: 0..KINDS-1 drawn by
    bulk, HELD_OUT.. the held-out family, DRAWN_FROM.. drawn by emblem_shapes), drawn at 4x and shrunk."""
    if kind >= DRAWN_FROM:
        return shape(kind, size)
    big = size * 4
    img = np.zeros((big, big), np.uint8)
    c, r = big / 2, big * 0.34
    line = max(2, int(big * 0.05))

    def poly(points, fill=True):
        pts = unit_points(c, r, points)
        if fill:
            cv2.fillPoly(img, pts, 255, lineType=cv2.LINE_AA)
        else:
            cv2.polylines(img, pts, True, 255, line, lineType=cv2.LINE_AA)

    k = int(kind) % KINDS
    if kind >= HELD_OUT:
        _held_out(img, int(kind) - HELD_OUT, int(c), int(r), line)
    elif k == 0:  # a five-pointed star
        poly([((1.0 if i % 2 == 0 else 0.42) * np.sin(np.pi * i / 5),
               -(1.0 if i % 2 == 0 else 0.42) * np.cos(np.pi * i / 5)) for i in range(10)])
    elif k == 1:  # a ring round a triangle
        cv2.circle(img, (int(c), int(c)), int(r), 255, line, lineType=cv2.LINE_AA)
        poly([(0.0, -0.6), (0.55, 0.4), (-0.55, 0.4)])
    elif k == 2:  # a drop
        cv2.circle(img, (int(c), int(c + r * 0.25)), int(r * 0.6), 255, -1, lineType=cv2.LINE_AA)
        poly([(0.0, -1.0), (0.52, 0.05), (-0.52, 0.05)])
    elif k == 3:  # a shield with a bar
        poly([(-0.7, -0.8), (0.7, -0.8), (0.7, 0.0), (0.0, 1.0), (-0.7, 0.0)], fill=False)
        poly([(-0.35, -0.15), (0.35, -0.15), (0.35, 0.05), (-0.35, 0.05)])
    elif k == 4:  # a crown
        poly([(-0.8, 0.5), (-0.8, -0.5), (-0.4, 0.0), (0.0, -0.7), (0.4, 0.0), (0.8, -0.5), (0.8, 0.5)])
    else:  # two crossed strokes in a ring, a monogram's look
        cv2.circle(img, (int(c), int(c)), int(r), 255, line, lineType=cv2.LINE_AA)
        poly([(-0.5, 0.55), (-0.3, 0.55), (0.5, -0.55), (0.3, -0.55)])
        poly([(-0.5, -0.55), (-0.3, -0.55), (0.15, 0.05), (0.0, 0.2)])
    out = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
    out.setflags(write=False)
    return out


def _held_out(img: np.ndarray, k: int, c: int, r: int, line: int) -> None:
    """emblem's second family (HELD_OUT): emblem k of it drawn into `img` (centre c, radius r, strokes
    `line` wide)."""
    if k == 0:  # a heart
        cv2.circle(img, (c - r // 2, c - r // 4), r // 2, 255, -1, lineType=cv2.LINE_AA)
        cv2.circle(img, (c + r // 2, c - r // 4), r // 2, 255, -1, lineType=cv2.LINE_AA)
        cv2.fillPoly(img, [np.int32([(c - r, c - r // 6), (c + r, c - r // 6), (c, c + r)])], 255, lineType=cv2.LINE_AA)
    elif k == 1:  # a spiral
        t = np.linspace(0, 5 * np.pi, 200)
        pts = np.int32([(c + r * a / (5 * np.pi) * np.cos(a), c + r * a / (5 * np.pi) * np.sin(a)) for a in t])
        cv2.polylines(img, [pts], False, 255, line, lineType=cv2.LINE_AA)
    elif k == 2:  # a sword
        cv2.rectangle(img, (c - line // 2, c - r), (c + line // 2, c + r // 2), 255, -1)
        cv2.rectangle(img, (c - r // 2, c + r // 3), (c + r // 2, c + r // 3 + line), 255, -1)
        cv2.circle(img, (c, c + r * 3 // 4), line, 255, -1, lineType=cv2.LINE_AA)
    elif k == 3:  # letters
        cv2.putText(img, "GA", (c - r, c + int(r * 0.4)), cv2.FONT_HERSHEY_TRIPLEX, r / 30, 255, line, cv2.LINE_AA)
    elif k == 4:  # a leaf
        cv2.ellipse(img, (c, c), (r // 2, r), 30, 0, 360, 255, -1, lineType=cv2.LINE_AA)
        cv2.line(img, (c - r // 2, c + r), (c + r // 3, c - r // 2), 0, max(1, line // 2), lineType=cv2.LINE_AA)
    else:  # a skull: a disc with two eyes
        cv2.circle(img, (c, c - r // 6), int(r * 0.8), 255, -1, lineType=cv2.LINE_AA)
        cv2.rectangle(img, (c - r // 3, c + r // 3), (c + r // 3, c + r), 255, -1)
        cv2.circle(img, (c - r // 3, c - r // 5), r // 5, 0, -1, lineType=cv2.LINE_AA)
        cv2.circle(img, (c + r // 3, c - r // 5), r // 5, 0, -1, lineType=cv2.LINE_AA)


def put_logos(scene: dict, rng: np.random.Generator, share: float = SOME_SHARE, up: bool = False,
              family: str = "drawn") -> None:
    """Mark the dice of `scene` in place: each die (not a D4) bears an emblem with chance `share` on
    its logo face (logo_value). `up`: the main die (dice[0]) bears one on the face it shows up,
    whatever its value, so that every crop shows an emblem where its number would be (a look that
    reads the top face cannot see which number the emblem stands for either way). The label row of
    every die showing its emblem up gains "logo": true. `family`: the emblems drawn from (FAMILIES)."""
    from reader.synth.scene import label_die, labeled_die

    rows = [(row, labeled_die(scene, row)) for row in scene["labels"]]
    for n, d in enumerate(scene["dice"]):
        if d["die"] == "d4":
            continue
        kinds = FAMILIES[family]
        kind = kinds[int(rng.integers(len(kinds)))]  # drawn for every die: one die's emblem hangs on no other's
        take = rng.random() < share
        up_value = label_die(d).value if up and n == 0 else None
        if up_value is not None:
            value = up_value
        elif take:
            value = logo_value(d["die"], d.get("style"))
        else:
            continue
        atlas = list(d["material"]["atlas"])
        atlas += [()] * (11 - len(atlas))  # the numbers (numbering.vary_numbers) stay the 11th
        d["material"]["atlas"] = atlas[:11] + [(int(value), kind)]
        d["logo"] = int(value)
    for row, d in rows:
        if row.get("value") is not None and d.get("logo") == row["value"]:
            row["logo"] = True
