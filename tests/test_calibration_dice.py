"""The reader's calibration dice can be gathered again on a fresh machine (models/train/calib_set):
each die of a rendered tray frame becomes one, labelled as the frame says, unless the frame's edge
cuts it. Needs the training extras (torch)."""

import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

pytest.importorskip("torch")

from models.train.nets import STATES, TYPES  # noqa: E402
from models.train.reader_data import synth_scene_patches  # noqa: E402


def _scene(folder, dice):
    folder.mkdir()
    img = np.full((120, 200, 3), 90, np.uint8)
    cv2.imwrite(str(folder / "0000000.jpg"), img)
    (folder / "labels.jsonl").write_text(json.dumps({"image": "0000000.jpg", "dice": dice}) + "\n"
                                         + '{"image": "0000001.jpg", "dice": [{"die": "d6"\n')


@pytest.mark.parametrize("name, die, kept, value, state", [
    ("flat d20 inside the frame", {"die": "d20", "value": 17, "box": [20, 20, 50, 52], "state": "flat"}, True, 17, "flat"),
    ("cocked d8 keeps no value", {"die": "d8", "value": None, "box": [60, 30, 90, 60], "state": "cocked"}, True, None, "cocked"),
    ("d4 is typed, never valued", {"die": "d4", "value": 3, "box": [100, 30, 130, 60], "state": "flat"}, True, None, "flat"),
    ("die cut by the left edge", {"die": "d6", "value": 2, "box": [0.0, 40, 20, 60], "state": "flat"}, False, None, None),
    ("die cut by the bottom edge", {"die": "d10", "value": 10, "box": [150, 100, 180, 120.0], "state": "flat"}, False, None, None),
])
def test_a_rendered_frame_gives_each_whole_die_as_a_calibration_die(tmp_path, name, die, kept, value, state):
    _scene(tmp_path / "scenes", [die])
    p = synth_scene_patches(tmp_path / "scenes")
    assert len(p) == (1 if kept else 0), name
    if kept:
        assert TYPES[p.type_idx[0]] == die["die"]
        assert p.face_idx[0] == (-1 if value is None else value - 1)
        assert STATES[p.state_idx[0]] == state
        assert p.source == ["synth-scenes"]
        assert p.images[0].shape[:2] == (144, 144)


LURIG = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "type-lurig"
VALUES = Path(__file__).resolve().parents[1] / "models" / "train" / "lurig_values.json"


@pytest.mark.skipif(not LURIG.is_dir(), reason="needs ../shared/realdata/type-lurig")
def test_a_look_taught_lurig_s_d20_faces_is_calibrated_on_their_holdout_fifth_alone(tmp_path):
    """calib_set --lurig-taught d20: the D20 photos a look was taught (the training four-fifths) are
    left out of the calibration dice; the holdout fifth's stay, and so do the other types' photos."""
    from models.train.calib_set import lurig_faces
    from reader.vision.realdata import is_holdout, load_set

    boxes = tmp_path / "boxes.json"
    boxes.write_text("{}")  # no detector boxes: each photo's middle, as single_die_patches falls back to
    values = json.loads(VALUES.read_text())["values"]
    die_of = {im.name: im.dice[0].die for im in load_set(LURIG) if im.dice}
    valued = [k for k in values if k in die_of]
    every = Counter(TYPES[t] for t in lurig_faces(boxes, VALUES).type_idx)
    taught = Counter(TYPES[t] for t in lurig_faces(boxes, VALUES, ("d20",)).type_idx)
    held_d20 = sum(1 for k in valued if die_of[k] == "d20" and is_holdout("type-lurig", k))
    assert every["d20"] == sum(1 for k in valued if die_of[k] == "d20")
    assert 0 < taught["d20"] == held_d20 < every["d20"]
    assert {d: n for d, n in taught.items() if d != "d20"} == {d: n for d, n in every.items() if d != "d20"}
