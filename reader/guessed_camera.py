"""The tray camera's set-up guessed from the dice of every roll read so far: the live loop's camera
guess (`watch --guess-camera`, `serve --guess-camera`).

Why: the reader reads far more with the camera described (reader.vision.viewing and the lean look),
most of all the D20, which without it is held to the threshold set by D20 seen steeply and is
seldom read. A camera measured with `dice-reader camera` is best; where nobody measured it, one frame
of three or more dice tells it (reader.vision.camera_guess), but a banish roll is one die. The camera
at a table stands still, so every roll's dice are evidence of the same set-up, and they add up
(CameraEvidence): on rendered sessions of 14 rolls of 1-3 dice each, one fixed camera 0-30 degrees
off vertical (models/reader.md, "Session 43"), the rolls read with the pooled guess come within a
die of those read with the true camera, where each roll guessed alone or no camera read fewer.

Each roll is read with the guess as it stands after its own dice are added, and its manifest records
the set-up it was read with (camera.view, plus camera.guessed: how many dice the guess rests on), so
`replay` reads the roll again exactly so. The evidence is dropped when the frame size changes or the
camera is lost (it may come back moved), and the older rolls' when the last few tell of another set-up
(a camera bumped on the table, CameraEvidence.dropped): the table hears of it and the roll's manifest
says how many dice were dropped (camera.guessed.dropped).
"""

from __future__ import annotations

import numpy as np

from reader.reading import DieReading
from reader.vision.camera_guess import CameraEvidence, CameraGuess


class GuessedCamera:
    """The evidence of the rolls so far and the set-up it gives; `read` reads a roll's settled frame."""

    def __init__(self) -> None:
        self.evidence: CameraEvidence | None = None
        self.size: tuple[int, int] | None = None
        self.guess: CameraGuess | None = None

    def forget(self) -> None:
        """Start again: the camera may have moved (it was lost, or the frame size changed)."""
        self.evidence, self.size, self.guess = None, None, None

    def read(self, recognizer, image: np.ndarray) -> tuple[list[DieReading], str | None]:
        """The frame's readings with the set-up its dice and the earlier rolls' give (as if seen from
        above until there are enough dice to tell), and a line for the table when the set-up read with
        changed (None otherwise)."""
        size = tuple(image.shape[:2])
        if self.evidence is None or size != self.size:
            self.forget()
            self.evidence, self.size = CameraEvidence(), size
        before = self.guess.view if self.guess is not None else None
        readings, self.guess = recognizer.read_frame_guessing(image, self.evidence)
        after = self.guess.view if self.guess is not None else None
        if self.evidence.dropped:
            return readings, (f"the camera seems to have moved: the last {self.evidence.dice} dice do not fit the "
                              f"set-up guessed before; the {self.evidence.dropped} dice of the earlier rolls dropped, "
                              f"set-up guessed again: {after.describe()} (`dice-reader camera` measures it)")
        if after == before or after is None:
            return readings, None
        return readings, (f"set-up guessed from the {self.evidence.dice} dice of the rolls so far: {after.describe()} "
                          "(`dice-reader camera` measures it)")

    def manifest_camera(self, camera: dict) -> dict:
        """A roll's manifest camera with the set-up it was read with: camera.view (what replay reads
        with) and camera.guessed; as given where there is no guess yet (read as if seen from above)."""
        if self.guess is None:
            return camera
        guessed = {"dice": self.evidence.dice, "over_straight": round(self.guess.over_straight, 3)}
        if self.evidence.dropped:
            guessed["dropped"] = self.evidence.dropped
        return {**camera, "view": self.guess.view.to_json(), "guessed": guessed}
