"""When is a roll over? Motion energy between small frames, and a small state machine.

    idle --motion or tower trigger--> moving --no motion--> still --settle_s of stillness--> verdict

The verdict is `Settled` (read this frame) or `NotARoll`: the tray changed too much (a hand
resting in it), or not at all (a bump, or a tower drop whose dice never reached the tray: reading
the unchanged tray would read the previous roll's dice again). Stillness is judged against both the
previous frame and the frame where stillness began, so dice creeping slowly never look still.
A hand in the tray moves (no verdict) or, resting still, covers far more of the tray than dice
can (NotARoll). Pure: numpy/cv2 arithmetic on arrays handed in, no camera, no clock of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Union

import numpy as np

SMALL_WIDTH = 160  # frames are compared at this width: fast, and blind to sensor noise


def small_view(bgr: np.ndarray, width: int = SMALL_WIDTH) -> np.ndarray:
    """Downscaled, slightly blurred colour image used for all motion measures. Colour, not grey:
    a red die on a green felt can have the felt's exact grey level."""
    import cv2

    h, w = bgr.shape[:2]
    scale = min(1.0, width / float(w))
    small = cv2.resize(bgr, (max(1, int(w * scale)), max(1, int(h * scale))), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (3, 3), 0)


def changed_fraction(a: np.ndarray, b: np.ndarray, pixel_threshold: int = 18) -> float:
    """Fraction of pixels where some colour channel differs by more than `pixel_threshold`, after
    removing the global shift of each channel (auto exposure, a cloud: light, not dice)."""
    if a.shape != b.shape:
        return 1.0  # the camera changed resolution: everything changed
    diff = a.astype(np.int16) - b.astype(np.int16)
    flat = diff.reshape(-1, diff.shape[2]) if diff.ndim == 3 else diff.reshape(-1, 1)
    shift = np.median(flat, axis=0).astype(np.int16)
    diff = np.abs(diff - (shift if diff.ndim == 3 else shift[0]))
    if diff.ndim == 3:
        diff = diff.max(axis=2)
    return float(np.count_nonzero(diff > pixel_threshold)) / diff.size


@dataclass(frozen=True)
class SettleConfig:
    settle_s: float = 0.5  # the tray must be still this long
    motion_fraction: float = 0.002  # more than this fraction changed between frames = motion
    drift_fraction: float = 0.004  # changed since stillness began = still moving (slow creep)
    max_change_fraction: float = 0.35  # more than this changed vs the empty tray = not dice (hand)
    min_change_fraction: float = 0.0005  # less than this changed and no trigger = nothing rolled
    pixel_threshold: int = 18

    def __post_init__(self) -> None:
        if not 0.0 < self.settle_s <= 30.0:
            raise ValueError(f"settle time {self.settle_s} s must be in (0, 30]")
        for name in ("motion_fraction", "drift_fraction", "max_change_fraction", "min_change_fraction"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be a fraction in [0, 1]")


# The least share of the frame the motion check counts as motion, and as creep, however small the
# dice (for_dice): half the defaults. Under them a camera's noise and compression could keep a still
# tray moving; no real camera's noise was measured here (rendered still frames change 0.0%).
MOTION_FLOOR = 0.001
DRIFT_FLOOR = 0.002


def for_dice(config: SettleConfig, die_share: float) -> SettleConfig:
    """`config` with its motion and creep thresholds lowered to dice that each cover `die_share` of
    the frame: motion at half a die's area, creep at a whole one, never above the config's own and
    never under the floors. A lone die moving changes about its own area; under the default 0.2% of
    the frame it went unseen. The bundled banish recording (one die a roll) set in a frame 1.75
    times its side, the die 0.25% of the frame, had a D8 read mid-roll and another missed; at 1.5
    times (0.34%) all three were read."""
    motion = min(config.motion_fraction, max(MOTION_FLOOR, 0.5 * die_share))
    drift = min(config.drift_fraction, max(DRIFT_FLOOR, die_share))
    return replace(config, motion_fraction=motion, drift_fraction=drift)


@dataclass(frozen=True)
class Motion:
    """A roll started: motion seen (source "camera") or dice dropped (source "tower")."""

    t: float
    source: str


@dataclass(frozen=True)
class Settled:
    """Still for `still_s` since `still_since`: read the frame at `t`."""

    t: float
    still_since: float
    still_s: float
    changed: float  # fraction of the tray that differs from before the roll
    triggered: bool


@dataclass(frozen=True)
class NotARoll:
    t: float
    reason: str


Verdict = Union[Motion, Settled, NotARoll]

IDLE, MOVING, STILL = "idle", "moving", "still"


class SettleDetector:
    """Feed `update(t, small)` for every frame and `trigger(t)` for a tower drop."""

    def __init__(self, config: SettleConfig | None = None) -> None:
        self.config = config or SettleConfig()
        self.state = IDLE
        self._prev: np.ndarray | None = None
        self._prev_t = 0.0
        self._background: np.ndarray | None = None  # the tray before the roll
        self._still_ref: np.ndarray | None = None
        self._still_since = 0.0
        self._triggered = False
        self.last_energy = 0.0

    def scale_to_dice(self, die_share: float) -> SettleConfig | None:
        """Lower the motion and creep thresholds to dice that each cover `die_share` of the frame
        (for_dice); the config it had when that changed anything, else None."""
        before, self.config = self.config, for_dice(self.config, die_share)
        return before if self.config != before else None

    def reset(self) -> None:
        """Forget the roll in progress (camera lost): the next frame is a new background."""
        self.state = IDLE
        self._prev = self._background = self._still_ref = None
        self._triggered = False

    def trigger(self, t: float) -> Motion | None:
        """The tower saw dice fall. Starts a roll (or marks the one under way as triggered)."""
        self._triggered = True
        if self.state == IDLE:
            self.state = MOVING
            return Motion(t, "tower")
        if self.state == STILL:  # dice falling onto a still tray: stillness starts over
            self.state = MOVING
        return None

    def update(self, t: float, small: np.ndarray) -> Verdict | None:
        c = self.config
        prev, self._prev = self._prev, small
        prev_t, self._prev_t = self._prev_t, t
        if prev is None:
            self._background = small
            return None
        energy = changed_fraction(prev, small, c.pixel_threshold)
        self.last_energy = energy
        moving = energy > c.motion_fraction
        if self.state == IDLE:
            if moving:
                self.state = MOVING
                return Motion(t, "camera")
            self._background = small  # slow light changes follow the idle tray
            return None
        if self.state == MOVING:
            if not moving:
                self.state = STILL
                self._still_since = prev_t  # the last frame that moved already shows the rest
                self._still_ref = small
            return None
        # STILL
        drift = changed_fraction(self._still_ref, small, c.pixel_threshold)
        if moving or drift > c.drift_fraction:
            self.state = MOVING
            return None
        if t - self._still_since + 1e-9 < c.settle_s:
            return None
        return self._verdict(t, small)

    def _verdict(self, t: float, small: np.ndarray) -> Verdict:
        c = self.config
        triggered, self._triggered = self._triggered, False
        self.state = IDLE
        changed = changed_fraction(self._background, small, c.pixel_threshold) \
            if self._background is not None else 0.0
        self._background = small
        if changed > c.max_change_fraction:
            return NotARoll(t, f"{changed:.0%} of the tray changed: something large is in it "
                               "(a hand?), not dice")
        if changed < c.min_change_fraction:
            # never read an unchanged tray: it would read the previous roll's dice again
            if triggered:
                return NotARoll(t, "the tower saw dice fall but the tray did not change "
                                   "(dice stuck in the tower, or missed the tray?)")
            return NotARoll(t, "the tray moved but nothing in it changed (a bump?)")
        return Settled(t, self._still_since, t - self._still_since, changed, triggered)
