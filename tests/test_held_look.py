"""A look taught on new digits while held to its start (train_top_face --hold): the pull must be zero
where the look still answers as it started, grow as it moves away, count only the faces each die has,
and refuse a run with nothing to hold to. Wrong here, a look taught with --hold either learns nothing
new (a pull that never lets go) or drifts as the unheld looks of sessions 61 and 62 did."""

import numpy as np
import pytest
from face_logits import face_logits, type_index


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# (die, start, now) -> the pull is exactly zero
NO_PULL_CASES = {
    "the same answer": ("d6", {3: 6.0}, {3: 6.0}),
    "logits moved by one constant: the same probabilities": ("d6", {3: 6.0}, {f: 2.0 for f in range(1, 21)} | {3: 8.0}),
    "faces past the die's own are not compared": ("d6", {3: 6.0}, {3: 6.0, 7: 9.0, 20: -5.0}),
}


@pytest.mark.parametrize("die, start, now", NO_PULL_CASES.values(), ids=NO_PULL_CASES.keys())
def test_no_pull_where_the_look_answers_as_it_started(torch, die, start, now):
    from models.train.train_top_face import held_loss

    t = torch.tensor([type_index(die)])
    assert float(held_loss(face_logits(torch, now), face_logits(torch, start), t)) == pytest.approx(0.0, abs=1e-6)


# (die, start, nearer, farther): the look moved less must be pulled less
MOVED_CASES = {
    "a sure 3 turning toward 5": ("d6", {3: 6.0}, {3: 5.0, 5: 2.0}, {3: 2.0, 5: 6.0}),
    "an unsure D6 made sure of a face": ("d6", {}, {2: 1.0}, {2: 6.0}),
    "a D20's face among twenty": ("d20", {17: 5.0}, {17: 4.0, 11: 1.0}, {11: 5.0}),
}


@pytest.mark.parametrize("die, start, nearer, farther", MOVED_CASES.values(), ids=MOVED_CASES.keys())
def test_the_pull_grows_as_the_look_moves_away(torch, die, start, nearer, farther):
    from models.train.train_top_face import held_loss

    t = torch.tensor([type_index(die)])
    s = face_logits(torch, start)
    near = float(held_loss(face_logits(torch, nearer), s, t))
    far = float(held_loss(face_logits(torch, farther), s, t))
    assert 0.0 < near < far


def test_the_pull_is_a_mean_over_the_batch(torch):
    from models.train.train_top_face import held_loss

    start = torch.cat([face_logits(torch, {3: 6.0}), face_logits(torch, {4: 6.0})])
    now = torch.cat([face_logits(torch, {3: 6.0}), face_logits(torch, {1: 6.0})])
    t = torch.tensor([type_index("d6")] * 2)
    moved_alone = float(held_loss(now[1:], start[1:], t[1:]))
    assert float(held_loss(now, start, t)) == pytest.approx(moved_alone / 2, rel=1e-5)


def test_the_pull_draws_the_look_back_toward_its_start(torch):
    """One gradient step on the pull alone brings a moved look's probabilities nearer its start."""
    from models.train.train_top_face import held_loss

    t = torch.tensor([type_index("d8")])
    start = face_logits(torch, {2: 5.0})
    now = face_logits(torch, {6: 5.0}).requires_grad_(True)
    before = float(held_loss(now.detach(), start, t))
    held_loss(now, start, t).backward()
    with torch.no_grad():
        stepped = now - 0.5 * now.grad
    assert float(held_loss(stepped, start, t)) < before
    p = torch.softmax(stepped[0, :8], 0).numpy()
    assert p[1] > torch.softmax(now[0, :8].detach(), 0).numpy()[1]
    assert np.argmax(p) in (1, 5)


def test_a_no_face_draw_is_not_held_to_the_face_the_start_named(torch):
    """--unsure draws (a maker's logo taught as no face) are left out of the pull: a batch's pull is that
    of its draws to read alone, and a batch of no-face draws alone pulls nothing."""
    from models.train.train_top_face import held_loss, held_where_read

    start = torch.cat([face_logits(torch, {3: 6.0}), face_logits(torch, {4: 6.0})])
    now = torch.cat([face_logits(torch, {5: 6.0}), face_logits(torch, {})])  # the second unlearns its 4
    t = torch.tensor([type_index("d6")] * 2)
    unsure = torch.tensor([False, True])
    assert float(held_where_read(now, start, t, unsure)) == pytest.approx(float(held_loss(now[:1], start[:1], t[:1])))
    assert float(held_where_read(now, start, t, torch.tensor([True, True]))) == 0.0
    assert float(held_where_read(now, start, t, torch.tensor([False, False]))) == pytest.approx(
        float(held_loss(now, start, t)))


BAD_HOLD_CASES = {
    "a negative weight": (["--hold", "-0.5", "--init", "models/reader_top_d6.onnx"], "--hold -0.5"),
    "nothing to hold to": (["--hold", "1", "--init", "no/such/look.onnx"], "no/such/look.onnx is no file"),
}


@pytest.mark.parametrize("argv, said", BAD_HOLD_CASES.values(), ids=BAD_HOLD_CASES.keys())
def test_a_hold_with_nothing_to_hold_is_refused_before_loading(torch, tmp_path, capsys, argv, said):
    from models.train.train_top_face import main

    with pytest.raises(SystemExit):
        main(argv + ["--out", str(tmp_path / "look.pt"), "--minutes", "0.01"])
    assert said in capsys.readouterr().err
