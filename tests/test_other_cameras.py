"""The close camera's windows (reader.vision.other_cameras.close_up): a die wholly in a window comes
out zoom times bigger where it was, and no window cuts a die in two (its label would be a guess)."""

import pytest
import numpy as np

from reader.vision.other_cameras import VARIANTS, close_up, more_pixels
from reader.vision.realdata import LabeledDie, load_set, write_labels

PHOTO = np.zeros((300, 300, 3), np.uint8)  # windows of 100 x 100 at zoom 3


def test_a_die_in_a_window_is_blown_up_where_it_was():
    photo = PHOTO.copy()
    photo[140:160, 130:150] = 255                       # a 20 px white die in the middle
    die = LabeledDie("d6", 4, (130.0, 140.0, 150.0, 160.0))
    windows = list(close_up(photo, (die,), zoom=3))
    assert len(windows) == 1                            # the centre window; the quarters hold nothing
    big, dice = windows[0]
    assert big.shape == (300, 300, 3)
    assert dice == [LabeledDie("d6", 4, (90.0, 120.0, 150.0, 180.0))]
    x0, y0, x1, y1 = (int(v) for v in dice[0].box)
    assert big[y0 + 5:y1 - 5, x0 + 5:x1 - 5].min() > 200  # the die is where its label says


def test_a_window_that_cuts_a_die_is_left_out():
    across = LabeledDie("d6", 2, (190.0, 140.0, 215.0, 160.0))  # over the centre window's right edge
    inside = LabeledDie("d6", 5, (130.0, 140.0, 150.0, 160.0))
    assert list(close_up(PHOTO, (inside, across), zoom=3)) == []


def test_a_camera_with_more_pixels_shows_the_same_die_bigger_with_noise_of_its_own():
    photo = np.full((90, 160, 3), 120, np.uint8)
    photo[30:50, 40:60] = 230  # a pale die, 20 px
    die = LabeledDie("d6", 5, (40.0, 30.0, 60.0, 50.0))
    big, (moved,) = more_pixels(photo, (die,), np.random.default_rng(0), zoom=4, noise=10.0)
    assert big.shape == (360, 640, 3) and big.dtype == np.uint8
    assert moved == LabeledDie("d6", 5, (160.0, 120.0, 240.0, 200.0))
    inside, table = big[130:190, 170:230].astype(float), big[10:100, 10:100].astype(float)
    assert abs(inside.mean() - 230) < 2 and abs(table.mean() - 120) < 2
    assert 8 < table.std() < 12  # each of the new pixels its own noise


def test_every_camera_keeps_the_photo_s_size_and_type():
    photo = np.random.default_rng(0).integers(0, 255, (60, 80, 3), dtype=np.uint8)
    for name, variant in VARIANTS.items():
        out = variant(photo, np.random.default_rng(1))
        assert out.shape == photo.shape and out.dtype == np.uint8, name


def test_a_set_written_from_variants_reads_back_the_same_dice(tmp_path):
    dice = (LabeledDie("d10", 10, (1.0, 2.0, 30.0, 31.5)), LabeledDie("d8", None, (40.0, 2.0, 60.0, 22.0), "cocked"),
            LabeledDie("d20", 17, None))
    write_labels(tmp_path, [("a.png", dice[:2]), ("b.png", dice[2:])])
    back = load_set(tmp_path)
    assert [im.name for im in back] == ["a.png", "b.png"]
    assert back[0].dice == dice[:2] and back[1].dice == dice[2:]


def test_a_set_written_with_its_images_reads_back(tmp_path):
    import cv2

    from reader.vision.realdata import write_set

    die = LabeledDie("d6", 3, (10.0, 10.0, 30.0, 30.0))
    photo = np.random.default_rng(2).integers(0, 255, (40, 50, 3), dtype=np.uint8)
    write_set(tmp_path, [("a.png", photo, (die,)), ("b.jpg", photo, (die,))])
    back = load_set(tmp_path)
    assert [im.name for im in back] == ["a.png", "b.jpg"] and back[0].dice == (die,)
    assert (cv2.imread(str(back[0].path)) == photo).all()          # lossless where it can be
    assert cv2.imread(str(back[1].path)).shape == photo.shape


MOVES = {
    "a whole pixel right": (1.0, 0.0, (10, 11), 255),
    "two pixels down": (0.0, 2.0, (12, 10), 255),
    "half a pixel right: the dot shared by two pixels": (0.5, 0.0, (10, 11), 128),
    "moved back where it was": (0.0, 0.0, (10, 10), 255),
}


@pytest.mark.parametrize("dx, dy, at, level", MOVES.values(), ids=MOVES.keys())
def test_a_scene_moved_a_hair_to_the_side(dx, dy, at, level):
    from reader.vision.other_cameras import shifted

    img = np.zeros((24, 24, 3), np.uint8)
    img[10, 10] = 255
    out = shifted(img, dx, dy)
    assert out.shape == img.shape and out.dtype == np.uint8
    assert abs(int(out[at][0]) - level) <= 1


def _die_on_cloth() -> np.ndarray:
    """A 40 px white die with a black pip on a mid-grey cloth, 120 x 160."""
    photo = np.full((120, 160, 3), 110, np.uint8)
    photo[40:80, 60:100] = 235
    photo[55:65, 75:85] = 15
    return photo


# the lights and cameras session 79 added, and what each does to a white die on a grey cloth
LIGHTS = {
    "blue stage light: the white die blue, not white": (
        "stage light", lambda out: out[45, 65, 0] > out[45, 65, 2] + 80),
    "oversharpened: a white halo round the pip, its rim blacker, a dark seam round the die": (
        "oversharpened", lambda out: int(out[53, 80].min()) == 255 and int(out[56, 80].max()) < 5
        and int(out[60, 59].max()) < 60),  # and a dark seam on the cloth outside the die's edge
    "hazy: the pip mid grey, the die barely lighter than the cloth": (
        "hazy", lambda out: 80 < int(out[60, 80, 0]) < 110 and int(out[45, 65, 0]) - int(out[5, 5, 0]) < 75),
    "glare: bright spots, most of the photo as it was": (
        "glare", lambda out: int(out.max()) == 255
        and (np.abs(out.astype(int) - _die_on_cloth()).max(axis=2) < 10).mean() > 0.5),
}


@pytest.mark.parametrize("name, seen", LIGHTS.values(), ids=LIGHTS.keys())
def test_a_light_or_camera_shows_the_die_as_it_would(name, seen):
    assert seen(VARIANTS[name](_die_on_cloth(), np.random.default_rng(3)))
