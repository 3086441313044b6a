"""Test fakes for the live tray: synthetic recorded rolls and a recognizer that reads ground truth.

`make_rolls()` writes a session folder of small recorded rolls as the renderer would (coloured
squares thrown, then still, with "truth" events on the still frames). `TruthRecognizer` is a
fake device: it answers `read_frame()` with the truth recorded for exactly that image (looked up
by a hash of the pixels), so the loop, the rules and replay are tested without the neural models.
It never invents a reading: an image it has no truth for has no dice.
`with_exif_orientation()` tags a JPEG as a turned phone photo (boxes are pixels as stored).
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import numpy as np

from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.faces import FaceEvidence, FaceReader
from reader.recording import RecordingReader, RecordingWriter, is_recording, list_rolls

COLORS = [(40, 40, 220), (220, 200, 40), (40, 200, 40), (200, 40, 200)]
SIZE = (120, 160)  # h, w


def pixel_key(bgr: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(bgr).tobytes() + str(bgr.shape).encode()).hexdigest()


def tray(positions, size=SIZE, hand: bool = False) -> np.ndarray:
    h, w = size
    img = np.full((h, w, 3), (60, 90, 60), np.uint8)
    for k, (x, y) in enumerate(positions):
        img[int(y):int(y) + 18, int(x):int(x) + 18] = COLORS[k % len(COLORS)]
    if hand:
        img[10:110, 20:140] = (150, 170, 210)  # a big skin-coloured blob
    return img


def roll_frames(n_dice: int, seed: int, idle: int = 3, moving: int = 6, still: int = 8):
    """Frames of one roll: idle tray, dice moving, dice still. Returns (frames, still_from, boxes)."""
    rng = np.random.default_rng(seed)
    h, w = SIZE
    start = rng.uniform([5, 5], [w - 30, h - 30], size=(n_dice, 2))
    vel = rng.uniform(6, 12, size=(n_dice, 2)) * rng.choice([-1, 1], size=(n_dice, 2))
    frames, pos = [], start.copy()
    for _ in range(idle):
        frames.append(tray(pos))
    for _ in range(moving):
        pos = np.clip(pos + vel, 2, [w - 22, h - 22])
        frames.append(tray(pos))
    still_from = len(frames)
    for _ in range(still):
        frames.append(tray(pos))
    boxes = [[float(x), float(y), float(x) + 18, float(y) + 18] for x, y in pos]
    return frames, still_from, boxes


def make_roll(path: Path, dice: list[tuple], seed: int = 0, fps: float = 10.0,
              trigger_at: int | None = None, **kw) -> Path:
    """One recorded roll. `dice`: (die, value) or (die, None) for a cocked die."""
    frames, still_from, boxes = roll_frames(len(dice), seed, **kw)
    w = RecordingWriter(path, camera={"source": "synthetic", "fps": fps}, frame_ext=".png",
                        clock=lambda: 0.0)
    truth = [{"die": d, "value": v, "box": b, "state": "flat" if v is not None else "cocked"}
             for (d, v), b in zip(dice, boxes)]
    for i, img in enumerate(frames):
        t = i / fps
        if trigger_at == i:
            w.add_event("trigger", t=t, source="tower", seq=7)
        w.add_frame(img, t=t)
        if i >= still_from:
            w.add_event("truth", t=t, frame=i, dice=truth)
    return w.close()


def make_rolls(folder: Path, rolls: list[list[tuple]], seed: int = 0, **kw) -> Path:
    for i, dice in enumerate(rolls, 1):
        make_roll(folder / f"{i:04d}", dice, seed=seed + i, **kw)
    return folder


class TruthRecognizer:
    """Fake recognizer: the recorded ground truth of exactly this image, or no dice."""

    versions = {"fake": "truth"}

    def __init__(self, *recordings: Path) -> None:
        self._truth: dict[str, list[dict]] = {}
        self.calls = 0
        for path in recordings:
            for roll in ([path] if is_recording(path) else list_rolls(path)):
                rec = RecordingReader(roll)
                for e in rec.of_type("truth"):
                    self._truth[pixel_key(rec.frame(e["frame"]))] = e["dice"]

    def read_frame(self, bgr: np.ndarray) -> list[DieReading]:
        self.calls += 1
        out = []
        for d in self._truth.get(pixel_key(bgr), []):
            if d["state"] == "flat" and d.get("value") is not None:
                outcome = Face(int(d["value"]), 0.99)
            elif d["state"] == "flat":  # a D4: named, never read (the rules refuse it)
                outcome = Unreadable("a D4: the rules use D6 to D20", 0.99)
            elif d["state"] == "cocked":
                outcome = Cocked(0.9)
            else:
                outcome = Unreadable("unsure", 0.2)
            out.append(DieReading(d["die"], Box.from_list(d["box"]), outcome))
        return out


class RefusingRecognizer:
    """Fake recognizer: the recorded truth of each frame, every die refused for `reason` at `confidence`
    (a rule's refusal as the recognizer gives it: the lone dot's, the percentile check's)."""

    versions = {"fake": "refusing"}

    def __init__(self, truth: TruthRecognizer, reason: str, confidence: float) -> None:
        self.truth, self.reason, self.confidence = truth, reason, confidence

    def read_frame(self, bgr: np.ndarray) -> list[DieReading]:
        return [replace(r, outcome=Unreadable(self.reason, self.confidence)) for r in self.truth.read_frame(bgr)]


def loop_refusing_every_die(tmp_path: Path, rolls: list[list[tuple]], reason: str, confidence: float,
                            decider) -> tuple[list[dict], RecordingReader]:
    """Recorded rolls of `rolls`' dice through the live loop with `decider`, every die refused for
    `reason` (RefusingRecognizer): the loop's events, and the first roll's recording as it was kept."""
    from reader.loop import LiveLoop, LoopConfig
    from reader.sources import open_source

    src = make_rolls(tmp_path / "src", rolls)
    events: list[dict] = []
    LiveLoop(open_source(f"recording:{src}"), RefusingRecognizer(TruthRecognizer(src), reason, confidence),
             decider, LoopConfig(out_dir=tmp_path / "rolls"), on_event=events.append).run()
    return events, RecordingReader(list_rolls(tmp_path / "rolls")[0])


def with_exif_orientation(jpeg: bytes, orientation: int) -> bytes:
    """The JPEG with an EXIF block holding only its orientation tag (0x0112), as a phone writes
    for a photo taken with the phone turned."""
    tiff = (b"MM\x00\x2a\x00\x00\x00\x08" + b"\x00\x01"
            + b"\x01\x12\x00\x03\x00\x00\x00\x01" + orientation.to_bytes(2, "big") + b"\x00\x00"
            + b"\x00\x00\x00\x00")
    body = b"Exif\x00\x00" + tiff
    assert jpeg[:2] == b"\xff\xd8"
    return jpeg[:2] + b"\xff\xe1" + (len(body) + 2).to_bytes(2, "big") + body + jpeg[2:]


class GivenBoxes:
    """A stand-in detector for the recognizer: the boxes it is given, and no heat between them."""

    def __init__(self, boxes):
        self.boxes = boxes

    def find(self, image):
        from reader.vision.detector import Detection, Heat

        return [Detection(b, 0.9) for b in self.boxes], Heat(np.zeros((4, 4)), 1.0)

    def detect(self, image, **kw):
        """As the single-die reading asks (reader.vision.recognizer.Recognizer.read_single)."""
        return self.find(image)[0]


class FixedLeaning:
    """A stand-in for the lean look's network (reader.vision.lean): p(leaning) `p` for every die."""

    meta = {"lean_threshold": 0.5}

    def __init__(self, p):
        self.p = p
        self.crops = 0  # how many dice it was asked about

    def run(self, x, slant):
        self.crops += len(x)
        return [np.tile(np.log(np.clip(np.array([[1 - self.p, self.p]], np.float32), 1e-9, 1)), (len(x), 1))]



class FixedD20Reader(FaceReader):
    """A stand-in for the reader (reader.vision.faces.FaceReader: its decisions, its evidence fixed):
    every die a D20 showing `face`, p(type) `p_type` (the rest a D12), p(face) `p_face`, p(cocked)
    `cocked`, its views agreeing or not; `accept_by_die` its own thresholds. Keeps the shifts each
    evidence call was given (the cut moved to the top face with the camera described)."""

    def __init__(self, face: int, p_face: float, p_type: float = 0.99, cocked: float = 0.01, agree: bool = True,
                 accept_by_die: dict | None = None):
        class _Meta:
            meta = {"types": ["d4", "d6", "d8", "d10", "d12", "d20", "none"], "accept_threshold": 0.85,
                    "cocked_threshold": 0.4, **({"accept_threshold_by_die": accept_by_die} if accept_by_die else {})}
        super().__init__(_Meta())
        self.face, self.p_face, self.p_type, self.cocked, self.agree = face, p_face, p_type, cocked, agree
        self.shifts = []

    def evidence(self, image, boxes, check_state=True, shifts=None):
        self.shifts.append(shifts)
        tp = np.array([0.0, 0.0, 0.0, 0.0, 1.0 - self.p_type, self.p_type, 0.0])
        fp = np.full(20, (1.0 - self.p_face) / 19)
        fp[self.face - 1] = self.p_face
        return [FaceEvidence(tp, fp, self.cocked, self.agree) for _ in boxes]
