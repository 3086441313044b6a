"""`dice-reader bench`: composed 1280x720 frames and the printed figures (no timing asserted)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from reader.cli import build_parser
from reader.commands import bench


class CountingRecognizer:
    """Test fake: finds nothing, remembers the frames it was handed."""

    def __init__(self):
        self.shapes = []
        self.frames = set()
        self.view = None

    def read_frame(self, bgr):
        self.shapes.append(bgr.shape)
        self.frames.add(bgr.tobytes())
        return []


@pytest.mark.parametrize("n", [
    pytest.param(0, id="empty tray"),
    pytest.param(1, id="one die"),
    pytest.param(10, id="ten dice, none overlapping"),
])
def test_composed_frame_has_n_separate_dice_inside_it(n):
    rng = np.random.default_rng(3)
    _, crops = bench.die_images("drawn", limit=8, rng=rng)
    frame, boxes = bench.compose_frame(crops, n, rng)
    assert frame.shape == (720, 1280, 3) and frame.dtype == np.uint8
    assert len(boxes) == n
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        assert 0 <= x0 < x1 <= 1280 and 0 <= y0 < y1 <= 720
        assert 40 <= x1 - x0 <= 130  # a tray-camera die size
        for (a0, b0, a1, b1) in boxes[i + 1:]:
            assert x1 <= a0 or a1 <= x0 or y1 <= b0 or b1 <= y0  # no overlap
        # the die is really there: its pixels differ from the plain background around it
        patch = frame[y0:y1, x0:x1].astype(int)
        assert patch.std() > 20


def test_drawn_die_shows_its_pips():
    rng = np.random.default_rng(0)
    one = bench.draw_die(1, 60, rng)
    six = bench.draw_die(6, 60, rng)
    assert one.shape[2] == 4  # BGRA: the corners are not pasted
    dark = lambda d: int(((d[:, :, :3].max(axis=2) < 80) & (d[:, :, 3] > 250)).sum())  # noqa: E731
    assert dark(six) > 4 * dark(one) > 0


def test_bench_prints_a_row_per_dice_count_and_peak_memory(capsys):
    rec = CountingRecognizer()
    args = build_parser().parse_args(["bench", "--runs", "6", "--warmup", "1", "--source", "drawn",
                                      "--dice", "1,4,10", "--json"])
    assert bench.run(args, recognizer=rec) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["dice"] for r in out["rows"]] == [1, 4, 10]
    assert all(r["runs"] == 6 and r["ms_p95"] >= r["ms_p50"] >= 0 for r in out["rows"])
    assert out["peak_rss_mb"] > 10 and out["frame"] == "1280x720"
    assert rec.shapes == [(720, 1280, 3)] * 21  # (1 warm-up + 6 timed) x 3 rows
    # every frame read is a layout of its own: a costly one read over and over would weigh in the mean
    assert len(rec.frames) == 21
    assert all(r["ms_max"] >= r["ms_p95"] for r in out["rows"])


@pytest.mark.parametrize("options, camera, guess", [
    pytest.param([], None, False, id="no camera: every die read as if from above"),
    pytest.param(["--camera-fov", "70", "--camera-tilt", "10", "--lean-look"],
                 {"hfov": 70.0, "tilt": 10.0, "lean": True}, False, id="timed as watch reads with the lean look"),
    pytest.param(["--guess-camera"], "guessed where refused", True, id="timed as read --guess-camera reads"),
])
def test_bench_reads_with_the_camera_it_is_told_of(capsys, options, camera, guess):
    rec = CountingRecognizer()
    args = build_parser().parse_args(["bench", "--runs", "1", "--warmup", "0", "--source", "drawn",
                                      "--dice", "1", "--json", *options])
    assert bench.run(args, recognizer=rec) == 0
    assert json.loads(capsys.readouterr().out)["camera"] == camera
    assert (rec.view.to_json() if rec.view is not None else None) == (camera if isinstance(camera, dict) else None)
    assert getattr(rec, "guess_view", False) == guess


def test_the_bench_cuts_its_dice_from_tray_frames_not_from_single_die_crops():
    # fixtures/single-d20's 128 px crops, scaled as a frame's dice are, would fill the frame
    where, crops = bench.die_images("fixtures", limit=20)
    assert where == "fixtures (fixtures/stills)"
    assert max(max(c.shape[:2]) for c in crops) < 200


def test_bench_text_output(capsys):
    args = build_parser().parse_args(["bench", "--runs", "2", "--warmup", "0", "--source", "drawn"])
    assert bench.run(args, recognizer=CountingRecognizer()) == 0
    out = capsys.readouterr().out
    assert "peak memory (RSS high-water):" in out
    assert [line.split()[0] for line in out.splitlines()[2:5]] == ["1", "4", "10"]


def test_dice_are_cut_from_finished_recordings_only(tmp_path):
    import cv2

    def recording(folder, box):
        (folder / "frames").mkdir(parents=True)
        img = np.full((240, 320, 3), 50, np.uint8)
        x0, y0, x1, y1 = box
        img[y0:y1, x0:x1] = 220
        cv2.imwrite(str(folder / "frames" / "000000.png"), img)
        events = [{"t": 0.0, "type": "frame", "index": 0, "file": "frames/000000.png"},
                  {"t": 0.0, "type": "truth", "frame": 0,
                   "dice": [{"die": "d6", "value": 2, "box": list(box), "state": "flat"}]}]
        (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))

    recording(tmp_path / "roll" / "0001", (100, 50, 140, 90))
    recording(tmp_path / "roll" / "0002.partial", (10, 10, 60, 60))  # unfinished: not used
    crops = bench._crops_from_recordings(tmp_path, limit=10)
    # a 40 px die in a 320 px wide frame is 160 px in a 1280 px wide one
    assert [c.shape for c in crops] == [(160, 160, 3)]
    assert crops[0][2:-2, 2:-2].min() == 220  # the die, not the tray around it
