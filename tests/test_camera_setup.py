"""The tray camera measured from photos of a printed chessboard (reader/vision/camera_setup.py,
`dice-reader camera`): photos of the board taken by known cameras (tests/board_photos.py) give
back those cameras, and the measured set-up sees each point of the tray at the angle it truly does."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from board_photos import camera_rotation, photo, through_lens
from reader.cli import main
from reader.errors import DiceReaderError
from reader.vision.camera_setup import Board, BoardView, find_board, measure, tilt_and_toward
from reader.vision.viewing import focal_of

BOARD = Board()
HELD = [(30, 0, 0), (0, 30, 0), (-25, -20, 15)]  # the board held tilted three ways (degrees)


def view_of(img, name="photo"):
    corners = find_board(img, BOARD)
    assert corners is not None, f"{name}: the board was not found"
    return BoardView(name, corners, (img.shape[1], img.shape[0]))


def photos(hfov, tilt, toward, size=(1280, 720), held=HELD, k1=0.0):
    def lens(img):
        return through_lens(img, hfov, k1) if k1 else img
    flat = view_of(lens(photo(BOARD, hfov, tilt, toward, size)), "flat")
    return flat, [view_of(lens(photo(BOARD, hfov, tilt, toward, size, board_turn=t, seed=i + 1)), f"held {i}")
                  for i, t in enumerate(held)]


def angle_apart(a, b):
    return abs((a - b + 180.0) % 360.0 - 180.0)


@pytest.mark.parametrize("hfov, tilt, toward, size, fov_given, k1, within", [
    pytest.param(60.0, 0.0, 0.0, (1280, 720), False, 0.0, 0.5, id="straight down, 60 wide"),
    pytest.param(66.0, 20.0, 0.0, (1280, 720), False, 0.0, 0.5, id="leaning 20 toward the top, as at a table's edge"),
    pytest.param(70.0, 25.0, 90.0, (1280, 720), False, 0.0, 0.5, id="leaning 25 toward the right: an arm beside the tray"),
    pytest.param(50.0, 15.0, 200.0, (640, 480), False, 0.0, 0.5, id="leaning 15 toward the bottom-left, 640x480"),
    pytest.param(78.0, 30.0, 270.0, (1280, 720), True, 0.0, 0.5, id="field of view given: the flat photo alone"),
    pytest.param(78.0, 10.0, 90.0, (1280, 720), False, -0.1, 1.0, id="a webcam's barrel distortion, left out"),
])
def test_the_camera_is_measured_back(hfov, tilt, toward, size, fov_given, k1, within):
    flat, held = photos(hfov, tilt, toward, size, held=[] if fov_given else HELD, k1=k1)
    got = measure(flat, held, BOARD, hfov if fov_given else None)
    assert got.hfov == pytest.approx(hfov, abs=within)
    assert got.tilt == pytest.approx(tilt, abs=within)
    if tilt:
        assert angle_apart(got.toward, toward) < 2.0
    assert got.reprojection_px < 0.5
    assert got.views == 1 + len(held)


def test_the_measured_camera_sees_each_corner_at_its_true_angle():
    # what the reader does with a described camera: the angle off vertical at each point of the
    # tray (CameraView.slant), here against the true line from each board corner to the camera
    hfov, tilt, toward, size = 66.0, 22.0, 120.0, (1280, 720)
    flat, held = photos(hfov, tilt, toward, size)
    view = measure(flat, held, BOARD).view()
    camera_up = camera_rotation(tilt, toward).T @ np.array([0, 0, 1.0])  # sanity of the helper
    assert camera_up[2] == pytest.approx(-math.cos(math.radians(tilt)), abs=1e-9)
    true = CameraViewTruth(hfov, tilt, toward, size)
    errors = [view.slant(x, y, *size) - true.slant(x, y) for x, y in flat.corners]
    assert np.abs(errors).max() < 0.5


class CameraViewTruth:
    """The true angle off vertical at a pixel of the board's plane, from the photo's own camera."""

    def __init__(self, hfov, tilt, toward, size):
        w, h = size
        self.f = focal_of(hfov, w)
        self.c = (w / 2, h / 2)
        self.up = camera_rotation(tilt, toward) @ np.array([0, 0, 1.0])  # world up, camera frame

    def slant(self, x, y):
        ray = np.array([(x - self.c[0]) / self.f, (y - self.c[1]) / self.f, 1.0])
        to_camera = -ray / np.linalg.norm(ray)
        return math.degrees(math.acos(float(to_camera @ self.up)))


def test_the_way_a_camera_leans_is_read_off_the_board_normal():
    # the rotation of a board lying flat, into the frame of a camera leaning 30 toward the right
    r = camera_rotation(30.0, 90.0)
    tilt, toward = tilt_and_toward(r)
    assert (tilt, toward) == (pytest.approx(30.0), pytest.approx(90.0))
    flipped = r @ np.diag([1.0, -1.0, -1.0])  # the board's corners found in the other order
    assert tilt_and_toward(flipped) == (pytest.approx(30.0), pytest.approx(90.0))


def test_a_board_seen_square_on_cannot_tell_the_field_of_view():
    flat, _ = photos(60.0, 0.0, 0.0, held=[])
    with pytest.raises(DiceReaderError, match="held tilted"):
        measure(flat, [], BOARD)
    assert measure(flat, [], BOARD, hfov=60.0).tilt < 0.5  # given it, the flat photo suffices


@pytest.mark.parametrize("spoil, message", [
    pytest.param("size", "different sizes", id="photos of two sizes"),
    pytest.param("corners", "misses the board's corners", id="corners that fit no camera (a curled board)"),
    pytest.param("fov", "give 10-170", id="a field of view no camera has"),
])
def test_photos_that_cannot_measure_a_camera_say_why(spoil, message):
    flat, held = photos(60.0, 20.0, 0.0)
    hfov = None
    if spoil == "size":
        held[0] = BoardView("small", held[0].corners / 2, (640, 360))
    elif spoil == "corners":
        bent = flat.corners.copy()
        bent[::2] += 6.0  # every other corner moved 6 px: no plane seen by a pinhole looks so
        flat = BoardView("bent", bent, flat.size)
    else:
        hfov = 200.0
    with pytest.raises(DiceReaderError, match=message):
        measure(flat, held, BOARD, hfov)


@pytest.mark.parametrize("text, want", [
    pytest.param("7x5", Board(7, 5), id="the default board"),
    pytest.param("9X6", Board(9, 6), id="upper-case x"),
    pytest.param("7", None, id="one count"),
    pytest.param("6x6", None, id="a square board: its corners can be found turned"),
    pytest.param("1x5", None, id="too few corners"),
])
def test_a_board_is_named_by_its_inner_corners(text, want):
    if want is None:
        with pytest.raises(DiceReaderError):
            Board.parse(text)
    else:
        assert Board.parse(text) == want


def test_the_printed_board_is_found_by_the_finder(tmp_path, capsys):
    out = tmp_path / "board.png"
    assert main(["camera", "--write-board", str(out)]) == 0
    printed = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    assert printed.shape == (8 * 236, 10 * 236)  # 8 x 6 squares of 20 mm at 300 dpi, a square's margin
    seen = cv2.resize(printed, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA)
    assert find_board(seen, BOARD) is not None


def test_the_command_prints_the_options_to_describe_the_camera(tmp_path, capsys):
    paths = []
    for i, turn in enumerate([(0, 0, 0), *HELD]):
        p = tmp_path / f"{i}.jpg"
        cv2.imwrite(str(p), photo(BOARD, 70.0, 18.0, 90.0, board_turn=turn, seed=i))
        paths.append(str(p))
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(b"\xff\xd8 not a jpeg")
    assert main(["camera", paths[0], str(broken), *paths[1:]]) == 0
    out = capsys.readouterr().out
    assert "broken.jpg: not an image that can be decoded" in out  # left out, the rest measured
    flags = out.strip().splitlines()[-1].split("with: ")[1].split()
    got = dict(zip(flags[::2], map(float, flags[1::2])))
    assert got["--camera-fov"] == pytest.approx(70.0, abs=0.5)
    assert got["--camera-tilt"] == pytest.approx(18.0, abs=0.5)
    assert got["--camera-toward"] == 90.0
    # the same photos from a source, the first frame with the board taken as lying flat
    assert main(["camera", "--source", f"folder:{tmp_path}", "--json"]) == 0
    measured = json.loads(capsys.readouterr().out)
    assert measured["views"] == 4
    assert measured["flags"] == "--camera-fov 70 --camera-tilt 18 --camera-toward 90"


def test_the_renderers_tray_camera_is_measured_back(capsys):
    # fixtures/camera-board: the board lying in a tray rendered by the project's renderer (light,
    # shadow, vignetting, sensor noise, JPEG), by the same kind of camera the reader's calibration
    # frames were rendered with; read as `--camera-fov/--camera-tilt` it must be that camera as the
    # renderer's truth describes it (CameraView.rendered). Measured: 73.65 wide (truth 73.62), tilted
    # 21.57 (21.74), toward the top.
    from reader.vision.viewing import CameraView

    folder = Path(__file__).resolve().parents[1] / "fixtures" / "camera-board"
    truth = json.loads((folder / "camera.json").read_text())
    rendered = CameraView.rendered(truth["camera"])
    assert main(["camera", *(str(folder / f) for f in truth["files"]), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["hfov"] == pytest.approx(rendered.hfov, abs=0.5)
    assert got["tilt"] == pytest.approx(rendered.tilt, abs=0.5)
    assert angle_apart(got["toward"], 0.0) < 2.0  # the renderer's camera leans toward the picture's top


def test_no_board_in_the_flat_photo_is_a_clear_error(tmp_path, capsys):
    p = tmp_path / "tray.jpg"
    cv2.imwrite(str(p), np.full((360, 640, 3), 110, np.uint8))
    assert main(["camera", str(p), "--fov", "60"]) == 2
    assert "no 7x5 chessboard found whole" in capsys.readouterr().err
