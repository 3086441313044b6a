"""Scene layouts and their labels, without rendering (numpy and cv2 only: runs in CI).

The labels a bulk image carries are computed from the scene's poses and camera; these tests
check them against the geometry the renderer will draw.
"""

from __future__ import annotations

import numpy as np
import pytest

from reader.synth import geometry as geo
from reader.synth import scene as sc
from reader.synth.layouts import CROP_CLASSES, crop_scene, tray_scene


def _posed_points(d: dict) -> np.ndarray:
    s = geo.solid(d["die"])
    return (s.vertices * d["scale"]) @ np.asarray(d["R"]).T + np.asarray(d["t"])


@pytest.mark.parametrize("die,style", [(c[0], c[1]) for c in CROP_CLASSES])
def test_crop_frames_the_main_die(die, style):
    for i in range(4):
        scene = crop_scene(np.random.default_rng([21, i]), size=128, die=die, style=style, cocked=False)
        main = scene["labels"][0]
        assert main["die"] == die and main["state"] == "flat"
        assert (main.get("style") == style) if die == "d6" else "style" not in main
        x0, y0, x1, y1 = main["box"]
        side = max(x1 - x0, y1 - y0)
        assert 0.33 * 128 <= side <= 0.77 * 128, "main die fills 35-75% of the crop"
        assert abs((x0 + x1) / 2 - 64) <= 0.2 * 128 and abs((y0 + y1) / 2 - 64) <= 0.2 * 128
        # the label is the pose's top face, and a D4 has no value
        lab = geo.label_from_rotation(geo.solid(die), np.asarray(scene["dice"][0]["R"]))
        assert main["value"] == lab.value
        assert (main["value"] is None) == (die == "d4")


@pytest.mark.parametrize("mix", ["all", "numerals", "d6", "d6-numerals", "d10"])
def test_crop_mix_follows_the_class_balance(mix):
    rng = np.random.default_rng(5)
    from reader.synth.layouts import MIXES, pick_class

    classes = MIXES[mix]
    n = 4000
    picks = [pick_class(rng, classes) for _ in range(n)]
    total = sum(c[2] for c in classes)
    for die, style, share in classes:
        got = sum(1 for p in picks if p == (die, style)) / n
        assert abs(got - share / total) < 0.02, f"{die} {style}: {got:.3f} vs {share / total:.3f}"
    assert set(picks) <= {(c[0], c[1]) for c in classes}, "no class outside the mix"


# (die, style, marks its 6 and 9 may get): a D6 has no 9, and many numeral D6 leave the 6 plain
MARK_CASES = {
    "numeral d6: plain, underlined or dotted": ("d6", "numerals", {"none", "underline", "dot"}),
    "d20: always told from its 9": ("d20", None, {"underline", "dot"}),
    "d10: always told from its 9": ("d10", None, {"underline", "dot"}),
}


@pytest.mark.parametrize("die,style,marks", MARK_CASES.values(), ids=MARK_CASES.keys())
def test_six_marks_by_die(die, style, marks):
    seen = {sc.die_material(np.random.default_rng(s), die, style)["atlas"][4] for s in range(200)}
    assert seen == marks


def test_plain_six_leaves_every_other_die_of_a_seed_as_rendered_before():
    # pinned from the code before numeral D6 could have a plain 6: the training sets and the
    # committed fixtures of other dice stay reproducible from their seeds
    m = sc.die_material(np.random.default_rng(3), "d20", None)
    assert m["atlas"] == ["d20", "numerals", 372, 0.44, "underline", 0.48, 0.16, 0.8]
    assert round(m["gloss"], 4) == 134.7521


def test_cocked_crop_leans_on_a_wall_or_a_die():
    for i in range(10):
        scene = crop_scene(np.random.default_rng([22, i]), die="d8", cocked=True)
        main = scene["dice"][0]
        assert scene["labels"][0]["state"] == "cocked" and scene["labels"][0]["value"] is None
        assert np.isclose(_posed_points(main)[:, 2].min(), 0.0, atol=1e-6), "it touches the table"
        assert scene["walls"] or len(scene["dice"]) > 1


def test_a_photo_of_one_die_shows_it_alone_in_the_scene_drawn_with_neighbours():
    # benchmarks/single_die_angles.py: a photo of one die is read as such (`read --single`); the die,
    # walls, lights and camera stay those of the same draw with neighbours
    alone_seen = 0
    for i in range(12):
        cocked = i % 3 == 0
        kw = dict(die="d10", cocked=cocked, off_vertical=40.0)
        full = crop_scene(np.random.default_rng([24, i]), **kw)
        alone = crop_scene(np.random.default_rng([24, i]), neighbours=False, **kw)
        assert alone["camera"] == full["camera"] and alone["walls"] == full["walls"]
        assert alone["dice"][0] == full["dice"][0] and alone["labels"][0] == full["labels"][0]
        # a cocked die keeps what it leans on: a wall, or the die drawn right after it
        assert len(alone["dice"]) <= (2 if cocked else 1)
        assert alone["dice"] == full["dice"][:len(alone["dice"])]
        alone_seen += len(full["dice"]) > len(alone["dice"])
    assert alone_seen >= 4, "the draws had neighbours to leave out"


@pytest.mark.parametrize("seed", range(6))
def test_tray_dice_rest_on_the_table_without_overlapping(seed):
    scene = tray_scene(np.random.default_rng(seed), width=960, height=540, n_dice=10)
    dice = scene["dice"]
    assert len(dice) >= 6
    for d in dice:
        assert np.isclose(_posed_points(d)[:, 2].min(), 0.0, atol=1e-6)
    for i, a in enumerate(dice):
        for b in dice[i + 1:]:
            gap = np.linalg.norm(np.asarray(a["t"][:2]) - np.asarray(b["t"][:2]))
            # inscribed spheres of two dice never intersect
            assert gap >= 0.95 * (a["scale"] * (1 if a["die"] != "d4" else 1) + b["scale"])
    for lab in scene["labels"]:
        x0, y0, x1, y1 = lab["box"]
        assert 0 <= x0 < x1 <= 960 and 0 <= y0 < y1 <= 540
        assert lab["state"] in ("flat", "cocked")
        assert (lab["value"] is None) == (lab["state"] == "cocked" or lab["die"] == "d4")


def test_requested_tray_layout_is_honoured_but_labels_come_from_poses():
    spec = [{"die": "d20", "value": 17}, {"die": "d10", "value": 10}, {"die": "d6", "value": 2, "style": "pips"},
            {"die": "d12", "cocked": True}]
    for seed in range(5):
        scene = tray_scene(np.random.default_rng(seed), dice_spec=spec)
        for d, want in zip(scene["dice"], spec):
            lab = sc.label_die(d)
            if want.get("cocked"):
                assert lab.state == "cocked"
            else:
                assert (lab.state, lab.value) == ("flat", want["value"])


def test_camera_manifest_intrinsics_match_projection():
    cam = sc.make_camera([0, 0, 0], 20.0, 1.0, 300.0, 50.0, 960, 540, shift_px=(12, -7))
    pts = np.array([[10.0, -5.0, 3.0], [-40.0, 25.0, 0.0]])
    uv = geo.project(pts, np.asarray(cam["view"]), np.asarray(cam["proj"]), 960, 540)
    k = np.asarray(cam["intrinsics"])
    for p, (u, v) in zip(pts, uv):
        x, y, z = (np.asarray(cam["view"]) @ np.r_[p, 1])[:3]
        assert np.isclose(u, k[0, 2] + k[0, 0] * x / -z) and np.isclose(v, k[1, 2] - k[1, 1] * y / -z)


def test_crop_camera_looks_over_walls_not_through_them():
    from reader.synth.layouts import _wall_dirs

    seen = 0
    for i in range(60):
        scene = crop_scene(np.random.default_rng([23, i]), cocked=True)
        az = scene["camera"]["azimuth"]
        for c in _wall_dirs(scene["walls"], scene["dice"][0]):
            seen += 1
            assert np.cos(az) * c[0] + np.sin(az) * c[1] <= 0.1, "a wall between camera and die"
    assert seen > 10


@pytest.mark.parametrize("point,hidden", [
    ((-5.0, 5.0, 0.0), True),    # at the foot of the wall, camera beyond it
    ((20.0, 5.0, 0.0), False),   # on the camera's side of the wall
    ((5.0, 5.0, 40.0), False),   # above the wall
])
def test_wall_occlusion_segment_test(point, hidden):
    from reader.synth.scene import _segment_hits_box

    got = _segment_hits_box(np.array([point]), np.array([50.0, 5.0, 100.0]), [0, 0, 0, 10, 10, 30])
    assert bool(got[0]) is hidden


def test_die_hidden_behind_the_near_wall_gets_no_label():
    cam = sc.make_camera([0, 0, 0], 35.0, 0.0, 250.0, 50.0, 640, 360, supersample=1)
    die = sc.make_die(np.random.default_rng(1), "d6", "pips", 3)
    die["t"][0], die["t"][1] = -60.0, 0.0  # just behind a 40 mm wall as seen from the camera
    wall = {"box": [-50.0, -100.0, 0.0, -40.0, 100.0, 40.0]}
    scene = {"camera": cam, "dice": [die], "walls": [wall]}
    assert sc.wall_visible_fraction(die, scene) < 0.5
    assert sc.scene_labels(scene) == []
    die["t"][0] = 0.0  # in the open
    assert [r["value"] for r in sc.scene_labels(scene)] == [3]


def _luminance(rgb) -> float:
    return float(np.dot(np.asarray(rgb, float), [0.2126, 0.7152, 0.0722]))


@pytest.mark.parametrize("seed", range(6))
def test_room_lights_light_the_dice_more_evenly_and_change_nothing_else(seed):
    # a face tilted 41.8 degrees (a D20's neighbour of its top face) against the top face: its share
    # of the diffuse light rises, the key light, which shades it, falls, and the scene is otherwise
    # the one its seed gave (the dice, their poses, the camera, the labels)
    base = crop_scene(np.random.default_rng([seed, 0, 1]), size=128, classes=CROP_CLASSES)
    room = crop_scene(np.random.default_rng([seed, 0, 1]), size=128, classes=CROP_CLASSES)
    sc.room_lights(room, np.random.default_rng([seed, 0, 9]))
    assert room["labels"] == base["labels"] and room["camera"]["view"] == base["camera"]["view"]
    assert len(room["lights"]) <= sc.MAX_LIGHTS
    key_share = [_luminance(s["lights"][0]["color"]) / _luminance(s["sky"]) for s in (base, room)]
    assert key_share[1] < key_share[0]
    tilt = np.cos(np.radians(41.8)) * 0.5 + 0.5  # the shader's hemisphere mix for that face
    side_over_top = [_luminance(np.array(s["ground"]) + (np.array(s["sky"]) - np.array(s["ground"])) * tilt)
                     / _luminance(s["sky"]) for s in (base, room)]
    assert side_over_top[1] >= side_over_top[0]


# (the bulk arguments, the option its message names): options a kind of render cannot take
REFUSED_OPTIONS = [
    pytest.param(["scenes", "--light", "room"], "light", id="room light relights crops, not tray frames"),
    pytest.param(["crops", "--light", "studio"], "light", id="a lighting it does not know"),
    pytest.param(["scenes", "--bodies", "clear"], "bodies", id="clear resin draws the dice of crops, not tray frames"),
    pytest.param(["crops", "--bodies", "glass"], "bodies", id="a body it does not know"),
    pytest.param(["scenes", "--numbers", "varied"], "numbers", id="numbering anew draws the dice of crops, not tray frames"),
    pytest.param(["crops", "--numbers", "spindown"], "numbers", id="a numbering it does not know"),
]


@pytest.mark.parametrize("args,option", REFUSED_OPTIONS)
def test_bulk_refuses_an_option_it_cannot_apply(tmp_path, args, option, capsys):
    from reader.synth.bulk import _run

    with pytest.raises(SystemExit):
        _run([*args, "--out", str(tmp_path / "out"), "--count", "1"])
    assert option in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
