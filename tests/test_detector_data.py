"""The detector's training patches (models.train.detector_data.sample): the die sides it is taught.

Taught on from v3 with big oblique dice alone, the detector lost the small dice of a far camera
(session 38's v4 candidate). `small` keeps a share of patches at a far camera's sides; if it did not
reach the targets, a detector taught with it would lose them again.
"""

import numpy as np
import pytest

pytest.importorskip("torch")  # detector_data takes its helpers from the training modules

from models.train.detector_data import SMALL, STRIDE, Frame, sample  # noqa: E402

# three 40 px dice in a plain 400 px frame: every die's side in a patch is the drawn side
FRAME = Frame(np.full((400, 400, 3), 90, np.uint8),
              np.array([[50, 50, 90, 90], [200, 180, 240, 220], [300, 300, 340, 340]], np.float32),
              np.ones(3, bool), "test")


def taught_sides(small: float, n: int = 60) -> np.ndarray:
    rng = np.random.default_rng(7)
    sides = []
    for _ in range(n):
        _, _, size, _, mask = sample(FRAME, rng, 256, small=small)
        cells = mask == 1
        sides.extend(np.exp(size[0][cells]) * STRIDE)
    return np.array(sides)


@pytest.mark.parametrize("small, lo, hi", [
    pytest.param(0.0, 14.0, 110.0, id="by default dice 14-110 px"),
    pytest.param(1.0, *SMALL, id="small: dice as a far camera shows them"),
])
def test_the_patches_teach_dice_of_the_sides_asked(small, lo, hi):
    sides = taught_sides(small)
    assert len(sides) > 20
    assert sides.min() >= lo - 0.5 and sides.max() <= hi + 0.5


def test_a_share_of_small_patches_mixes_both():
    sides = taught_sides(0.5, n=120)
    assert (sides < 14).any() and (sides > SMALL[1]).any()


def test_a_pack_gives_back_the_frames_as_the_trainer_saw_them(tmp_path):
    """The GPU machine reads the real trays from a pack (`--real`): a top-face box (desk-d6-matteo's,
    size unknown) read back as a whole die's would teach the size head a die a third too small."""
    from models.train.detector_data import synth_frames, write_frames

    top_face = Frame(FRAME.image, FRAME.boxes[:2] + 0.25, np.array([False, False]), "desk-d6-matteo")
    assert write_frames(tmp_path, [FRAME, top_face]) == 2
    back = synth_frames(tmp_path)
    assert [f.source for f in back] == ["test", "desk-d6-matteo"]
    assert [f.size_known.tolist() for f in back] == [[True, True, True], [False, False]]
    np.testing.assert_allclose(back[1].boxes, top_face.boxes, atol=0.01)
    assert np.abs(back[0].image.astype(int) - FRAME.image).max() <= 2  # JPEG of a plain frame


def test_rendered_scenes_without_the_flags_are_whole_dice(tmp_path):
    """bulk scenes' rows name neither a source nor size_known: every box is a whole die's."""
    import json

    import cv2

    from models.train.detector_data import synth_frames

    cv2.imwrite(str(tmp_path / "0000000.jpg"), FRAME.image)
    (tmp_path / "labels.jsonl").write_text(json.dumps(
        {"image": "0000000.jpg", "dice": [{"die": "d6", "value": 3, "box": [50, 50, 90, 90]},
                                          {"die": "d20", "value": None, "box": None}]}) + "\n")
    (frame,) = synth_frames(tmp_path)
    assert frame.source == "synth" and frame.size_known.tolist() == [True]


def test_the_trainer_with_patch_workers_writes_weights_the_exporter_reads(tmp_path):
    """`--workers` (a GPU machine's patch builders, forked) teaches and leaves a checkpoint the
    detector loads. Session 53's first GPU call hung here: OpenCV's thread pool, started in the
    trainer while it read the frames, did not survive the fork (the trainer now starts none)."""
    import torch

    from models.train import train_detector
    from models.train.detector_data import write_frames
    from models.train.nets import DiceDetector

    write_frames(tmp_path / "pack", [FRAME] * 3)
    out = tmp_path / "det.pt"
    train_detector.main(["--real", str(tmp_path / "pack"), "--workers", "2", "--batch", "4", "--patch", "128",
                         "--minutes", "0.05", "--threads", "1", "--out", str(out)])
    DiceDetector().load_state_dict(torch.load(out))


BOXED_TWICE = {
    "one box on the die": ([[10, 10, 50, 50]], False),
    "the die whole and its top face": ([[10, 10, 50, 50], [22, 20, 42, 40]], True),
    "a D4 in two numeral pieces": ([[18, 25, 30, 37], [30, 25, 42, 37]], True),
    "a touching neighbour's box centred outside the middle": ([[10, 10, 50, 50], [45, 10, 85, 50]], False),
}


@pytest.mark.parametrize("preds, twice", BOXED_TWICE.values(), ids=BOXED_TWICE.keys())
def test_a_die_boxed_twice_is_counted(preds, twice):
    from models.train.eval_detector import boxed_twice

    assert boxed_twice([10, 10, 50, 50], preds) == twice
