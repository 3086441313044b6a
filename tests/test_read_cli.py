"""`dice-reader read`: one result per image, bad files reported and skipped, honest exit code."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from reader.cli import build_parser, main
from reader.commands import read as read_cmd
from reader.reading import Box, Cocked, DieReading, Face, Unreadable
from reader.vision.recognizer import SINGLE_ABOVE
from tray_fakes import with_exif_orientation


class FixedRecognizer:
    """Test fake: every frame shows the same dice; counts calls; can fail on a marked image."""

    def __init__(self, frame, single, fail_on_height=None):
        self.frame, self.single = frame, single
        self.fail_on_height = fail_on_height
        self.calls = []
        self.guess = None  # what read_frame_guessing says of the camera
        self.assumed = None  # the set-up read_single_assumed says it assumed
        self.view, self.guess_view = None, False  # read.run sets them

    def read_frame(self, bgr):
        assert bgr.ndim == 3 and bgr.shape[2] == 3 and bgr.dtype == np.uint8
        self.calls.append(("frame", bgr.shape))
        if bgr.shape[0] == self.fail_on_height:
            raise RuntimeError("model exploded")
        return list(self.frame)

    def read_single_assumed(self, bgr):
        self.calls.append(("single", bgr.shape))
        return self.single, self.assumed

    def guessing(self):
        return self.guess_view and self.view is None

    def read_frame_guessing(self, bgr, where_refused=False):
        readings = self.read_frame(bgr)  # checked, and failing, as a frame is
        self.calls[-1] = ("guessing where refused" if where_refused else "guessing", bgr.shape)
        return readings, self.guess


FRAME = [
    DieReading("d20", Box(10, 10, 60, 60), Face(17, 0.97)),
    DieReading("d6", Box(100, 10, 140, 50), Cocked(0.88)),
    DieReading("d8", Box(200, 10, 240, 50), Unreadable("glare", 0.2)),
]
SINGLE = DieReading("d10", Box(0, 0, 90, 90), Face(10, 0.91))


@pytest.fixture
def images(tmp_path):
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), np.full((120, 160, 3), 90, np.uint8))
    gray = tmp_path / "gray.jpg"
    cv2.imwrite(str(gray), np.full((100, 100), 128, np.uint8))
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 truncated jpeg")
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    return {"good": str(good), "gray": str(gray), "corrupt": str(corrupt), "empty": str(empty),
            "missing": str(tmp_path / "missing.png"), "dir": str(tmp_path)}


def run_read(argv, rec):
    args = build_parser().parse_args(["read", *argv])
    return read_cmd.run(args, recognizer=rec)


def jsonl(text):
    return [json.loads(line) for line in text.splitlines()]


def test_jsonl_one_object_per_image_with_dice_and_ms(images, capsys):
    rec = FixedRecognizer(FRAME, SINGLE)
    assert run_read(["--jsonl", images["good"], images["gray"]], rec) == 0
    out = jsonl(capsys.readouterr().out)
    assert [o["image"] for o in out] == [images["good"], images["gray"]]
    for o in out:
        assert set(o) == {"image", "dice", "ms"}
        assert isinstance(o["ms"], float) and o["ms"] >= 0
        assert o["dice"] == [r.to_json() for r in FRAME]
    first = out[0]["dice"]
    assert first[0] == {"die": "d20", "value": 17, "box": [10.0, 10.0, 60.0, 60.0],
                        "confidence": 0.97, "state": "flat"}
    assert first[1]["state"] == "cocked" and first[1]["value"] is None
    assert first[2]["state"] == "unreadable" and first[2]["reason"] == "glare"
    assert [c[1][2] for c in rec.calls] == [3, 3]  # grey image decoded to 3 channels


def test_single_reads_one_die_per_image(images, capsys):
    rec = FixedRecognizer(FRAME, SINGLE)
    assert run_read(["--jsonl", "--single", images["good"]], rec) == 0
    (o,) = jsonl(capsys.readouterr().out)
    assert o["dice"] == [SINGLE.to_json()] and o["dice"][0]["value"] == 10
    assert rec.calls == [("single", (120, 160, 3))]
    assert "camera" not in o  # read as it is: nothing assumed


@pytest.mark.parametrize("jsonl_out", [True, False], ids=["jsonl", "text"])
def test_a_single_die_read_as_if_from_straight_above_says_so(images, capsys, jsonl_out):
    # a die refused without a camera and read again as photographed from above (Recognizer.read_single):
    # the reading rests on that assumption, and the output says it
    rec = FixedRecognizer(FRAME, SINGLE)
    rec.assumed = SINGLE_ABOVE
    assert run_read((["--jsonl"] if jsonl_out else []) + ["--single", images["good"]], rec) == 0
    out = capsys.readouterr().out
    if jsonl_out:
        assert jsonl(out)[0]["camera"] == {"assumed": {"hfov": 66.0, "tilt": 0.0, "lean": True}}
    else:
        assert "d10 10 (0.91) (read as if photographed from straight above)" in out


@pytest.mark.parametrize("bad, message", [
    pytest.param("corrupt", "corrupt", id="truncated jpeg"),
    pytest.param("empty", "empty file", id="zero-byte file"),
    pytest.param("missing", "no such file", id="file that does not exist"),
    pytest.param("dir", "directory", id="a folder given as an image"),
])
def test_bad_file_gives_an_error_object_and_the_run_goes_on(bad, message, images, capsys):
    rec = FixedRecognizer(FRAME, SINGLE)
    code = run_read(["--jsonl", images["good"], images[bad], images["gray"]], rec)
    captured = capsys.readouterr()
    out = jsonl(captured.out)
    assert code == 1
    assert [o["image"] for o in out] == [images["good"], images[bad], images["gray"]]
    assert set(out[1]) == {"image", "error"} and message in out[1]["error"]
    assert "dice" in out[0] and "dice" in out[2]  # the images around it were still read
    assert "1 of 3 images could not be read" in captured.err


def test_recognizer_fault_on_one_image_is_reported_not_fatal(images, capsys):
    rec = FixedRecognizer(FRAME, SINGLE, fail_on_height=100)  # the grey image
    assert run_read(["--jsonl", images["gray"], images["good"]], rec) == 1
    out = jsonl(capsys.readouterr().out)
    assert "recognizer failed" in out[0]["error"] and "model exploded" in out[0]["error"]
    assert len(out[1]["dice"]) == 3


def test_text_mode_one_readable_line_per_image(images, capsys):
    rec = FixedRecognizer(FRAME, SINGLE)
    assert run_read([images["good"], images["corrupt"]], rec) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(images["good"] + ": 3 dice in ")
    assert "d20 17 (0.97)" in lines[0] and "d6 cocked" in lines[0]
    assert "d8 unreadable (glare)" in lines[0]
    assert lines[1].startswith(images["corrupt"] + ": ERROR ")


def test_a_phone_photo_is_read_in_its_stored_pixels_not_turned_by_its_exif_tag(tmp_path, capsys):
    """Labels give boxes in the pixels as stored (../shared/realdata/README.md): a photo whose EXIF
    says "turned 90 degrees" must reach the recognizer as stored, or every box lands elsewhere."""
    ok, buf = cv2.imencode(".jpg", np.full((120, 160, 3), 90, np.uint8))
    photo = tmp_path / "phone.jpg"
    photo.write_bytes(with_exif_orientation(buf.tobytes(), 6))
    turned = cv2.imdecode(np.frombuffer(photo.read_bytes(), np.uint8), cv2.IMREAD_COLOR)
    assert turned.shape[:2] == (160, 120)  # the tag is one OpenCV obeys by default
    rec = FixedRecognizer(FRAME, SINGLE)
    assert run_read(["--jsonl", str(photo)], rec) == 0
    assert [c[1] for c in rec.calls] == [(120, 160, 3)]
    assert jsonl(capsys.readouterr().out)[0]["dice"][0]["box"] == [10.0, 10.0, 60.0, 60.0]


def test_help_explains_the_exit_status(capsys):
    with pytest.raises(SystemExit):
        main(["read", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "1 one or more images gave an error" in text


def test_models_that_cannot_be_loaded_are_one_line_and_exit_2(images, tmp_path, capsys):
    code = main(["read", "--jsonl", "--models", str(tmp_path / "no-models"), images["good"]])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.out == ""
    assert "Traceback" not in captured.err and len(captured.err.strip().splitlines()) == 1


def test_the_camera_set_up_reaches_the_recognizer(images, capsys):
    from reader.vision.viewing import CameraView

    rec = FixedRecognizer(FRAME, SINGLE)
    assert run_read(["--jsonl", "--camera-fov", "70", "--camera-tilt", "15", images["good"]], rec) == 0
    assert rec.view == CameraView(70.0, 15.0)
    run_read(["--jsonl", images["good"]], rec)
    assert rec.view is None  # none given: every die read as if seen from above


# (the guess the recognizer makes, what the JSON says of the camera)
GUESS_CASES = {
    "a set-up guessed from the dice": ("leaning", {"guessed": {"hfov": 75.0, "tilt": 20.0, "toward": 90.0,
                                                               "lean": True}}),
    "no guess: every die read at once, or too few dice": (None, None),
}


@pytest.mark.parametrize("guess, camera", GUESS_CASES.values(), ids=GUESS_CASES.keys())
def test_a_guessed_camera_is_said_with_the_readings(guess, camera, images, capsys):
    from reader.vision.camera_guess import CameraGuess
    from reader.vision.viewing import CameraView

    rec = FixedRecognizer(FRAME, SINGLE)
    rec.guess = CameraGuess(CameraView(75.0, 20.0, True, 90.0), 3.2) if guess else None
    assert run_read(["--jsonl", "--guess-camera", images["good"]], rec) == 0
    (out,) = jsonl(capsys.readouterr().out)
    assert out.get("camera") == camera
    assert [d["value"] for d in out["dice"]] == [17, None, None]
    assert rec.calls == [("guessing where refused", (120, 160, 3))]
    run_read(["--guess-camera", images["good"]], rec)  # the line of text says it too
    said = "(read with the camera 75 deg wide, tilted 20 toward the right, lean look guessed from the dice)"
    assert (said in capsys.readouterr().out) == bool(guess)
    run_read(["--jsonl", images["good"]], rec)  # not asked: no guess, and no word of a camera
    assert "camera" not in jsonl(capsys.readouterr().out)[0] and rec.calls[-1][0] == "frame"


@pytest.mark.parametrize("argv, says", [
    pytest.param(["--guess-camera", "--camera-fov", "60"], "not both", id="a camera described and guessed"),
    pytest.param(["--camera-tilt", "20"], "needs --camera-fov", id="a lean without a field of view"),
    pytest.param(["--camera-fov", "5"], "field of view", id="a field of view no camera has"),
    pytest.param(["--camera-fov", "60", "--camera-tilt", "89"], "tilt", id="a camera facing the horizon"),
])
def test_a_camera_set_up_that_cannot_be_is_one_line_and_exit_2(argv, says, images, capsys):
    assert main(["read", *argv, images["good"]]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
