"""The top faces read by eye on type-lurig (models/train/lurig_values.json), which the second look
trains on: each must name a photo of that set, taken from above, of a die that has that face, and
the faces must come in runs (a turntable turns the die about the vertical, so its face up stays
the same from one file to the next). Skipped when ../shared/realdata is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reader.dice import FACES
from reader.vision.realdata import load_set, realdata_root

VALUES = Path(__file__).resolve().parents[1] / "models" / "train" / "lurig_values.json"
LURIG = realdata_root() / "type-lurig"

pytestmark = pytest.mark.skipif(not (LURIG / "labels.jsonl").is_file(), reason="type-lurig absent")


@pytest.fixture(scope="module")
def values() -> dict[str, int]:
    return json.loads(VALUES.read_text())["values"]


@pytest.fixture(scope="module")
def photos() -> dict:
    return {li.name: li for li in load_set(LURIG)}


def test_every_value_names_a_photo_from_above_of_a_die_with_that_face(values, photos):
    for name, value in values.items():
        assert name in photos, name
        die = photos[name].dice[0].die
        assert die in ("d8", "d10", "d20"), name
        assert 1 <= value <= FACES[die], (name, value)
        assert "off-angle" not in name and "wood" not in name, name


@pytest.mark.parametrize("die", ["d8", "d10", "d20"])
def test_faces_come_in_turntable_runs(values, photos, die):
    names = sorted(n for n in values if photos[n].dice[0].die == die)
    runs = 1 + sum(values[a] != values[b] for a, b in zip(names, names[1:]))
    # ten or so dice-and-face runs of 12-40 photos each, not a value per photo
    assert 8 <= runs <= 14, runs
    assert len(names) / runs >= 15


def test_the_faces_make_a_set_evaluate_scores_with_each_photo_its_face(tmp_path, values, photos):
    """models.train.lurig_faces_set: the faces read by eye as a labeled set (links, labels.jsonl)
    that evaluate reads, each photo with its type from type-lurig and its face from the file."""
    pytest.importorskip("torch")  # a training tool: skipped where the train extra is absent, as in CI
    from models.train.lurig_faces_set import write

    counts = write(tmp_path / "faces")
    got = {li.name: li for li in load_set(tmp_path / "faces")}
    assert set(got) == set(values) and sum(counts.values()) == len(values)
    for name, li in got.items():
        (die,) = li.dice
        assert die.value == values[name] and die.die == photos[name].dice[0].die and die.box is None
        assert li.path.resolve() == photos[name].path.resolve()
