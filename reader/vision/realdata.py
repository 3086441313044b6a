"""Labeled dice photo sets in the shared format, and the fixed holdout fifth of each.

A set is a folder with images and `labels.jsonl`, one line per image:
`{"image": "x.jpg", "dice": [{"die": "d6", "value": 4, "box": [x0, y0, x1, y1]}]}`; box null means
one die somewhere in the image, value null means only the type is known.

Training never sees an image for which `is_holdout()` is true; every figure reported for a set we
train on is measured on that fifth. The split hashes the set and image names, so it is the same on
every machine and does not move when images are added.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from reader.dice import FACES
from reader.errors import DiceReaderError

# Where the shared real photos live, relative to a checkout: ../shared/realdata.
DEFAULT_ROOT = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"

# Sets whose license lets us train on them; the rest are for evaluation only.
TRAINABLE = ("tray-d6-nell", "tray-mixed-bartek", "desk-d6-matteo", "type-lurig")


def realdata_root() -> Path:
    """The shared real-photo folder: $DICE_READER_REALDATA, else ../shared/realdata."""
    return Path(os.environ.get("DICE_READER_REALDATA", DEFAULT_ROOT))


def is_holdout(set_name: str, image: str) -> bool:
    """True for the fixed fifth of a set's images kept out of training."""
    digest = hashlib.sha1(f"{set_name}/{image}".encode()).hexdigest()
    return int(digest, 16) % 5 == 0


@dataclass(frozen=True)
class LabeledDie:
    die: str
    value: int | None
    box: tuple[float, float, float, float] | None
    state: str = "flat"


@dataclass(frozen=True)
class LabeledImage:
    set_name: str
    path: Path
    dice: tuple[LabeledDie, ...]

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def holdout(self) -> bool:
        return is_holdout(self.set_name, self.path.name)

    @property
    def single(self) -> bool:
        """One die somewhere in the image, no box: read it with read_single."""
        return len(self.dice) == 1 and self.dice[0].box is None


def _parse_die(d: dict, where: str) -> LabeledDie:
    die = str(d.get("die", "")).lower()
    if die not in FACES:
        raise DiceReaderError(f"{where}: unknown die {d.get('die')!r}")
    value = d.get("value")
    if value is not None and not 1 <= int(value) <= FACES[die]:
        raise DiceReaderError(f"{where}: a {die} cannot show {value}")
    box = d.get("box")
    return LabeledDie(
        die=die,
        value=None if value is None else int(value),
        box=None if box is None else tuple(float(v) for v in box),
        state=d.get("state", "flat"),
    )


def write_labels(folder: str | os.PathLike, images: list[tuple[str, tuple[LabeledDie, ...] | list[LabeledDie]]]) -> Path:
    """Write `folder`/labels.jsonl for images already saved there, (file name, dice) each: the
    format load_set reads (a set made from another, e.g. benchmarks/other_cameras.py's)."""
    lines = [json.dumps({"image": name, "dice": [
        {"die": d.die, "value": d.value, "box": None if d.box is None else list(d.box), "state": d.state}
        for d in dice]}) for name, dice in images]
    out = Path(folder) / "labels.jsonl"
    out.write_text("".join(line + "\n" for line in lines))
    return out


def write_set(folder: str | os.PathLike, images) -> Path:
    """A labeled set made from another (benchmarks/other_cameras.py, the camera tests): each
    (file name, BGR image, dice) saved in `folder`, JPEG at quality 92 for a .jpg name and lossless
    otherwise, then labels.jsonl (write_labels)."""
    import cv2

    folder = Path(folder)
    labels = []
    for name, img, dice in images:
        params = [cv2.IMWRITE_JPEG_QUALITY, 92] if name.lower().endswith(".jpg") else []
        if not cv2.imwrite(str(folder / name), img, params):
            raise DiceReaderError(f"could not write {folder / name}")
        labels.append((name, dice))
    return write_labels(folder, labels)


def load_set(folder: str | os.PathLike) -> list[LabeledImage]:
    """Read a labeled set; raises DiceReaderError naming the file and line of a bad label."""
    folder = Path(folder)
    labels = folder / "labels.jsonl"
    if not labels.is_file():
        raise DiceReaderError(f"{folder} is not a labeled set: no labels.jsonl")
    out = []
    with labels.open() as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{labels}:{lineno}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DiceReaderError(f"{where}: not JSON ({exc.msg})") from None
            dice = tuple(_parse_die(d, where) for d in rec.get("dice", []))
            out.append(LabeledImage(folder.name, folder / rec["image"], dice))
    return out
