"""Where a fixed camera sees each die from, and the numeral dice it sees too steeply to read.

Seen further off vertical than about half the angle between two neighbouring faces, a die's
neighbour face looks at the camera more squarely than its top face does, and the reader, which
reads the face it sees best, reads that neighbour as surely as a top face seen from above. On 3,000
rendered dice (models/reader.md, "v9 at the product's frame size"), the D8-D20 readings accepted
within 30 degrees of vertical were 4 wrong of 534; beyond, 42 of 84. A die's crop does not show
the angle (a D20 seen obliquely is another D20 seen from above; a network tried on the crop could
not tell it), but the frame does, once the camera is known: its field of view and how far it leans.
Given those (a tray camera is set up once), each die's angle follows from its place in the frame,
and a die seen beyond its type's limit is refused whatever its confidence: roll again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from reader.errors import DiceReaderError
from reader.reading import DieReading, Unreadable

# Degrees off vertical beyond which a die type's readings are refused: 30 for the D10, D12 and D20
# (their accepted readings 42 wrong of 84 beyond it on the renders, 4 of 534 within). The D8 and the
# D6 at half the angle between two neighbouring faces, where the neighbour turns to the camera more
# squarely than the top face: 35 for the D8 (70.5 degrees apart), 45 for the D6 (90). Until session
# 28 the D8 held to 45 and the D6 had no limit: the 1280x720 renders, read with their cameras and the
# lean look, then accepted a D8 showing 2 as 3 seen 39 degrees off vertical and a D6 showing 2 as 1
# seen 50 degrees off (its "1" side face-on, its top foreshortened); with these limits neither, for
# 3 right readings fewer of 1,814 dice (models/reader.md, "Session 28").
STEEP_LIMITS = {"d6": 45.0, "d8": 35.0, "d10": 30.0, "d12": 30.0, "d20": 30.0}


# The sides of the picture a camera may lean toward, in degrees clockwise from the top (CameraView.toward,
# --camera-toward's words).
SIDES = {"top": 0.0, "right": 90.0, "bottom": 180.0, "left": 270.0}


def side_of(toward: float) -> str:
    """Which way a camera leaning `toward` degrees leans, in words: "the right", or degrees."""
    names = {deg: f"the {name}" for name, deg in SIDES.items()}
    return names.get(round(toward) % 360, f"{toward:.0f} degrees clockwise from the top")


def focal_of(hfov: float, width: int) -> float:
    """The focal length in pixels of a lens `hfov` degrees wide across a picture `width` pixels wide."""
    return (width / 2) / math.tan(math.radians(hfov) / 2)


def hfov_of(focal: float, width: int) -> float:
    """The field of view (degrees) across `width` pixels of a lens of `focal` pixels: focal_of's inverse."""
    return math.degrees(2 * math.atan((width / 2) / focal))


def top_face_shift(box, slant: float, turn: float, rise: float) -> tuple[float, float]:
    """(dx, dy) in pixels from the middle of a die's box to where its top face is seen: away from
    the camera's foot (`turn`, reader.vision.viewing.CameraView.turn_to_foot's angle for the box), by
    `rise` x the box side x sin(`slant`).

    Why: the top face stands above the die's middle (a D20's by 0.4 of its box side), so a camera
    seeing the die `slant` degrees off vertical sees it that far toward the picture's far side, while
    the box's middle holds the side face looking at the camera. A second look cut about the box's
    middle (reader.vision.topface) then reads that side face: the near D20 look, its cut 0.45, read
    the renders seen 21-30 degrees off vertical right 281 times of 615, 59 of them wrong at p 0.9 or
    over; cut 0.4 x side x sin(slant) away from the foot, 490 and 2 (models/reader.md, "Session 35")."""
    x0, y0, x1, y1 = box
    reach = rise * max(x1 - x0, y1 - y0) * math.sin(math.radians(slant))
    to_foot = math.radians(turn + 90.0)  # turn_to_foot is the foot's direction less 90 degrees
    return -reach * math.cos(to_foot), -reach * math.sin(to_foot)


@dataclass(frozen=True)
class CameraView:
    """A fixed camera over the tray: `hfov` its horizontal field of view (degrees), `tilt` how far
    its axis leans off straight down (degrees), `toward` which way in the picture it leans (degrees
    clockwise from the top: 0 the top, the far side, as for a camera at the table's edge looking
    across it; 90 the right, 180 the bottom, 270 the left: a camera on an arm beside the tray).
    `lean`: also ask the lean look (reader.vision.lean) which read dice lean; it depends on the
    set-up being described right (`dice-reader camera` measures it, reader.vision.camera_setup)."""

    hfov: float
    tilt: float = 0.0
    lean: bool = False
    toward: float = 0.0

    def __post_init__(self) -> None:
        if not 10.0 <= self.hfov <= 170.0:
            raise DiceReaderError(f"camera field of view {self.hfov:g} degrees: give 10-170")
        if not 0.0 <= self.tilt <= 80.0:
            raise DiceReaderError(f"camera tilt {self.tilt:g} degrees: give 0 (straight down) to 80")
        if not math.isfinite(self.toward):
            raise DiceReaderError(f"camera lean direction {self.toward!r}: give degrees clockwise from the top")
        object.__setattr__(self, "toward", float(self.toward) % 360.0)

    def to_json(self) -> dict:
        return {"hfov": self.hfov, "tilt": self.tilt, **({"toward": self.toward} if self.toward else {}),
                **({"lean": True} if self.lean else {})}

    @classmethod
    def from_json(cls, d) -> "CameraView":
        """From to_json's dict (a recording's manifest, camera.view); DiceReaderError if it is not one.
        A manifest written before `toward` existed has none: its camera leant toward the top."""
        try:
            return cls(float(d["hfov"]), float(d.get("tilt", 0.0)), bool(d.get("lean", False)),
                       float(d.get("toward", 0.0)))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise DiceReaderError(f"camera view {d!r} is not a field of view and a tilt") from exc

    def describe(self) -> str:
        """The set-up in words, as the commands print it."""
        way = f" toward {side_of(self.toward)}" if self.tilt and self.toward else ""
        return f"camera {self.hfov:g} deg wide, tilted {self.tilt:g}{way}{', lean look' if self.lean else ''}"

    def upright(self, width: int, height: int) -> tuple[int, "CameraView"]:
        """(k, view): the picture turned k quarter turns counterclockwise (np.rot90's k) leans its
        camera toward the top, or within 45 degrees of it, as `view` (the same lens: its field of view
        is the turned picture's width's) describes. k is 0 for a camera leaning toward the top.

        Why: the reader was calibrated, and its looks taught, on renders whose camera leans toward the
        top, so a crop's side toward the camera is always its bottom; the looks cut their views at
        fixed angles in the picture. A frame from a camera beside the tray, read as it is, read 441
        right where the same frames upright read 460 (fixtures/stills turned a quarter; described as
        leaning toward the top, 262), so the recognizer reads such a frame turned upright."""
        k = int(round(self.toward / 90.0)) % 4
        if k == 0:
            return 0, self
        hfov = hfov_of(focal_of(self.hfov, width), height if k % 2 else width)
        return k, replace(self, hfov=hfov, toward=self.toward - 90.0 * k)

    def _leaning(self) -> tuple[float, float]:
        """The unit vector in the picture (x right, y down) the camera leans toward."""
        a = math.radians(self.toward)
        return math.sin(a), -math.cos(a)

    def slant(self, x: float, y: float, width: int, height: int) -> float:
        """Degrees between the vertical and the line from the table at pixel (x, y) to the camera."""
        f = focal_of(self.hfov, width)
        dx, dy = (x - width / 2) / f, (y - height / 2) / f
        t = math.radians(self.tilt)
        # the world's up in the camera's frame (x right, y down the picture, z along its axis) is
        # (sin t ux, sin t uy, -cos t), (ux, uy) the way it leans ((0, -1): the top): the line to the
        # camera, -(dx, dy, 1), against it
        ux, uy = self._leaning()
        cos = (-(dx * ux + dy * uy) * math.sin(t) + math.cos(t)) / math.sqrt(dx * dx + dy * dy + 1.0)
        return math.degrees(math.acos(max(-1.0, min(1.0, cos))))

    @classmethod
    def rendered(cls, camera: dict, lean: bool = False) -> "CameraView":
        """The set-up of a camera as the renderer records it (a truth event's "camera": its
        intrinsics and how far it leans off vertical); DiceReaderError if it is not one."""
        try:
            return cls(hfov_of(camera["intrinsics"][0][0], camera["width"]), float(camera["off_vertical_deg"]), lean)
        except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError) as exc:
            raise DiceReaderError(f"rendered camera {camera!r} has no field of view and lean ({exc})") from None

    def foot(self, width: int, height: int) -> tuple[float, float]:
        """The pixel straight below the camera (where every vertical edge points, down): the
        camera's axis leans one way (the top of the picture, unless `toward` says otherwise), so its
        foot lies the other way from the middle."""
        reach = focal_of(self.hfov, width) * math.tan(math.radians(self.tilt))
        ux, uy = self._leaning()
        return width / 2 - reach * ux, height / 2 - reach * uy

    def top_face_shift(self, box, width: int, height: int, rise: float) -> tuple[float, float]:
        """Where this camera sees the top face of the die in `box`, from the box's middle (top_face_shift)."""
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        return top_face_shift(box, self.slant(cx, cy, width, height), self.turn_to_foot(cx, cy, width, height), rise)

    def turn_to_foot(self, x: float, y: float, width: int, height: int) -> float:
        """Degrees to turn a crop about (x, y) (reader.vision.crops.crop_die's `angle`) so that the
        camera's foot is straight below it: a flat die seen obliquely then shows its side face at
        the bottom of the crop, whichever part of the frame it came from."""
        fx, fy = self.foot(width, height)
        return math.degrees(math.atan2(fy - y, fx - x)) - 90.0

    def refuse_steep(self, readings: list[DieReading], width: int, height: int,
                     limits: dict[str, float] = STEEP_LIMITS) -> list[DieReading]:
        """The readings with every face of a die seen beyond its type's limit turned into
        'can't tell' (the other readings as they were)."""
        out = []
        for r in readings:
            limit = limits.get(r.die)
            if r.value is not None and limit is not None:
                s = self.slant(*r.box.center, width, height)
                if s > limit:
                    r = replace(r, outcome=Unreadable(
                        f"seen {s:.0f} degrees off vertical: too steep to tell its top face", r.confidence))
            out.append(r)
        return out


def turned_back(box, k: int, width: int, height: int) -> tuple[float, float, float, float]:
    """A box (x0, y0, x1, y1) in the picture turned k quarter turns counterclockwise (np.rot90's k) of
    a `width` x `height` frame, in that frame's own pixels."""
    x0, y0, x1, y1 = box
    k %= 4
    if k == 1:  # the turned picture's (x, y) was the frame's (width - y, x)
        return width - y1, x0, width - y0, x1
    if k == 2:
        return width - x1, height - y1, width - x0, height - y0
    if k == 3:  # (x, y) was (y, height - x)
        return y0, height - x1, y1, height - x0
    return x0, y0, x1, y1
