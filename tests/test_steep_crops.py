"""A tight-cut look must not be taught a top face it cannot see: crops seen steeply are split off by
their camera's angle (models.train.slant_split) and taught as no face at all (train_top_face
--unsure). Wrong here, the D20 look learns to doubt every D20 again, or to name a neighbour face
surely (models/reader.md, "Session 34")."""

import json

import numpy as np
import pytest

# The split needs no torch; the loss tests below do (a training extra, absent from CI's install), and
# skip without it.


def rows(*angles):
    return [json.dumps({"image": f"{i:07d}.jpg", "dice": [{"die": "d20", "value": 1}],
                        "camera": {"off_vertical_deg": a}}) for i, a in enumerate(angles)]


# (angles, near, steep) -> (images kept near, images kept steep); the band between goes nowhere
SPLIT_CASES = {
    "straight above is near": ((0.0, 3.0), 15, 25, [0, 1], []),
    "the limits themselves: near includes, steep excludes": ((15.0, 25.0), 15, 25, [0], []),
    "the band between is left out": ((16.0, 20.0, 24.9), 15, 25, [], []),
    "beyond steep": ((25.1, 40.0, 55.0), 15, 25, [], [0, 1, 2]),
    "no band: every crop one or the other": ((10.0, 20.0, 21.0), 20, 20, [0, 1], [2]),
}


@pytest.mark.parametrize("angles, near, steep, want_near, want_steep", SPLIT_CASES.values(), ids=SPLIT_CASES.keys())
def test_crops_are_split_by_how_steeply_their_camera_sees_them(angles, near, steep, want_near, want_steep):
    from models.train.slant_split import split_rows

    lines = rows(*angles)
    got_near, got_steep = split_rows(lines, None, near, steep)
    assert got_near == [lines[i] for i in want_near]
    assert got_steep == [lines[i] for i in want_steep]


def test_replayed_angles_take_the_rows_place():
    from models.train.slant_split import split_rows

    lines = rows(40.0, 0.0)  # the rows' own angles say the opposite of the replay
    near, steep = split_rows(lines, {"0000000.jpg": 2.0, "0000001.jpg": 50.0}, 15, 25)
    assert near == [lines[0]] and steep == [lines[1]]


@pytest.mark.parametrize("angle, dy", [
    pytest.param(0.0, 0.0, id="seen straight down: the box stays"),
    pytest.param(30.0, -0.4 * 40 * 0.5, id="30 degrees off: up the crop, away from the foot below it"),
])
def test_near_crops_can_be_cut_where_the_camera_sees_the_top_face(angle, dy):
    from models.train.slant_split import risen_rows

    line = json.dumps({"image": "0000000.jpg", "dice": [{"die": "d20", "value": 1, "box": [40, 40, 80, 80]},
                                                         {"die": "d6", "value": 2, "box": [0, 0, 10, 10]}],
                       "camera": {"off_vertical_deg": angle}})
    (got,) = risen_rows([line], None, 0.4)
    main, other = json.loads(got)["dice"]
    assert main["box"] == pytest.approx([40, 40 + dy, 80, 80 + dy])
    assert other["box"] == [0, 0, 10, 10]  # only the main die's: the one a trainer cuts


def test_a_near_limit_beyond_the_steep_one_is_refused():
    from models.train.slant_split import split_rows

    with pytest.raises(ValueError, match="near"):
        split_rows(rows(1.0), None, 30, 20)


def test_split_folders_read_like_render_folders(tmp_path, torch):  # main imports train_lean (torch)
    from models.train.slant_split import main

    src = tmp_path / "crops"
    src.mkdir()
    lines = rows(2.0, 20.0, 40.0)
    for i in range(3):
        (src / f"{i:07d}.jpg").write_bytes(b"jpeg")
    (src / "labels.jsonl").write_text("\n".join(lines) + "\n")
    main([str(src), "--out", str(tmp_path / "split"), "--near", "15", "--steep", "25"])
    near, steep = tmp_path / "split" / "near-crops", tmp_path / "split" / "steep-crops"
    assert (near / "labels.jsonl").read_text().splitlines() == [lines[0]]
    assert (steep / "labels.jsonl").read_text().splitlines() == [lines[2]]
    assert (near / "0000000.jpg").read_bytes() == b"jpeg" and not (near / "0000001.jpg").exists()


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def type_index(die: str) -> int:
    from models.train.nets import TYPES

    return TYPES.index(die)


def logits(torch, surely: int | None):
    """One die's 20 face logits: sure of face `surely` (1-based), or the same for every face."""
    x = torch.zeros(1, 20)
    if surely is not None:
        x[0, surely - 1] = 8.0
    return x


# (logits named, unsure?) pairs compared: the first must cost less than the second
LOSS_CASES = {
    "a die to read: the right face sure beats no face": ((7, False), (None, False)),
    "a die to read: no face beats a wrong face sure": ((None, False), (3, False)),
    "a steep die: no face beats the right face sure": ((None, True), (7, True)),
    "a steep die: no face beats a wrong face sure": ((None, True), (3, True)),
}


@pytest.mark.parametrize("better, worse", LOSS_CASES.values(), ids=LOSS_CASES.keys())
def test_steep_crops_are_taught_to_claim_no_face(torch, better, worse):
    from models.train.train_top_face import face_loss

    def loss(named, unsure):
        return float(face_loss(logits(torch, named), torch.tensor([6]), torch.tensor([type_index("d20")]),
                               torch.tensor([unsure])))

    assert loss(*better) < loss(*worse)


def test_no_face_is_spread_over_the_faces_the_die_has(torch):
    """A D8 has 8 faces: spread over 20 is not 'no face' for it, and costs more than over its own 8."""
    from models.train.train_top_face import face_loss

    own = torch.full((1, 20), -1e4)
    own[0, :8] = 0.0
    spread = torch.zeros(1, 20)
    t, f, u = torch.tensor([type_index("d8")]), torch.tensor([0]), torch.tensor([True])
    assert float(face_loss(own, f, t, u)) == pytest.approx(np.log(8), abs=1e-4)
    assert float(face_loss(spread, f, t, u)) == pytest.approx(np.log(8), abs=1e-4)  # logits past 8 are masked
    assert float(face_loss(logits(torch, 1), f, t, u)) > np.log(8) + 1


def test_a_mixed_batch_weighs_each_die_once(torch):
    from models.train.train_reader import masked_face_loss
    from models.train.train_top_face import face_loss

    x = torch.cat([logits(torch, 7), logits(torch, None)])
    t, f = torch.tensor([type_index("d20")] * 2), torch.tensor([6, 6])
    both = float(face_loss(x, f, t, torch.tensor([False, True])))
    read = float(masked_face_loss(x[:1], f[:1], t[:1]))
    assert both == pytest.approx((read + np.log(20)) / 2, abs=1e-4)
