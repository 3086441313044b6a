"""The read and evaluate commands with the real ONNX models on real photos.

Skipped when models/ has no ONNX models or ../shared/realdata is absent (CI has the models, not
the photos). Figures are not asserted here beyond "it reads dice" and one floor where the issue
sets a target a user sees directly (a lone die named by its type): the targets are reported by
`dice-reader evaluate`, not hidden in a test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from reader.vision.realdata import load_set, realdata_root
from reader.vision.recognizer import Recognizer

ROOT = Path(__file__).resolve().parents[1]
HAS_MODELS = any((ROOT / "models").glob("*.onnx"))
TRAY = realdata_root() / "tray-mixed-bartek"

pytestmark = [
    pytest.mark.skipif(not HAS_MODELS, reason="no ONNX models in models/"),
    pytest.mark.skipif(not (TRAY / "labels.jsonl").is_file(), reason="../shared/realdata absent"),
]


def cli(*argv):
    return subprocess.run([sys.executable, "-m", "reader.cli", *argv], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_read_jsonl_on_real_tray_photos_and_a_bad_file(tmp_path):
    images = [str(im.path) for im in load_set(TRAY)[:2]]
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not a jpeg")
    proc = cli("read", "--jsonl", images[0], str(bad), images[1])
    assert proc.returncode == 1, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [o["image"] for o in out] == [images[0], str(bad), images[1]]
    assert "error" in out[1]
    for o in (out[0], out[2]):
        assert len(o["dice"]) >= 5  # these scenes hold 9-10 dice
        for d in o["dice"]:
            assert d["state"] in ("flat", "cocked", "unreadable")
            assert (d["value"] is None) == (d["state"] != "flat")
            x0, y0, x1, y1 = d["box"]
            assert 0 <= x0 < x1 <= 360 + 1 and 0 <= y0 < y1 <= 640 + 1


LURIG = realdata_root() / "type-lurig"


@pytest.mark.skipif(not (LURIG / "labels.jsonl").is_file(), reason="type-lurig absent")
def test_a_lone_die_in_the_middle_of_its_photo_is_named_by_its_type():
    """type-lurig's dice span 36-53% of their photos: read from the whole photo they are smaller
    than any die the reader learnt, and a D8 became a D10 (95% typed right, where the target is
    98%); read from the detector's box, 99%. The floor is on the holdout photos never trained on."""
    rec = Recognizer.load()
    items = [li for li in load_set(LURIG) if li.holdout][:200]
    right = sum(rec.read_single(cv2.imread(str(li.path))).die == li.dice[0].die for li in items)
    assert right >= 0.98 * len(items), f"{right} of {len(items)} typed right"


def test_evaluate_json_on_a_few_real_images(tmp_path):
    proc = cli("evaluate", str(TRAY), "--limit", "3", "--json", "--sheet", str(tmp_path / "s.png"))
    assert proc.returncode == 0, proc.stderr
    (s,) = json.loads(proc.stdout)["sets"]
    assert s["images"] == 3 and s["set"] == "tray-mixed-bartek (holdout)"
    assert s["found"] > s["dice"] / 2
