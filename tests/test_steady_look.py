"""A look taught to read a die the same when it is cut a frame pixel to the side (train_top_face
--steady): the two cuts must differ by that nudge alone, the nudge must be about one frame pixel,
and the pull must be zero where the two cuts are read alike and grow as they are read apart. Wrong
here, --steady teaches noise (two cuts of different dice, or of different light) or nothing."""

import numpy as np
import pytest
from face_logits import face_logits, type_index


@pytest.fixture
def torch():
    """The trainer's modules import torch, a training extra: every test here asks for this, so a
    machine without it (CI) skips them rather than failing."""
    return pytest.importorskip("torch")


def patch_with_marks(seed: int = 0) -> np.ndarray:
    """A reader_data context patch: a pale die-like square with dark marks, on a textured table."""
    from models.train.reader_data import BOX_IN_CTX, CTX

    rng = np.random.default_rng(seed)
    p = rng.integers(60, 120, size=(CTX, CTX, 3)).astype(np.uint8)
    half = int(CTX * BOX_IN_CTX / 2)
    c = CTX // 2
    p[c - half:c + half, c - half:c + half] = 220
    for dx, dy in ((-12, -12), (0, 0), (12, 12), (-12, 12)):
        p[c + dy - 4:c + dy + 4, c + dx - 4:c + dx + 4] = 20
    return p


def test_a_cut_with_no_nudge_is_the_same_cut(torch):
    """The second cut of a pair is made from a copy of the first's random stream: nudged by nothing,
    it is the first, pixel for pixel (the same turn, scale, light and noise)."""
    import copy

    from models.train.train_top_face import top_crop

    rng = np.random.default_rng(7)
    again = copy.deepcopy(rng)
    a = top_crop(patch_with_marks(), rng, per_side=1.15, blur_p=0.5)
    b = top_crop(patch_with_marks(), again, per_side=1.15, blur_p=0.5, nudge=(0.0, 0.0, 1.0))
    assert np.array_equal(a, b)


def test_a_nudged_cut_differs_far_less_than_another_draw(torch):
    """A frame pixel to the side, the cut shows the same die in the same light: it differs from the
    first cut far less than a cut from the next draw of the stream does."""
    import copy

    from models.train.train_top_face import top_crop

    patch = patch_with_marks()
    nudged, other = [], []
    for seed in range(12):
        rng = np.random.default_rng(seed)
        again = copy.deepcopy(rng)
        a = top_crop(patch, rng, per_side=1.15).astype(float)
        b = top_crop(patch, again, per_side=1.15, nudge=(1.5, -1.0, 1.02)).astype(float)
        c = top_crop(patch, rng, per_side=1.15).astype(float)
        nudged.append(np.abs(a - b).mean())
        other.append(np.abs(a - c).mean())
    assert 0.0 < np.median(nudged) < 0.5 * np.median(other)


def test_the_nudge_is_about_one_frame_pixel(torch):
    """One frame pixel of a die 24-72 px wide, in the patch's pixels, and the box within a few
    percent of its size."""
    from models.train.reader_data import BOX_IN_CTX, CTX
    from models.train.train_top_face import STEADY_DIE_PX, frame_pixel_nudge

    rng = np.random.default_rng(3)
    nudges = np.array([frame_pixel_nudge(rng) for _ in range(500)])
    moved = np.hypot(nudges[:, 0], nudges[:, 1])
    side = CTX * BOX_IN_CTX
    assert moved.min() >= side / STEADY_DIE_PX[1] - 1e-9
    assert moved.max() <= side / STEADY_DIE_PX[0] + 1e-9
    assert np.all(np.abs(np.log(nudges[:, 2])) < 0.15)
    assert abs(nudges[:, 0].mean()) < 0.2 and abs(nudges[:, 1].mean()) < 0.2  # no direction preferred


# (die, first cut's logits, second cut's logits): read alike, no pull
ALIKE_CASES = {
    "the same answer": ("d6", {4: 6.0}, {4: 6.0}),
    "logits moved by one constant": ("d6", {4: 6.0}, {f: 1.5 for f in range(1, 21)} | {4: 7.5}),
    "faces past the die's own are not compared": ("d6", {4: 6.0}, {4: 6.0, 9: 8.0, 17: -3.0}),
}


@pytest.mark.parametrize("die, a, b", ALIKE_CASES.values(), ids=ALIKE_CASES.keys())
def test_no_pull_where_both_cuts_are_read_alike(torch, die, a, b):
    from models.train.train_top_face import steady_loss

    t = torch.tensor([type_index(die)])
    assert float(steady_loss(face_logits(torch, a), face_logits(torch, b), t)) == pytest.approx(0.0, abs=1e-6)


# (die, first cut, nearer second cut, farther second cut)
APART_CASES = {
    "a sure 2 read 3 a pixel over": ("d6", {2: 6.0}, {2: 4.0, 3: 2.0}, {3: 6.0}),
    "a D20's 17 read 11 a pixel over": ("d20", {17: 5.0}, {17: 4.0, 11: 2.0}, {11: 5.0}),
}


@pytest.mark.parametrize("die, a, nearer, farther", APART_CASES.values(), ids=APART_CASES.keys())
def test_the_pull_grows_as_the_two_cuts_are_read_apart(torch, die, a, nearer, farther):
    from models.train.train_top_face import steady_loss

    t = torch.tensor([type_index(die)])
    first = face_logits(torch, a)
    near = float(steady_loss(first, face_logits(torch, nearer), t))
    far = float(steady_loss(first, face_logits(torch, farther), t))
    assert 0.0 < near < far


def test_the_pull_is_the_same_whichever_cut_comes_first(torch):
    """Neither cut is the truth: the pull draws both toward each other alike."""
    from models.train.train_top_face import steady_loss

    t = torch.tensor([type_index("d6")])
    a, b = face_logits(torch, {2: 5.0}), face_logits(torch, {2: 2.0, 3: 3.5})
    assert float(steady_loss(a, b, t)) == pytest.approx(float(steady_loss(b, a, t)), rel=1e-6)


def test_a_step_on_the_pull_brings_the_two_readings_together(torch):
    from models.train.train_top_face import steady_loss

    t = torch.tensor([type_index("d8")])
    a = face_logits(torch, {2: 5.0}).requires_grad_(True)
    b = face_logits(torch, {6: 5.0}).requires_grad_(True)
    loss = steady_loss(a, b, t)
    before = loss.item()
    loss.backward()
    with torch.no_grad():
        a2, b2 = a - 0.5 * a.grad, b - 0.5 * b.grad
    assert float(steady_loss(a2, b2, t)) < before


def test_a_negative_weight_is_refused_before_loading(torch, tmp_path, capsys):
    from models.train.train_top_face import main

    with pytest.raises(SystemExit):
        main(["--steady", "-1", "--out", str(tmp_path / "look.pt"), "--minutes", "0.01"])
    assert "--steady -1" in capsys.readouterr().err
    assert not (tmp_path / "look.meta.json").exists()
