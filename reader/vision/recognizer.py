"""The recognizer: every die in a tray frame, its type, top face, confidence and state.

ONNX models from models/: `detector.onnx` finds dice (reader.vision.detector), `reader.onnx`
reads each one (reader.vision.faces), and the second looks named in the reader's metadata
(reader.vision.topface): `reader_top.onnx` at a numeral die's top face, `reader_top_d6.onnx` at a
D6's pips. Where the camera is known, `reader_lean.onnx` looks for dice that lean (reader.vision.lean)
and `reader_seen.onnx` reads the numeral dice seen obliquely from the camera's side (reader.vision.seen);
there the numeral dice's second looks cut where the camera sees the top face, and the D20 takes
`reader_near_d20.onnx`, the look the lean thresholds name (reader.vision.lean.LeanThresholds).
Pure computation on an image
array: opening cameras and files is the callers' business.
"""

from __future__ import annotations

import copy
import os
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from reader.errors import DiceReaderError
from reader.reading import Box, DieReading, Face
from reader.vision import above, close_dice, lean_guard, legible, lone_dot, reread, white_balance, wider
from reader.vision.camera_guess import CameraEvidence, CameraGuess, guess_camera
from reader.vision.detector import DiceDetector, Heat, around
from reader.vision.faces import LOW_CONFIDENCE, FaceEvidence, FaceReader, StateCheck
from reader.vision.lean import LeanLook, LeanThresholds
from reader.vision.onnx_model import OnnxModel, models_dir
from reader.vision.percentile import PercentileCheck
from reader.vision.pieces import accepted, merge_read_twice, piece_pairs, refuse_pieces
from reader.vision.seen import SeenLook
from reader.vision.single_find import SINGLE_LONG_SIDE, find_single_die  # noqa: F401 (SINGLE_LONG_SIDE: models.train)
from reader.vision.topface import TopFaceLook, in_place_of
from reader.vision.viewing import STEEP_LIMITS, CameraView, turned_back

# The whole image is read as the die's box only when the detector's die spans at least this share of
# the image's long side. The reader learnt dice filling at least 1/1.89 of its crop (the crop side
# 1.35x the box, times up to 1.4 for a loose box); a whole-image crop is 1.35x the image, so a die
# under 0.71 of the image is smaller there than any die it was trained on, and is typed worse
# (type-lurig: dice 36-53% of the image, 77% typed right from the whole image, 99% from the box).
FILLS_IMAGE = 0.7
# ... and also where the reader takes the detector's find for no die (p(none) over 1 - PIECE_DIE) and
# the whole image surely for one (p(none) under 1 - WHOLE_DIE): in a photo of 400 px or more that the
# die fills and the detector misses, the bigger looks (single_find) find a face or a numeral of it
# instead, typed D6 or D10 and refused (session 54: type-lurig's holdout blown up 8x, 603 -> 610 of 615
# typed right; as photographed, where such a die is read from the whole image, 612). A small die in a
# big photo is not taken for a piece: session 44's lurig dice set in 1000 px photos, every find 0.996 or
# more, every whole photo 0.387 or less.
PIECE_DIE = 0.5
WHOLE_DIE = 0.9
# A photo of one die is taken looking at it: where no camera is described and the die is refused as
# read without one, it is read again as a camera straight above it sees it, a phone's field of view
# wide, with the looks (read_single). Only the field of view's slant at the die's place depends on
# the width; a die in the middle is seen from straight above at any.
SINGLE_ABOVE = CameraView(66.0, 0.0, True)
# The lean look and the seen look, used only with a known camera that asks for them (CameraView.lean).
LEAN_MODEL = "reader_lean.onnx"
LEAN_HEAD_MODEL = "reader_lean_head.onnx"  # the lean look's head alone, for a camera guess (lean.py)
SEEN_MODEL = "reader_seen.onnx"
# The lean look taught type-lurig's dice too (lean look v3, session 60), for a die read with no camera
# described: reader.vision.above's D20, and a single photo read again as from straight above. The lean
# look v2 stays for a described or guessed camera, whose lean thresholds were set behind it; v3 there
# refused 10-20 more right readings of the rendered stills.
ABOVE_MODEL = "reader_above.onnx"
ABOVE_HEAD_MODEL = "reader_above_head.onnx"


def with_looks(faces: FaceReader, looks: tuple | list, folder, threads: int | None = None) -> FaceReader | None:
    """`faces` with these second looks (metadata entries, reader.vision.lean.LeanThresholds.looks;
    their networks in `folder`) in place of its own for their dice: the reader the recognizer asks
    with the camera described and the looks. None where there are none."""
    if not looks:
        return None
    own = [TopFaceLook.from_meta(OnnxModel(Path(folder) / t["model"], threads), t) for t in looks]
    return FaceReader(faces.model, in_place_of(faces.looks, own), faces.state_check)


def turned(image: np.ndarray, k: int) -> np.ndarray:
    """`image` turned k quarter turns counterclockwise, as np.rot90(image, k) but by OpenCV: 0.6 ms
    for a 1280x720 frame where np.rot90 and a copy took 4.2."""
    k %= 4
    if k == 0:
        return image
    return cv2.rotate(image, {1: cv2.ROTATE_90_COUNTERCLOCKWISE, 2: cv2.ROTATE_180, 3: cv2.ROTATE_90_CLOCKWISE}[k])


def _reading_order(r: DieReading):
    """Left to right, then top to bottom, a row a die's height."""
    return round(r.box.center[1] / max(r.box.height, 1)), r.box.center[0]


def _lean_look(folder: Path, name: str, head: str, threads: int | None) -> LeanLook | None:
    """The lean look `name` in `folder` with its head (`head`, where the look has a features output), or
    None where the folder has no such file."""
    if not (folder / name).is_file():
        return None
    model = OnnxModel(folder / name, threads)
    return LeanLook.from_model(model, OnnxModel(folder / head, threads) if "features_output" in model.meta else None)


class Recognizer:
    def __init__(self, detector: DiceDetector, faces: FaceReader, view: CameraView | None = None,
                 lean: LeanLook | None = None, seen: SeenLook | None = None,
                 lean_thresholds: LeanThresholds | None = None, lean_faces: FaceReader | None = None,
                 above_look: LeanLook | None = None):
        self.detector = detector
        self.faces = faces
        # the camera, when its set-up is known: numeral dice seen too steeply are refused
        # (reader.vision.viewing), and, if the set-up asks for it, dice the lean look finds
        # leaning are cocked (reader.vision.lean); None: every die is read as if seen from above
        self.view = view
        self.lean = lean
        # the seen look (reader.vision.seen): with the lean look, the numeral dice read from the
        # camera's side; None: the steep limits refuse the dice seen too steeply
        self.seen = seen
        # with the lean look, the thresholds for a die refused for low confidence, decided again with
        # its p(leaning) in place of p(cocked) (the reader's metadata "lean_thresholds"); None: not
        self.lean_thresholds = lean_thresholds
        # with the lean look, the reader with the lean thresholds' own second looks in place
        # (LeanThresholds.looks); None: the same reader as without
        self.lean_faces = lean_faces
        # with no camera described, a frame that leaves a die refused is read again with the set-up its
        # dice suggest (read_frame_guessing; it needs the lean look); False: read as if seen from above
        self.guess_view = False
        # with no camera described, a single die refused is read again as seen from straight above
        # (SINGLE_ABOVE, read_single; it needs look_from_above); False: read once, as in a frame
        self.single_from_above = True
        # with no lean look asked for, a D20 refused for low confidence that looks seen from straight above
        # and flat is decided again at the threshold for such dice (reader.vision.above); False: not
        self.d20_from_above = True
        # the look reader.vision.above asks whether such a D20 is seen from straight above and flat; None:
        # the lean look
        self.above_look = above_look
        # the whole look's percentile check (reader.vision.percentile), asked last; None: the whole look
        # has none (reader v24 and before)
        self.percentile = PercentileCheck.of(getattr(faces, "model", None))
        # with no camera described, a valued die that alone of its frame's looks leaning, and still does
        # under the camera guessed from the frame's dice, is refused as cocked (reader.vision.lean_guard)
        self.lean_guard = True
        # a colour cast beyond what the looks learnt, judged by a frame's dice (two or more), is taken out
        # before the frame is read (reader.vision.white_balance); False: every frame is read as it came
        self.balance_light = True

    @classmethod
    def load(cls, models_dir_: str | os.PathLike | None = None, threads: int | None = None) -> "Recognizer":
        d = models_dir(models_dir_)
        reader = OnnxModel(d / "reader.onnx", threads)
        # the second looks, if the reader has any: a list (reader v7 wrote its one look as a dict)
        tops = reader.meta.get("top_face") or []
        looks = [TopFaceLook.from_meta(OnnxModel(d / t["model"], threads), t)
                 for t in ([tops] if isinstance(tops, dict) else tops)]
        # the state check, if the reader names one (the whole look it was taught from: faces.StateCheck)
        check = reader.meta.get("state_check")
        state_check = StateCheck.from_meta(OnnxModel(d / check["model"], threads), check) if check else None
        lean, above_look = (_lean_look(d, name, head, threads)
                            for name, head in ((LEAN_MODEL, LEAN_HEAD_MODEL), (ABOVE_MODEL, ABOVE_HEAD_MODEL)))
        seen = SeenLook.from_model(OnnxModel(d / SEEN_MODEL, threads)) if (d / SEEN_MODEL).is_file() else None
        thresholds = LeanThresholds.from_meta(reader.meta.get("lean_thresholds"))
        faces = FaceReader(reader, looks, state_check)
        return cls(DiceDetector(OnnxModel(d / "detector.onnx", threads)), faces, lean=lean, seen=seen,
                   lean_thresholds=thresholds,
                   lean_faces=with_looks(faces, thresholds.looks if thresholds else (), d, threads),
                   above_look=above_look)

    @property
    def look_from_above(self) -> LeanLook | None:
        """The look that judges a die read as seen straight down with no camera described (above.py's D20,
        a single photo read again from above): the above look where there is one, else the lean look."""
        return self.above_look if self.above_look is not None else self.lean

    @property
    def versions(self) -> dict:
        out = {"detector": self.detector.model.meta.get("version"),
               "reader": self.faces.model.meta.get("version")}
        for look in self.faces.looks + (self.lean_faces.looks if self.lean_faces is not None else ()):
            out[look.name] = look.model.meta.get("version")  # reader_top (the numeral dice), reader_top_d6, ...
        if self.lean is not None:
            out["reader_lean"] = self.lean.model.meta.get("version")
        if self.above_look is not None:
            out["reader_above"] = self.above_look.model.meta.get("version")
        if self.seen is not None:
            out[self.seen.name] = self.seen.model.meta.get("version")
        if self.faces.state_check is not None:
            out[self.faces.state_check.name] = self.faces.state_check.model.meta.get("version")
        return out

    @staticmethod
    def _check(image) -> np.ndarray:
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise DiceReaderError("expected a BGR colour image (H x W x 3)")
        if image.dtype != np.uint8:
            raise DiceReaderError(f"expected an 8-bit image, got {image.dtype}")
        return image

    def _under_white_light(self, image: np.ndarray, finds: tuple) -> tuple[np.ndarray, tuple]:
        """The frame and the detector's finds in it (DiceDetector.find), where balance_light and those
        dice show a colour cast beyond what the looks learnt: the frame with the cast taken out and its
        dice found again (reader.vision.white_balance)."""
        if not self.balance_light:
            return image, finds
        gains = white_balance.cast_of(image, (d.box for d in finds[0]))
        if gains is None:
            return image, finds
        image = white_balance.taken_out(image, gains)
        return image, self.detector.find(image)

    def read_frame(self, image: np.ndarray) -> list[DieReading]:
        """Every die in a tray frame, left to right then top to bottom."""
        image = self._check(image)
        if self.guessing():
            return self.read_frame_guessing(image, where_refused=True)[0]
        return self._read_frame(image)

    def guessing(self) -> bool:
        """Whether read_frame guesses the camera: asked to, and none described."""
        return bool(self.guess_view) and self.view is None

    def _read_frame(self, image: np.ndarray, found_as_is: tuple | None = None) -> list[DieReading]:
        """read_frame with the camera this reader has (or none); `found_as_is`: the detector's finds
        in the image as given (DiceDetector.find), where the caller has them already (a frame read
        twice, its cast taken out before: _under_white_light), used unless the frame is read turned.
        A frame whose dice it finds itself it first rids of a cast they show."""
        k, upright = self._upright(image)
        if k:  # a camera leaning toward another side: read the frame turned upright, boxes turned back
            h, w = image.shape[:2]
            readings = upright._read_frame(turned(image, k))
            return sorted((replace(r, box=Box(*turned_back(tuple(r.box), k, w, h))) for r in readings),
                          key=_reading_order)
        looks = self._looks()
        # The state check (reader.vision.faces.StateCheck) is not asked under the lean look, the better
        # judge of leaning where the camera is known: with it asked too, a frames-taught whole look
        # checked by v15's read 460 -> 411 of the 640x360 renders right, 627 -> 557 at 1280x720, for
        # the same wrong and one cocked die fewer valued (models/reader.md, "Session 28").
        if found_as_is is None:
            image, found_as_is = self._under_white_light(image, self.detector.find(image))
        dets, heat = found_as_is
        boxes = [Box(*d.box) for d in dets]
        evs = self._evidence(image, boxes, looks)
        found = [self._decide(ev, b, looks) for b, ev in zip(boxes, evs)]
        leaned: list[DieReading] = []
        if looks:
            found, leaned = self._read_again_with_lean(image, boxes, evs, found)
        else:
            found = self._read_d20_from_above(image, boxes, evs, found)
        readings = [r for r in self._join_pieces(image, boxes, found, heat, looks) if r is not None]
        readings = self._read_close_dice(image, readings, looks, heat)
        readings = self._refuse_unlike_wider(image, readings, looks)
        readings = self._judge_with_the_camera(image, readings, looks, leaned)
        readings = merge_read_twice(readings)
        if self.view is None and self.lean is not None and self.lean_guard:  # no camera: no looks either
            readings = lean_guard.refuse_leaning(self.lean, image, readings)
        readings = self._last_checks(image, readings)
        readings.sort(key=_reading_order)
        return readings

    def read_frame_guessing(self, image: np.ndarray, evidence: CameraEvidence | None = None,
                            where_refused: bool = False) -> tuple[list[DieReading], CameraGuess | None]:
        """The frame read as if seen from above, the camera guessed from those dice, and the frame read
        again with it (reader.vision.camera_guess); the readings and the guess, None where the dice
        are too few to tell (its readings are then the first). `evidence`: what earlier frames of the
        same camera said of it, this frame's dice added to it and the guess made from all of them
        (the live loop's rolls); None: this frame alone. `where_refused`: where the first reading
        values every die (a D4 is never valued), it is kept and nothing guessed; elsewhere a D6 keeps
        a value only where both readings give it (reader.vision.reread)."""
        if self.lean is None:
            raise DiceReaderError("guessing the camera needs the lean look (models/reader_lean.onnx)")
        image = self._check(image)
        plain = copy.copy(self)  # a copy: a reader may be shared
        plain.guess_view, plain.view = False, None
        image, finds = self._under_white_light(image, self.detector.find(image))  # found once, read twice
        found = plain._read_frame(image, finds)
        dice = [r for r in found if r.die != "d4"]  # the lean look was taught no D4, and a D4 is never valued
        if where_refused and all(r.value is not None for r in dice):
            return found, None
        boxes = [tuple(r.box) for r in dice]

        def p_leaning(views):
            return self.lean.p_leaning_under(image, boxes, views)

        if evidence is None:  # this frame alone: too few dice tell nothing, and the look is not asked
            guess = guess_camera(p_leaning, len(boxes))
        else:
            if boxes:
                evidence.add(p_leaning(evidence.choices))
            guess = evidence.guess()
        if guess is None:
            return found, None
        plain.view = guess.view
        again = plain._read_frame(image, finds)
        return (reread.kept(found, again) if where_refused else again), guess

    def _upright(self, image: np.ndarray) -> tuple[int, "Recognizer"]:
        """(k, reader): the frame turned k quarter turns counterclockwise is read by `reader`, whose
        camera then leans toward the top, as the camera of every frame the reader was calibrated on
        did (CameraView.upright); (0, self) for such a camera, or none described."""
        if self.view is None:
            return 0, self
        k, view = self.view.upright(image.shape[1], image.shape[0])
        if k == 0:
            return 0, self
        upright = copy.copy(self)  # a copy, not self with its view swapped: a reader may be shared
        upright.view = view
        return k, upright

    def faces_for(self, looks: bool) -> FaceReader:
        """The reader to gather evidence with: with the looks, the one with the lean thresholds' own
        second looks where there are any (their decisions are the same: one network, one metadata)."""
        return self.lean_faces if looks and self.lean_faces is not None else self.faces

    def _evidence(self, image: np.ndarray, boxes: list, looks: bool, check_state: bool | None = None) -> list:
        """The dice's evidence as this reading takes it: with the looks, from faces_for's reader, the
        state check left to the lean look (`check_state` None: not asked with the looks, asked
        without), and the numeral dice's second looks cut where the camera sees the top face, by the
        rise the lean thresholds were set with (reader.vision.viewing.top_face_shift)."""
        rise = self.lean_thresholds.rise if looks and self.lean_thresholds is not None else 0.0
        shifts = None
        if rise:
            h, w = image.shape[:2]
            shifts = [self.view.top_face_shift(tuple(b), w, h, rise) for b in boxes]
        return self.faces_for(looks).evidence(image, boxes, not looks if check_state is None else check_state, shifts)

    def _decide(self, ev: FaceEvidence, box: Box, looks: bool, allow_none: bool = True) -> DieReading | None:
        """A die's first decision: at the reader's own thresholds, except, with the looks, the lean
        thresholds' own for the dice they name (LeanThresholds.first_by_die: the camera's looks read
        those dice, and the lean thresholds were set behind that decision)."""
        first = self.lean_thresholds.first_by_die if looks and self.lean_thresholds is not None else None
        return self.faces.decide(ev, box, allow_none, accept_by_die=first)

    def _looks(self) -> bool:
        """Are the looks that need the camera described right asked for (CameraView.lean)?"""
        looks = self.view is not None and self.view.lean
        if looks and self.lean is None:
            raise DiceReaderError(f"the lean look was asked for, but the models have no {LEAN_MODEL}")
        return looks

    def _read_again_with_lean(self, image: np.ndarray, boxes: list[Box], evs: list[FaceEvidence],
                              found: list[DieReading | None]) -> tuple[list[DieReading | None], list[DieReading]]:
        """With the lean look: the dice refused for low confidence alone, and those called cocked that
        it finds standing flat, decided again from the same evidence with its p(leaning). Returns the
        readings and those it gave a value: their p(leaning) is under the look's threshold already."""
        out = list(found)
        if self.lean_thresholds is not None:
            out = self._read_unsure_again(image, boxes, evs, out)
        out = self._read_flat_again(image, boxes, evs, out)
        return out, [r for r, was in zip(out, found) if r is not was]

    def _read_close_dice(self, image: np.ndarray, readings: list[DieReading], looks: bool,
                         heat: Heat) -> list[DieReading]:
        """Dice the first look found as their pips, read whole where the reader is sure of them
        (reader.vision.close_dice): a die too big for the first two looks (the quarter look's
        candidates), then a D6 read 1 from a pip of a die the half-size look has around it."""
        for big, whole in self._read_whole(image, heat.quarter, looks):
            readings = close_dice.take_whole(readings, big, whole)
        pips = around(heat, [r.box for r in close_dice.read_as_one(readings)])
        for big, whole in self._read_whole(image, pips, looks):
            readings = close_dice.mend_pips(readings, big, whole)
        return readings

    def _read_whole(self, image: np.ndarray, finds, looks: bool) -> list[tuple[Box, DieReading | None]]:
        """Each find's box and the die read from it, in one pass of the looks (none where no find)."""
        boxes = [Box(*d.box) for d in finds]
        if not boxes:
            return []
        return [(b, self._decide(ev, b, looks)) for b, ev in zip(boxes, self._evidence(image, boxes, looks))]

    def _refuse_unlike_wider(self, image: np.ndarray, readings: list[DieReading], looks: bool) -> list[DieReading]:
        """The D6 readings that are no D6 in a wider cut refused: a face of a bigger die boxed alone;
        each read anew from a grown box, kept where it reads as the bigger die (reader.vision.wider)."""
        idx = wider.asked(readings)
        named = dict(zip(idx, self.faces.likeliest_types(image, [tuple(readings[i].box) for i in idx],
                                                         wider.WIDER, wider.VIEWS)))
        out = wider.refuse_unlike(readings, named)
        refused = [i for i, die in named.items() if die != readings[i].die]
        if not refused:  # the common case: no second look at the frame
            return out
        h, w = image.shape[:2]
        boxes = [wider.grown(readings[i].box, w, h) for i in refused]
        for i, b, ev in zip(refused, boxes, self._evidence(image, boxes, looks)):
            out[i] = wider.read_as_bigger(out[i], named[i], self._decide(ev, b, looks))
        return out

    def _judge_with_the_camera(self, image: np.ndarray, readings: list[DieReading], looks: bool,
                               leaned: list[DieReading] = ()) -> list[DieReading]:
        """The seen look's reading (with the looks), pieces refused, and, with a camera described, the
        dice seen too steeply refused and (with the looks) the leaning ones called cocked; `leaned`:
        readings already given a value with the lean look's p(leaning), not looked at again."""
        seen = self.seen if looks else None
        judged = frozenset(i for i, r in enumerate(readings) if any(r is x for x in leaned))
        if seen is not None:  # after the pieces are joined, a joined die is read from the camera's side too
            mine = seen.reads(readings, self.view, image.shape[1], image.shape[0])
            judged = judged | frozenset(mine)
            readings = seen.read_again(image, readings, self.view, self.lean, mine)
        readings = refuse_pieces(readings)  # keeps the readings' order: `judged` still names the same dice
        if self.view is not None:
            limits = seen.limits(STEEP_LIMITS) if seen is not None else STEEP_LIMITS
            readings = self.view.refuse_steep(readings, image.shape[1], image.shape[0], limits)
            if looks:
                readings = self.lean.refuse_leaning(image, readings, self.view, judged)
        return readings

    def _read_unsure_again(self, image: np.ndarray, boxes: list[Box], evs: list[FaceEvidence],
                           found: list[DieReading | None]) -> list[DieReading | None]:
        """The dice refused for low confidence alone, seen within their type's angle, decided again from
        the same evidence with the lean look's p(leaning) in place of the state head's p(cocked), at
        the thresholds set for such readings (reader.vision.lean.LeanThresholds)."""
        h, w = image.shape[:2]
        unsure = []
        for i, r in enumerate(found):
            if r is not None and r.reason == LOW_CONFIDENCE:
                t = self.lean_thresholds.threshold(r.die, self.view.slant(*boxes[i].center, w, h))
                if t is not None:
                    unsure.append((i, t))
        out = list(found)
        p = self.lean.p_leaning(image, [tuple(boxes[i]) for i, _ in unsure], self.view)
        for (i, t), pi in zip(unsure, p):
            again = self.faces.decide(replace(evs[i], cocked=float(pi)), boxes[i], allow_none=False,
                                      accept_by_die={found[i].die: t})
            if isinstance(again.outcome, Face):
                out[i] = again
        return out

    def _read_d20_from_above(self, image: np.ndarray, boxes: list[Box], evs: list[FaceEvidence],
                             found: list[DieReading | None]) -> list[DieReading | None]:
        """Without the looks: a D20 refused for low confidence that looks seen from straight above decided
        again (reader.vision.above) by the above look, else the lean look, where one is there and the rule
        is on."""
        look = self.look_from_above
        if look is None or not self.d20_from_above:
            return found
        return above.read_from_above(look, self.faces, image, boxes, evs, found, self.view)

    def _read_flat_again(self, image: np.ndarray, boxes: list[Box], evs: list[FaceEvidence],
                         found: list[DieReading | None]) -> list[DieReading | None]:
        """The dice the reader's state head calls cocked that the lean look, which knows where the
        camera sees them from, finds standing flat (reader.vision.lean.LeanLook.flat_among), decided
        again from the same evidence with its p(leaning) in place of the state head's p(cocked)."""
        out = list(found)
        for i, p in self.lean.flat_among(image, found, self.view).items():
            r = self._decide(replace(evs[i], cocked=p), boxes[i], True, allow_none=False)
            if isinstance(r.outcome, Face):
                out[i] = r
        return out

    def _join_pieces(self, image: np.ndarray, boxes: list[Box], found: list[DieReading | None], heat: Heat,
                     looks: bool = False) -> list[DieReading | None]:
        """Two boxes on one die read as one (reader.vision.pieces): a pair is joined only when the
        box holding both reads as an accepted face. `looks`: read as read_frame reads with them."""
        pairs = piece_pairs(boxes, found, heat.ridge)
        if not pairs:
            return found
        union = [p.union for p in pairs]
        unions = [self._decide(ev, p.union, looks) for p, ev in zip(pairs, self._evidence(image, union, looks))]
        out, used = list(found), set()
        for p, u in zip(pairs, unions):
            if not accepted(u) or p.i in used or p.j in used:
                continue
            out[p.i], out[p.j] = u, None
            used.update((p.i, p.j))
        return out

    def read_single(self, image: np.ndarray) -> DieReading:
        """The image shows one die, which may fill it. With a camera described, the photo is taken as its
        frame: the die is refused where it is seen too steeply and, with the looks, judged by them.

        Without one, a die refused is read again as a camera straight above it sees it (SINGLE_ABOVE),
        and that reading taken where it gives a value. Why: read without a camera, a D20 is held to the
        threshold set by D20 seen 21 degrees or more off vertical, which show a neighbour face squarely
        (reader v21: 0.98), and refused; a photo of one die is taken looking at it, mostly from above,
        and where it was not, the lean look, told so, finds the die leaning (a side face where a die
        seen from above shows none) and refuses it. Measured (session 43, models/reader.md; right /
        accepted wrong): crops-fickett 878 / 7 -> 1,125 / 8 (its D20 5 -> 252), type-lurig's faces read
        by eye 464 / 0 -> 513 / 0 (D8 241 -> 250, D10 190 -> 202, D20 33 -> 61, all photographed
        from above); rendered crops (camera 0-35 degrees off vertical, a tenth cocked) 1,497 / 14
        -> 1,630 / 19, cocked valued 41 -> 46: where a camera leans 30 degrees and more at one die
        alone, it cannot tell. The lean look sees that on renders, seldom on real photos: type-lurig's
        D20 photographed from the side are given a value 19 times of 337 so, 15 of the 17 on wood
        the face toward the camera (session 45; its off-angle ones, labeled, 2 right, none wrong). Since
        session 60 the photo read so is asked by the above look (models/reader_above.onnx) where there is
        one, as a D20 with no camera is (reader.vision.above): crops-fickett's D20 340 -> 355 of 2,720,
        none more wrong; type-lurig's D20 photographed from the side given a value 29 -> 21 times of 337."""
        return self.read_single_assumed(image)[0]

    def read_single_assumed(self, image: np.ndarray) -> tuple[DieReading, CameraView | None]:
        """read_single's reading, and the set-up it assumed for the photo (SINGLE_ABOVE) where it took
        the reading read as from straight above; None where it assumed none (a camera described, or
        the die read, or refused, without one). `read --jsonl --single` says so."""
        image = self._check(image)
        # with no camera the photo is read as given, and from above (SINGLE_ABOVE leans nowhere) too:
        # the die is found once (in a big photo, several looks of the detector); it is read as it came, no
        # cast taken out (white_balance.MIN_DICE: one die's own colour is a cast to the estimate)
        found = (find_single_die(self.detector, image),) if self.view is None else None
        reading = self._read_single(image, found)
        if reading.value is None and self.view is None and self.single_from_above and self.look_from_above is not None:
            straight = copy.copy(self)  # a copy: a reader may be shared
            straight.view, straight.lean = SINGLE_ABOVE, self.look_from_above  # a die seen straight down
            again = straight._read_single(image, found)
            if again.value is not None:
                (again,) = self._last_checks(image, [again])  # a die too small, or a lone dot, either way
                return again, (SINGLE_ABOVE if again.value is not None else None)
        return self._last_checks(image, [reading])[0], None

    def _last_checks(self, image: np.ndarray, readings: list[DieReading]) -> list[DieReading]:
        """The last steps of a frame's reading and of a single photo's: each value judged by its die's
        size in the picture (reader.vision.legible), a D6's 1 by the die's edge around its pip
        (reader.vision.lone_dot), and a D10, D12 or D20 by the percentile check
        (reader.vision.percentile), whichever look gave the value."""
        readings = lone_dot.refuse_lone_dots(image, legible.judge_size(readings))
        return self.percentile.refuse(image, readings) if self.percentile is not None else readings

    def _read_single(self, image: np.ndarray, found_as_is: tuple | None = None) -> DieReading:
        """read_single as this reader's camera (or none) sees the die, read once; `found_as_is`: (the
        die's box or None,) as find_single_die gives it for the photo as given, where the caller has it
        already, used unless the photo is read turned."""
        image = self._check(image)
        h, w = image.shape[:2]
        k, upright = self._upright(image)
        if k:  # as read_frame does
            reading = upright._read_single(turned(image, k))
            return replace(reading, box=Box(*turned_back(tuple(reading.box), k, w, h)))
        whole_photo = (0.0, 0.0, float(w), float(h))
        found = found_as_is[0] if found_as_is is not None else find_single_die(self.detector, image)
        smaller = found is not None and found.side < FILLS_IMAGE * max(w, h)  # read alone, without the photo
        # the detector's own threshold already dropped the doubtful finds
        candidates = ([] if found is None else [tuple(found)]) + ([] if smaller else [whole_photo])
        looks = self._looks()
        evidence = self._evidence(image, candidates, looks, check_state=True)
        # the box whose reading is most sure it shows a die
        none_i = self.faces.types.index("none") if "none" in self.faces.types else None
        def die_prob(ev):
            return 1.0 - (ev.type_probs[none_i] if none_i is not None else 0.0)
        if smaller and die_prob(evidence[0]) < PIECE_DIE:
            whole = self._evidence(image, [whole_photo], looks, check_state=True)[0]
            if die_prob(whole) > WHOLE_DIE:  # a piece of the die that fills the photo
                candidates, evidence = [whole_photo], [whole]
        k = int(np.argmax([die_prob(ev) for ev in evidence]))
        box = Box(*candidates[k])
        reading = self._decide(evidence[k], box, looks, allow_none=False)
        if not looks:
            reading = self._read_d20_from_above(image, [box], [evidence[k]], [reading])[0]
        if self.view is not None:  # a photo of one die taken by the described camera: judged as in a frame
            found, leaned = [reading], []
            if looks:
                found, leaned = self._read_again_with_lean(image, [box], [evidence[k]], found)
            reading = self._judge_with_the_camera(image, found, looks, leaned)[0]
        return reading
