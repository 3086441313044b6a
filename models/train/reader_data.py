"""Training samples for the die reader: one die per crop, with type, face and state labels.

Every die is stored once as a context patch (CTX px square, the die's box side taking BOX_IN_CTX of
it); each training sample then rotates it freely (a die seen from above has no "up", and a 6 must
be told from a 9 by its mark, not by the way the camera happened to hold it), rescales it to the
runtime crop convention (reader.vision.crops), jitters the centre and applies photometric noise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from models.train.augment import defocus, photometric
from models.train.nets import STATES, TYPES
from reader.vision.crops import CROP, CROP_PER_SIDE, warp
from reader.vision.realdata import load_set, realdata_root

CTX = 144
BOX_IN_CTX = 0.45  # die box side / context side


@dataclass
class Patches:
    images: list = field(default_factory=list)   # CTX x CTX uint8 BGR
    type_idx: list = field(default_factory=list)
    face_idx: list = field(default_factory=list)  # -1: unknown
    state_idx: list = field(default_factory=list)  # -1: unknown
    source: list = field(default_factory=list)
    lines_read: int = 0  # labels.jsonl lines consumed (rendered crops)

    def add(self, img, die: str, value, state: str | None, source: str):
        self.images.append(img)
        self.type_idx.append(TYPES.index(die))
        self.face_idx.append(-1 if value is None else int(value) - 1)
        self.state_idx.append(-1 if state is None else STATES.index(state))
        self.source.append(source)

    def extend(self, other: "Patches"):
        for k in ("images", "type_idx", "face_idx", "state_idx", "source"):
            getattr(self, k).extend(getattr(other, k))

    def __len__(self):
        return len(self.images)

    def arrays(self):
        return (np.stack(self.images), np.array(self.type_idx), np.array(self.face_idx),
                np.array(self.state_idx), np.array(self.source))


def context_patch(img: np.ndarray, box, border=cv2.BORDER_REPLICATE, angle: float = 0.0) -> np.ndarray:
    """The die in `box` and its surroundings, CTX px square, the box's side BOX_IN_CTX of it;
    turned by `angle` degrees about the die (as reader.vision.crops.crop_die turns), or not."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    side = max(x1 - x0, y1 - y0) / BOX_IN_CTX
    s = CTX / side
    if angle:
        M = cv2.getRotationMatrix2D((cx, cy), angle, s)
        M[0, 2] += CTX / 2 - cx
        M[1, 2] += CTX / 2 - cy
    else:  # as every patch was cut before turning was asked for
        M = np.array([[s, 0, CTX / 2 - s * cx], [0, s, CTX / 2 - s * cy]], np.float32)
    return warp(img, M, CTX, border)  # a big die blurred first, as the reader cuts it


def tray_images(sets, holdout: bool = False):
    """(set name, labeled image) for the tray photos of `sets` that exist here: their training
    four-fifths, or with holdout=True the fifth never trained on. Single-die photos are left out."""
    for name in sets:
        folder = realdata_root() / name
        if not folder.is_dir():
            continue
        for li in load_set(folder):
            if li.holdout == holdout and not li.single:
                yield name, li


def grow(b, k):
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    w, h = (b[2] - b[0]) * k, (b[3] - b[1]) * k
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def real_tray_patches(sets=("tray-d6-nell", "tray-mixed-bartek", "desk-d6-matteo"), holdout=False,
                      negatives_per_image=4, seed=0) -> Patches:
    """Dice of the trainable tray sets (training four-fifths, or the holdout fifth)."""
    rng = np.random.default_rng(seed)
    out = Patches()
    for name, li in tray_images(sets, holdout):
        img = cv2.imread(str(li.path))
        if img is None:
            continue
        boxes = []
        for d in li.dice:
            if d.box is None:
                continue
            b = grow(d.box, 1.5) if name == "desk-d6-matteo" else d.box
            boxes.append(b)
            out.add(context_patch(img, b), d.die, d.value, "flat", name)
        if negatives_per_image and boxes:
            _negatives(img, boxes, rng, negatives_per_image, out, name)
    return out


def _negatives(img, boxes, rng, n, out: Patches, name: str):
    """Die-sized patches of the table with no die centre near them: the reader's 'none'."""
    h, w = img.shape[:2]
    sides = [max(b[2] - b[0], b[3] - b[1]) for b in boxes]
    centres = np.array([((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in boxes])
    tries = 0
    made = 0
    while made < n and tries < 50:
        tries += 1
        s = float(rng.choice(sides)) * rng.uniform(0.8, 1.3)
        cx, cy = rng.uniform(s / 2, w - s / 2), rng.uniform(s / 2, h - s / 2)
        if len(centres) and np.min(np.hypot(centres[:, 0] - cx, centres[:, 1] - cy)) < 1.0 * s:
            continue
        out.add(context_patch(img, (cx - s / 2, cy - s / 2, cx + s / 2, cy + s / 2)), "none", None, None,
                name + ":none")
        made += 1


def detector_false_alarms(detector_onnx: Path, sets=("tray-d6-nell", "tray-mixed-bartek"),
                          scenes: Path | None = None, max_per_image: int = 6) -> Patches:
    """What the detector takes for a die where no labeled die is: the reader's hardest "none".

    Random table patches teach "a table is not a die"; the detector's own false alarms (a tray
    wall, a shadow, half of two touching dice, a printed pattern) are what a frame actually
    sends the reader, and one left standing blocks every banish roll ("exactly one die"). Only
    fully labeled sources: desk-d6-matteo leaves a few dice unlabeled, so it is left out.
    """
    from reader.vision.detector import DiceDetector
    from reader.vision.evaluate import is_candidate
    from reader.vision.onnx_model import OnnxModel
    from reader.reading import Box

    det = DiceDetector(OnnxModel(Path(detector_onnx)))
    out = Patches()

    def mine(img, boxes, name):
        labels = [Box(*b) for b in boxes]
        n = 0
        for d in det.detect(img):
            b = Box(*d.box)
            if any(is_candidate(lb, b) for lb in labels):
                continue
            out.add(context_patch(img, d.box), "none", None, None, name + ":none")
            n += 1
            if n >= max_per_image:
                break

    for name, li in tray_images(sets):
        img = cv2.imread(str(li.path))
        if img is not None:
            mine(img, [d.box for d in li.dice if d.box is not None], name)
    for rec, img in rendered_frames(scenes):
        mine(img, [d["box"] for d in rec["dice"] if d.get("box")], "synth-scenes")
    return out


def rendered_frames(folder: Path | None):
    """(label row, BGR image) of each readable frame of a rendered folder (reader.synth bulk
    scenes); a torn label line or a missing image is passed over."""
    labels = folder / "labels.jsonl" if folder else None
    if labels is None or not labels.is_file():
        return
    for line in labels.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        img = cv2.imread(str(folder / rec["image"]))
        if img is not None:
            yield rec, img


def single_die_box(boxes: dict[str, tuple] | None, name: str, image: np.ndarray) -> tuple:
    """A single-die photo's box: the detector's from `boxes` (models.train.single_boxes), else the
    central 55% of the photo."""
    h, w = image.shape[:2]
    return (boxes or {}).get(name) or (w * 0.225, h * 0.225, w * 0.775, h * 0.775)


def single_die_patches(name: str, boxes: dict[str, tuple] | None = None, holdout=False,
                       values: dict[str, int] | None = None) -> Patches:
    """Single-die images (type-lurig): the box from `boxes` (found by the detector), else the
    central 55% of the image; the value from `values` (read by eye: `lurig_patches`) where the set
    has none."""
    out = Patches()
    folder = realdata_root() / name
    if not folder.is_dir():
        return out
    for li in load_set(folder):
        if li.holdout != holdout:
            continue
        img = cv2.imread(str(li.path))
        if img is None:
            continue
        d = li.dice[0]
        value = d.value if d.value is not None else (values or {}).get(li.name)
        out.add(context_patch(img, single_die_box(boxes, li.name, img)), d.die, value, "flat" if value is not None else None, name)
    return out


def lurig_values(faces_file: Path) -> dict[str, int]:
    """type-lurig's faces read by eye (models/train/lurig_values.json): photo name -> face."""
    return {k: int(v) for k, v in json.loads(faces_file.read_text())["values"].items()}


def lurig_values_of(values: dict[str, int], dice) -> dict[str, int]:
    """Of type-lurig's faces read by eye (photo name -> face), those of the photos showing one of `dice`."""
    die_of = {im.name: im.dice[0].die for im in load_set(realdata_root() / "type-lurig") if im.dice}
    return {k: v for k, v in values.items() if die_of.get(k) in dice}


def lurig_patches(boxes_file: Path | None, faces_file: Path | None = None,
                  dice: tuple[str, ...] | None = None) -> Patches:
    """type-lurig's training four-fifths, each die in the detector's box where `boxes_file`
    (models.train.single_boxes) has one, valued where `faces_file` (models/train/lurig_values.json:
    D8, D10 and D20 seen from above, read by eye) has its face; with `dice`, only those types'
    faces (the others stay type-only)."""
    boxes = json.loads(boxes_file.read_text()) if boxes_file and boxes_file.exists() else None
    values = lurig_values(faces_file) if faces_file else None
    if values and dice:
        values = lurig_values_of(values, dice)
    return single_die_patches("type-lurig", boxes, values=values)


def synth_crop_patches(folder: Path, limit: int | None = None, skip: int = 0) -> Patches:
    """Rendered crops (reader.synth bulk crops): labels.jsonl with the main die first.

    `skip` labeled lines are passed over, so a trainer can pick up crops rendered since it last
    looked."""
    out = Patches()
    labels = folder / "labels.jsonl"
    if not labels.is_file():
        return out
    lines = labels.read_text().splitlines()
    if lines and not labels.read_text().endswith("\n"):
        lines = lines[:-1]  # a line being written right now
    out.lines_read = len(lines)
    for line in lines[skip:]:
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        img = cv2.imread(str(folder / rec["image"]))
        if img is None or not rec.get("dice"):
            continue
        d = rec["dice"][0]
        state = d.get("state", "flat")
        value = d.get("value") if state == "flat" and d["die"] != "d4" else None
        out.add(context_patch(img, d["box"]), d["die"], value, state, "synth")
        if limit and len(out) >= limit:
            break
    return out


def synth_crops_of(folders: list[Path], limit: int | None = None, threads: int = 8) -> list[Patches]:
    """synth_crop_patches of each folder, read side by side (decoding and warping release the GIL:
    a GPU machine's many render folders load in a fraction of the time), in the folders' order."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max(1, min(threads, len(folders)))) as pool:
        return list(pool.map(lambda f: synth_crop_patches(f, limit), folders))


def synth_scene_patches(folder: Path, source: str = "synth-scenes") -> Patches:
    """Every labeled die of rendered tray frames (reader.synth bulk scenes) whose box lies inside
    the frame: small, seen at an angle, touching others, under the frame's blur and noise, as the
    detector hands them over, where a rendered crop frames one die large. Cocked dice keep their
    state; a die cut by the frame's edge is left out (its box is not the die's)."""
    out = Patches()
    for rec, img in rendered_frames(folder):
        h, w = img.shape[:2]
        for d in rec.get("dice", []):
            b = d.get("box")
            if not b or b[0] <= 0.5 or b[1] <= 0.5 or b[2] >= w - 0.5 or b[3] >= h - 0.5:
                continue
            state = d.get("state", "flat")
            value = d.get("value") if state == "flat" and d["die"] != "d4" else None
            out.add(context_patch(img, b), d["die"], value, state, source)
    return out


# Dice of rendered tray frames that a trainer is taught on (--train-scenes) keep a source name of
# their own, apart from the calibration's frames ("synth-scenes": other seeds, never trained on).
SCENE_SOURCE = "synth-train-scenes"


def training_frame_patches(folders: list[Path]) -> Patches:
    """Every whole die of these rendered tray frames, as a trainer's --train-scenes takes them:
    small, seen at an angle, touching others, in the frame's own blur and noise, as the detector
    hands dice over at run time, where a rendered crop frames one die large."""
    out = Patches()
    for folder in folders:
        out.extend(synth_scene_patches(folder, source=SCENE_SOURCE))
    return out


def make_crop(patch: np.ndarray, rng: np.random.Generator, augment=True, blur_p: float = 0.0) -> np.ndarray:
    """A CROP x CROP input from a context patch, in the runtime crop convention; `blur_p` of them
    out of focus (augment.defocus, far blurrier than photometric's), as train_top_face --blur."""
    box_side = CTX * BOX_IN_CTX
    crop_side = box_side * CROP_PER_SIDE
    if augment:
        # the detector's box for a die is 0.6-1.3x its true side (10th-90th percentile, measured on
        # rendered and real trays): the reader must read a die in crops that loose or that tight
        crop_side *= float(np.exp(rng.uniform(np.log(0.6), np.log(1.4))))
        angle = rng.uniform(0, 360)
        jx, jy = rng.normal(0, 0.05, 2) * crop_side
    else:
        angle, jx, jy = 0.0, 0.0, 0.0
    out = cut(patch, crop_side, angle, jx, jy)
    if augment and blur_p > 0 and rng.random() < blur_p:
        out = defocus(out, rng)
    if augment:
        out = photometric(out, rng, strength=1.0)
    return out


def cut(patch: np.ndarray, side: float, angle: float, jx: float, jy: float) -> np.ndarray:
    """A CROP x CROP square of `side` patch pixels about the patch centre moved by (jx, jy),
    turned by `angle` degrees."""
    s = CROP / side
    M = cv2.getRotationMatrix2D((CTX / 2 + jx, CTX / 2 + jy), angle, s)
    M[0, 2] += CROP / 2 - (CTX / 2 + jx)
    M[1, 2] += CROP / 2 - (CTX / 2 + jy)
    return warp(patch, M, CROP)  # a loose cut shrinks: blurred first, as the reader cuts
