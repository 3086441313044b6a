"""Settle detection: a roll is read once, after motion and settle_s of stillness, and only then."""

from __future__ import annotations

import numpy as np
import pytest

from reader.settle import (
    Motion,
    SettleConfig,
    SettleDetector,
    Settled,
    changed_fraction,
    for_dice,
    small_view,
)
from tray_fakes import tray

FPS = 10.0


def run(frames, settle_s=0.5, triggers=()):
    det = SettleDetector(SettleConfig(settle_s=settle_s))
    out = []
    for i, img in enumerate(frames):
        t = i / FPS
        if i in triggers:
            m = det.trigger(t)
            if m:
                out.append((i, m))
        v = det.update(t, small_view(img))
        if v:
            out.append((i, v))
    return out


def still(pos, n):
    return [tray(pos)] * n


def moving(start, step, n):
    return [tray([(start[0] + step * k, start[1] + step * k)]) for k in range(1, n + 1)]


def kinds(verdicts):
    return [type(v).__name__ for _, v in verdicts]


@pytest.mark.parametrize(
    "frames, expected",
    [
        (still([(20, 20)], 20), []),  # an idle tray: nothing
        (still([(20, 20)], 3) + moving((20, 20), 8, 5) + still([(60, 60)], 10),
         ["Motion", "Settled"]),  # a roll: motion, then one verdict
        (still([(20, 20)], 3) + moving((20, 20), 8, 5) + still([(60, 60)], 4),
         ["Motion"]),  # still for 0.4 s only: no verdict yet
        (still([(20, 20)], 3) + moving((20, 20), 8, 5) + still([(60, 60)], 3)
         + moving((60, 60), 5, 2) + still([(70, 70)], 10),
         ["Motion", "Settled"]),  # a die tipping over late restarts the wait: read once, at the end
        (still([(20, 20)], 3) + moving((20, 20), 8, 5) + still([(60, 60)], 10)
         + moving((60, 60), 8, 3) + still([(84, 84)], 10),
         ["Motion", "Settled", "Motion", "Settled"]),  # two rolls
    ],
    ids=["idle", "one roll", "not still long enough", "late tip-over", "two rolls"],
)
def test_verdicts(frames, expected):
    assert kinds(run(frames)) == expected


def test_settled_reports_stillness_and_reads_the_right_frame():
    frames = still([(20, 20)], 3) + moving((20, 20), 8, 5) + still([(60, 60)], 10)
    (_, m), (i, s) = run(frames, settle_s=0.5)
    assert isinstance(m, Motion) and m.source == "camera" and m.t == pytest.approx(0.3)
    assert isinstance(s, Settled)
    assert s.still_since == pytest.approx(0.7)  # the last moving frame already shows the rest
    assert s.still_s >= 0.5 and i == 12  # 0.7 + 0.5 = 1.2 s
    assert not s.triggered and s.changed > 0


@pytest.mark.parametrize("settle_s, frame", [(0.3, 10), (1.0, 17)], ids=["short", "long"])
def test_settle_time_is_configurable(settle_s, frame):
    frames = still([(20, 20)], 3) + moving((20, 20), 8, 5) + still([(60, 60)], 15)
    (_, _), (i, s) = run(frames, settle_s=settle_s)
    assert i == frame


def test_slow_creep_never_looks_still():
    # one pixel every other frame: each pair of frames looks still, the drift does not
    frames = still([(20, 20)], 3) + moving((20, 20), 8, 2)
    x = 36.0
    for k in range(40):
        x += 1 if k % 2 == 0 else 0
        frames.append(tray([(x, x)]))
    assert kinds(run(frames)) == ["Motion"]


def test_hand_resting_still_in_the_tray_is_not_a_roll():
    frames = still([(20, 20)], 3) + [tray([(20, 20)], hand=True)] * 12
    v = run(frames)
    assert kinds(v) == ["Motion", "NotARoll"]
    assert "hand" in v[1][1].reason


def test_hand_moving_in_the_tray_never_settles():
    frames = still([(20, 20)], 3)
    for k in range(30):
        img = tray([(20, 20)], hand=True)
        img = np.roll(img, k * 3, axis=1)
        frames.append(img)
    assert kinds(run(frames)) == ["Motion"]


def test_unchanged_tray_is_never_read_again_even_after_a_tower_drop():
    bump = [tray([(21, 21)])]  # one frame of shake, then the same tray
    frames = still([(20, 20)], 3) + bump + still([(20, 20)], 10)
    v = run(frames)
    assert kinds(v) == ["Motion", "NotARoll"] and "bump" in v[1][1].reason
    v = run(frames, triggers=(2,))  # the tower says dice fell, but the tray shows the old dice
    assert kinds(v) == ["Motion", "NotARoll"] and v[0][1].source == "tower"
    assert "tray did not change" in v[1][1].reason


def test_tower_trigger_on_a_still_tray_starts_the_wait():
    frames = still([(20, 20)], 3) + still([(40, 40)], 12)  # dice appear between two frames
    v = run(frames, triggers=(2,))
    assert kinds(v) == ["Motion", "Settled"] and v[1][1].triggered


def test_reset_forgets_the_roll_in_progress():
    det = SettleDetector()
    det.update(0.0, small_view(tray([(20, 20)])))
    assert isinstance(det.update(0.1, small_view(tray([(40, 40)]))), Motion)
    det.reset()
    assert det.state == "idle"
    assert det.update(0.2, small_view(tray([(40, 40)]))) is None


def test_colour_change_at_equal_grey_is_motion():
    a = np.full((40, 40, 3), (60, 90, 60), np.uint8)
    b = a.copy()
    b[10:20, 10:20] = (60, 60, 135)  # same grey level, different colour
    assert changed_fraction(small_view(a), small_view(b)) > 0.02


@pytest.mark.parametrize("bad", [dict(settle_s=0), dict(settle_s=-1), dict(motion_fraction=2.0)],
                         ids=["zero settle", "negative settle", "fraction over 1"])
def test_bad_config_is_refused(bad):
    with pytest.raises(ValueError):
        SettleConfig(**bad)


@pytest.mark.parametrize("config, share, motion, drift", [
    pytest.param(SettleConfig(), 0.0077, 0.002, 0.004, id="dice 0.77% of the frame: the defaults stand"),
    pytest.param(SettleConfig(), 0.0031, 0.00155, 0.0031, id="dice 0.31%: motion at half a die, creep at one"),
    pytest.param(SettleConfig(), 0.0007, 0.001, 0.002, id="dice 0.07%: never under half the defaults"),
    pytest.param(SettleConfig(motion_fraction=0.0008, drift_fraction=0.0016), 0.0031, 0.0008, 0.0016,
                 id="a config set lower by hand is never raised"),
])
def test_the_motion_check_is_scaled_down_to_small_dice(config, share, motion, drift):
    scaled = for_dice(config, share)
    assert scaled.motion_fraction == pytest.approx(motion)
    assert scaled.drift_fraction == pytest.approx(drift)
    assert scaled.settle_s == config.settle_s and scaled.min_change_fraction == config.min_change_fraction
