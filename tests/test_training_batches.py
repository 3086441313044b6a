"""What the GPU trainers stand on (models.train.batches, models.train.real_pack): batches built by
worker processes, each its own, that reach the network as the CPU trainers' did; and the real
dice packed for a machine without ../shared, coming back as the trainers read them, with no
calibration die among them. A batch builder that hung after a fork (OpenCV's thread pool did) or
workers that drew the same batches would waste a GPU lease; a pack that let calibration dice
through would make the calibration a test on training data. Needs the training extras (torch)."""

import cv2
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from models.train.batches import batch_stream, to_input  # noqa: E402
from models.train.reader_data import CTX, Patches  # noqa: E402
from models.train.real_pack import read_pack, write  # noqa: E402
from models.train.train_reader import is_calibration  # noqa: E402


def _build(rng):
    """A batch of 4 'crops' made of the rng's draws, with OpenCV work in it as the real builders."""
    x = rng.integers(0, 256, (4, 12, 12, 3), dtype=np.uint8)
    x = np.stack([cv2.GaussianBlur(im, (3, 3), 0.8) for im in x])
    return torch.from_numpy(x), torch.from_numpy(rng.integers(0, 5, 4))


def test_workers_build_batches_of_their_own_after_opencv_was_used_here():
    cv2.GaussianBlur(np.zeros((64, 64, 3), np.uint8), (5, 5), 1.0)  # the parent's pool in use
    stream = batch_stream(_build, seed=3, workers=2)
    batches = [next(stream)[0].numpy().tobytes() for _ in range(8)]
    assert len(set(batches)) == 8


@pytest.mark.parametrize("workers", [0, 1], ids=["in process", "one worker"])
def test_a_seed_gives_the_same_batches_again(workers):
    a, b = batch_stream(_build, 5, workers), batch_stream(_build, 5, workers)
    for _ in range(3):
        assert torch.equal(next(a)[0], next(b)[0])


def test_a_uint8_batch_becomes_the_networks_input():
    x = torch.from_numpy(np.full((2, 96, 96, 3), 255, np.uint8))
    x[1, 10, 20] = torch.tensor([0, 51, 102], dtype=torch.uint8)
    y = to_input(x)
    assert y.shape == (2, 3, 96, 96) and y.dtype == torch.float32
    assert y.is_contiguous(memory_format=torch.channels_last)
    assert y[0].min() == 1.0 and torch.allclose(y[1, :, 10, 20], torch.tensor([0.0, 0.2, 0.4]))


def _patches(n, seed, source):
    rng = np.random.default_rng(seed)
    p = Patches()
    for i in range(n):
        img = cv2.GaussianBlur(rng.integers(0, 256, (CTX, CTX, 3), dtype=np.uint8), (0, 0), 3)
        if source.endswith(":none"):
            p.add(img, "none", None, None, source)
        else:
            p.add(img, ("d6", "d10", "d20")[i % 3], 1 + i % 6, "flat", source)
    return p


def test_the_pack_gives_the_dice_back_less_the_calibration_dice(tmp_path):
    parts = {"trays": _patches(150, 1, "tray-mixed-bartek"), "false_alarms": _patches(30, 2, "tray-d6-nell:none")}
    counts = write(tmp_path / "pack.npz", parts)
    kept = {name: [i for i, im in enumerate(p.images) if not is_calibration(im)] for name, p in parts.items()}
    assert counts == {name: len(k) for name, k in kept.items()}
    assert 0 < counts["trays"] < 150  # some of 150 are calibration dice (8%, by their pixels)

    trays = read_pack(tmp_path / "pack.npz", ("trays",))
    want = parts["trays"]
    assert [want.source[i] for i in kept["trays"]] == trays.source
    assert [want.type_idx[i] for i in kept["trays"]] == trays.type_idx
    assert [want.face_idx[i] for i in kept["trays"]] == trays.face_idx
    assert [want.state_idx[i] for i in kept["trays"]] == trays.state_idx
    for i, img in zip(kept["trays"], trays.images):
        assert img.shape == (CTX, CTX, 3)
        assert np.abs(img.astype(int) - want.images[i].astype(int)).mean() < 4  # JPEG, not another image

    # every die in the pack is one the trainers train on: none of them is taken for a calibration
    # die again by its decoded pixels (8% of them would be at one JPEG quality)
    assert not any(is_calibration(img) for img in trays.images)

    both = read_pack(tmp_path / "pack.npz")
    assert len(both) == counts["trays"] + counts["false_alarms"]
    assert set(both.face_idx[counts["trays"]:]) == {-1}  # table patches have no face


def test_a_part_the_trainers_do_not_know_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown part"):
        write(tmp_path / "pack.npz", {"scenes": _patches(3, 1, "synth")})


def _dice_of(sources: dict[str, int]) -> Patches:
    """Distinct noise patches, `n` from each source (the calibration fifth is chosen by pixels)."""
    rng = np.random.default_rng(3)
    p = Patches()
    for source, n in sources.items():
        for _ in range(n):
            p.add(rng.integers(0, 256, (CTX, CTX, 3), dtype=np.uint8), "d6", 3, "flat", source)
    return p


@pytest.mark.parametrize("scene_share", [0.0, 0.2])
def test_each_source_takes_its_share_of_a_batch(scene_share):
    from models.train.train_reader import SCENE_SOURCE, SHARES, prepare

    data = _dice_of({"synth": 9000, SCENE_SOURCE: 300 if scene_share else 0, "tray-d6-nell": 200,
                     "type-lurig": 100, "tray-d6-nell:none": 50})
    imgs, ti, fi, si, src, calib, train, w = prepare(data, scene_share)
    got = {}
    for s, wi in zip(src[train], w):
        got[s] = got.get(s, 0.0) + wi
    # 300 dice of the frames still take a fifth of every batch, and the crops give that fifth up
    assert got.get(SCENE_SOURCE, 0.0) == pytest.approx(scene_share)
    assert got["synth"] == pytest.approx(SHARES["synth"] - scene_share)
    assert got["tray-d6-nell"] == pytest.approx(SHARES["real"])
    if scene_share:  # the frames' dice are trained on, less their calibration share
        assert not calib[np.array([s == SCENE_SOURCE for s in src])].all()


# train_top_face --train-scenes: (sources present for the D20, scene share) -> each source's share
# of the D20's draws. A die of the frames is rendered: it never takes the real dice's share.
TOP_FACE_CASES = {
    "crops and frames split the rendered draws": ({"synth": 40, "frames": 10, "real": 5}, 0.3,
                                                  {"synth": 0.8 * 0.7, "frames": 0.8 * 0.3, "real": 0.2}),
    "no frames: as before": ({"synth": 40, "real": 5}, 0.3, {"synth": 0.8, "real": 0.2}),
    "no real D20: the rendered take all": ({"synth": 40, "frames": 10}, 0.3, {"synth": 0.7, "frames": 0.3}),
    "frames alone take the rendered share": ({"frames": 10, "real": 5}, 0.3, {"frames": 0.8, "real": 0.2}),
}


@pytest.mark.parametrize("present, scene_share, expected", TOP_FACE_CASES.values(), ids=TOP_FACE_CASES.keys())
def test_the_top_face_look_draws_frame_dice_as_rendered_ones(present, scene_share, expected):
    from models.train.nets import TYPES
    from models.train.train_reader import SCENE_SOURCE
    from models.train.train_top_face import draw_weights

    name = {"synth": "synth", "frames": SCENE_SOURCE, "real": "type-lurig"}
    src = np.array([name[k] for k, n in present.items() for _ in range(n)])
    ti = np.full(len(src), TYPES.index("d20"))
    w = draw_weights(ti, src, np.arange(len(src)), dice=("d20",), scene_share=scene_share)
    got = {k: float(w[src == name[k]].sum()) for k in present}
    assert got == pytest.approx(expected)


# train_top_face --lurig-share: (dice present for the D6, lurig share) -> each source's share of the D6's
# draws, real_share 0.5. A few hundred of type-lurig's photos beside thousands of tray dice are
# otherwise drawn by their count; the share gives them their own part of the real draws.
LURIG_SHARE_CASES = {
    "not asked: by their count": ({"synth": 40, "nell": 90, "lurig": 10}, None,
                                  {"synth": 0.5, "nell": 0.45, "lurig": 0.05}),
    "a fifth of the real draws": ({"synth": 40, "nell": 90, "lurig": 10}, 0.2,
                                  {"synth": 0.5, "nell": 0.4, "lurig": 0.1}),
    "no tray dice: lurig takes the real share": ({"synth": 40, "lurig": 10}, 0.2, {"synth": 0.5, "lurig": 0.5}),
    "no lurig dice: the tray dice take it": ({"synth": 40, "nell": 90}, 0.2, {"synth": 0.5, "nell": 0.5}),
}


@pytest.mark.parametrize("present, lurig_share, expected", LURIG_SHARE_CASES.values(), ids=LURIG_SHARE_CASES.keys())
def test_the_top_face_look_gives_lurig_its_share_of_the_real_draws(present, lurig_share, expected):
    from models.train.nets import TYPES
    from models.train.train_top_face import draw_weights

    name = {"synth": "synth", "nell": "tray-d6-nell", "lurig": "type-lurig"}
    src = np.array([name[k] for k, n in present.items() for _ in range(n)])
    ti = np.full(len(src), TYPES.index("d6"))
    w = draw_weights(ti, src, np.arange(len(src)), dice=("d6",), real_share=0.5, lurig_share=lurig_share)
    got = {k: float(w[src == name[k]].sum()) for k in present}
    assert got == pytest.approx(expected)
