"""`dice-reader evaluate` on tiny labeled sets drawn here, with a scripted fake recognizer."""

from __future__ import annotations

import errno
import hashlib
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from reader.cli import build_parser, main
from reader.commands import evaluate as evaluate_cmd
from reader.errors import DiceReaderError
from reader.reading import Box, DieReading, Face, Unreadable
from reader.vision.realdata import is_holdout
from reader.vision.sheet import TILE, draw_sheet, wrong_dice


def digest(bgr: np.ndarray) -> str:
    return hashlib.md5(np.ascontiguousarray(bgr).tobytes()).hexdigest()


class ScriptedRecognizer:
    """Test fake: answers each image with the readings scripted for its exact pixels.

    An image it was not told about fails the test (KeyError), so the evaluation must hand the
    recognizer the decoded image, and call read_single only for single-die images.
    """

    def __init__(self):
        self.frames: dict[str, list[DieReading]] = {}
        self.singles: dict[str, DieReading] = {}
        self.calls: list[str] = []

    def read_frame(self, bgr):
        self.calls.append("frame")
        return list(self.frames[digest(bgr)])

    def read_single(self, bgr):
        self.calls.append("single")
        return self.singles[digest(bgr)]


def draw_scene(path, boxes, seed):
    """A 320x240 'tray' with light squares where the dice are; PNG so pixels survive exactly."""
    rng = np.random.default_rng(seed)
    img = np.full((240, 320, 3), (40, 90, 40), np.uint8)
    img += rng.integers(0, 20, img.shape, dtype=np.uint8)
    for x0, y0, x1, y1 in boxes:
        cv2.rectangle(img, (x0, y0), (x1, y1), (230, 230, 230), -1)
        cv2.circle(img, ((x0 + x1) // 2, (y0 + y1) // 2), 4, (0, 0, 0), -1)
    assert cv2.imwrite(str(path), img)
    return cv2.imread(str(path))


def reading(die, value, box):
    return DieReading(die=die, box=Box.from_list(box), outcome=Face(value, 0.97))


@pytest.fixture
def tiny_set(tmp_path):
    """4 images, 5 dice: 2 read right, 1 read wrong, 1 single-die crop read right, 1 corrupt."""
    folder = tmp_path / "tiny-set"
    folder.mkdir()
    rec = ScriptedRecognizer()
    b1, b2, b3 = (20, 20, 80, 80), (150, 100, 210, 160), (100, 60, 160, 120)
    two = draw_scene(folder / "two.png", [b1, b2], seed=1)
    rec.frames[digest(two)] = [reading("d6", 3, b1), reading("d8", 5, b2)]
    wrong = draw_scene(folder / "wrong.png", [b3], seed=2)
    rec.frames[digest(wrong)] = [reading("d6", 2, b3)]
    single = draw_scene(folder / "single.png", [(0, 0, 319, 239)], seed=3)
    rec.singles[digest(single)] = reading("d20", 17, (5, 5, 310, 230))
    (folder / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n this is not a picture")
    labels = [
        {"image": "two.png", "dice": [{"die": "d6", "value": 3, "box": list(b1)},
                                      {"die": "d8", "value": 5, "box": list(b2)}]},
        {"image": "wrong.png", "dice": [{"die": "d6", "value": 4, "box": list(b3)}]},
        {"image": "single.png", "dice": [{"die": "d20", "value": 17, "box": None}]},
        {"image": "corrupt.png", "dice": [{"die": "d6", "value": 1, "box": [0, 0, 50, 50]}]},
    ]
    (folder / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    return folder, rec


def run_evaluate(argv, rec):
    args = build_parser().parse_args(["evaluate", *argv])
    return evaluate_cmd.run(args, recognizer=rec)


def test_evaluate_scores_a_set_and_writes_the_sheet(tiny_set, tmp_path, capsys):
    folder, rec = tiny_set
    sheet = tmp_path / "out" / "sheet.png"
    assert run_evaluate([str(folder), "--json", "--sheet", str(sheet)], rec) == 0
    out, err = capsys.readouterr()
    (s,) = json.loads(out)["sets"]
    assert s["set"] == "tiny-set"  # not a training set: every image scored
    assert (s["images"], s["images_failed"], s["dice"], s["found"]) == (4, 1, 5, 4)
    assert (s["right"], s["accepted_wrong"], s["false_detections"]) == (3, 1, 0)
    assert s["end_to_end"] == pytest.approx(3 / 5, abs=1e-4)
    assert s["accepted_wrong_rate"] == pytest.approx(1 / 5, abs=1e-4)
    assert s["value_confusions"] == {"d6 4->2": 1}
    assert sorted(rec.calls) == ["frame", "frame", "single"]  # corrupt file never reached it
    assert "4/4" in err  # progress on stderr
    assert s["sheet"] == str(sheet)
    img = cv2.imread(str(sheet))
    assert img is not None and img.shape[0] > TILE  # one row: the wrong die and the missed one


@pytest.mark.parametrize("name, want", [
    pytest.param("sheet", "sheet.png", id="no suffix: a PNG"),
    pytest.param("sheet.jpg", "sheet.jpg", id="a suffix OpenCV knows is kept"),
])
def test_the_sheet_name_gets_a_format(tiny_set, tmp_path, capsys, name, want):
    folder, rec = tiny_set
    assert run_evaluate([str(folder), "--json", "--sheet", str(tmp_path / name)], rec) == 0
    (s,) = json.loads(capsys.readouterr().out)["sets"]
    assert s["sheet"] == str(tmp_path / want) and cv2.imread(s["sheet"]) is not None


def test_a_sheet_that_cannot_be_written_costs_the_figures_nothing(tiny_set, tmp_path, capsys):
    folder, rec = tiny_set
    (tmp_path / "file").write_text("a file where a folder should be")
    assert run_evaluate([str(folder), "--json", "--sheet", str(tmp_path / "file" / "sheet.png")], rec) == 0
    out, err = capsys.readouterr()
    (s,) = json.loads(out)["sets"]
    assert s["end_to_end"] == pytest.approx(3 / 5, abs=1e-4) and s["sheet"] is None
    assert "cannot write the error sheet" in err and "figures are not affected" in err


def test_two_sets_of_one_folder_name_keep_their_own_rows_and_sheets(tiny_set, tmp_path, capsys):
    import shutil

    folder, rec = tiny_set
    other = tmp_path / "big" / folder.name  # the same trays rendered again, say at 1280x720
    shutil.copytree(folder, other)
    sheet = tmp_path / "out" / "sheet.png"
    assert run_evaluate([str(folder), str(other), "--json", "--sheet", str(sheet)], rec) == 0
    sets = json.loads(capsys.readouterr().out)["sets"]
    assert [s["set"] for s in sets] == [f"{folder.parent.name}/tiny-set", "big/tiny-set"]
    assert len({s["sheet"] for s in sets}) == 2 and all(Path(s["sheet"]).is_file() for s in sets)


def test_evaluate_prints_an_aligned_table(tiny_set, capsys, tmp_path):
    folder, rec = tiny_set
    assert run_evaluate([str(folder), "--no-sheet"], rec) == 0
    out = capsys.readouterr().out
    header, rule, row = out.splitlines()[:3]
    assert header.startswith("set") and set(rule) <= {"-", " "}
    assert row.split()[:3] == ["tiny-set", "4", "5"]
    assert "60.00%" in row  # end-to-end 3/5
    assert "accepted-but-wrong 1" in out


def test_training_sets_are_scored_on_their_holdout_fifth(tmp_path, capsys):
    folder = tmp_path / "tray-d6-nell"  # a set the models train on
    folder.mkdir()
    rec = ScriptedRecognizer()
    names = [f"img{i:02d}.png" for i in range(15)]
    labels = []
    for i, name in enumerate(names):
        box = (10 + 5 * i, 10, 60 + 5 * i, 60)
        img = draw_scene(folder / name, [box], seed=100 + i)
        rec.frames[digest(img)] = [reading("d6", 1 + i % 6, box)]
        labels.append({"image": name, "dice": [{"die": "d6", "value": 1 + i % 6,
                                                "box": list(box)}]})
    (folder / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    holdout = sum(is_holdout("tray-d6-nell", n) for n in names)
    assert 0 < holdout < len(names)  # the names above do split

    run_evaluate([str(folder), "--json", "--no-sheet"], rec)
    (s,) = json.loads(capsys.readouterr().out)["sets"]
    assert s["images"] == holdout and s["set"] == "tray-d6-nell (holdout)"
    assert s["end_to_end"] == 1.0

    run_evaluate([str(folder), "--json", "--no-sheet", "--all-images", "--limit", "4"], rec)
    (s,) = json.loads(capsys.readouterr().out)["sets"]
    assert s["images"] == 4 and s["set"] == "tray-d6-nell"


def test_no_sheet_when_nothing_went_wrong(tmp_path, capsys):
    folder = tmp_path / "clean"
    folder.mkdir()
    rec = ScriptedRecognizer()
    img = draw_scene(folder / "a.png", [(10, 10, 60, 60)], seed=5)
    rec.frames[digest(img)] = [reading("d12", 11, (10, 10, 60, 60))]
    (folder / "labels.jsonl").write_text(
        json.dumps({"image": "a.png", "dice": [{"die": "d12", "value": 11,
                                                "box": [10, 10, 60, 60]}]}) + "\n")
    sheet = tmp_path / "s.png"
    run_evaluate([str(folder), "--json", "--sheet", str(sheet)], rec)
    (s,) = json.loads(capsys.readouterr().out)["sets"]
    assert s["end_to_end"] == 1.0 and s["sheet"] is None and not sheet.exists()


@pytest.mark.parametrize("argv, message", [
    pytest.param(["evaluate", "/no/such/set"], "no such set", id="missing set folder"),
    pytest.param(["evaluate", "{tmp}"], "no labels.jsonl", id="folder that is not a set"),
    pytest.param(["evaluate", "{tmp}", "--limit", "0"], "--limit", id="limit below one"),
    pytest.param(["evaluate", "{set}", "--truth-cameras"], "no events.jsonl", id="known cameras of photos"),
    pytest.param(["evaluate", "{set}", "--truth-cameras", "--camera-fov", "60"], "not both",
                 id="two cameras at once"),
    pytest.param(["evaluate", "{set}", "--lean-look"], "--camera-fov", id="the lean look, no camera"),
])
def test_bad_input_is_one_clear_line_and_exit_2(argv, message, tmp_path, capsys):
    (tmp_path / "set").mkdir()
    (tmp_path / "set" / "labels.jsonl").write_text('{"image": "a.png", "dice": []}\n')
    argv = [a.replace("{tmp}", str(tmp_path)).replace("{set}", str(tmp_path / "set")) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_sheet_tiles_worst_first_and_survives_an_unreadable_image(tiny_set):
    from reader.vision.evaluate import score_image
    from reader.vision.realdata import LabeledDie

    labels = [LabeledDie("d6", 4, (10.0, 10.0, 60.0, 60.0)), LabeledDie("d6", 2, (300, 200, 319, 239))]
    res = score_image("gone.png", labels, [reading("d6", 1, (10, 10, 60, 60))], ms=1.0)
    assert [d.kind for d in wrong_dice(res.dice)] == ["accepted-wrong", "missed"]
    sheet = draw_sheet(res.dice, lambda path: None, title="t", columns=4)
    assert sheet is not None and sheet.shape[1] == 4 * (TILE + 12)


def test_sheet_shows_a_phantom_right_after_the_accepted_wrong():
    """A find no label explains that is given a value is a die the rules would count: its tile comes
    before the wrong types, the missed dice and the refused finds, which need no look."""
    from reader.vision.evaluate import score_image
    from reader.vision.realdata import LabeledDie

    labels = [LabeledDie("d6", 4, (10.0, 10.0, 60.0, 60.0)), LabeledDie("d6", 2, (300, 200, 319, 239)),
              LabeledDie("d8", 3, (100.0, 10.0, 150.0, 60.0))]
    refused = DieReading(die="d6", box=Box.from_list((600, 10, 640, 50)), outcome=Unreadable("views disagree", 0.5))
    readings = [refused, reading("d6", 1, (10, 10, 60, 60)),
                reading("d6", 3, (100, 10, 150, 60)), reading("d6", 5, (400, 10, 440, 50))]
    res = score_image("a.png", labels, readings, ms=1.0)
    assert [d.kind for d in wrong_dice(res.dice)] == [
        "accepted-wrong", "accepted-wrong", "phantom", "missed", "false-detection"]


class BrightBoxRecognizer:
    """Test fake: reads a D6 3 in the box of the light pixels, wherever the image puts them."""

    def __init__(self):
        self.seen: list[tuple] = []

    def read_frame(self, bgr):
        ys, xs = np.nonzero(bgr.min(axis=2) > 200)
        box = (float(xs.min()), float(ys.min()), float(xs.max()), float(ys.max()))
        self.seen.append(box)
        return [reading("d6", 3, box)]


def test_a_shifted_evaluation_reads_the_moved_image_and_scores_the_readings_where_the_dice_are(tmp_path):
    """--shift: the recognizer is handed the image moved (a camera a hair to the side) and its
    readings are moved back onto the labels, so a die read right is still scored right."""
    from reader.vision.realdata import load_set

    box = (100, 60, 160, 120)
    draw_scene(tmp_path / "one.png", [box], seed=4)
    (tmp_path / "labels.jsonl").write_text(json.dumps(
        {"image": "one.png", "dice": [{"die": "d6", "value": 3, "box": list(box)}]}) + "\n")
    rec = BrightBoxRecognizer()
    (result,) = evaluate_cmd.evaluate_images(load_set(tmp_path), rec, shift=(6.0, -4.0))
    assert rec.seen == [(106.0, 56.0, 166.0, 116.0)]
    (die,) = result.dice
    assert die.kind == "right" and tuple(die.reading.box) == (100.0, 60.0, 160.0, 120.0)


@pytest.mark.parametrize("given", ["0.5", "a,b", "9,0", "nan,0"], ids=["one number", "not numbers", "too far",
                                                                       "not a number"])
def test_a_shift_that_is_no_hair_to_the_side_is_refused(given, capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["evaluate", "--shift", given, "fixtures/stills"])
    assert "--shift" in capsys.readouterr().err


def test_dice_log_and_comparison_through_the_command(tiny_set, tmp_path, capsys):
    folder, rec = tiny_set
    log = tmp_path / "logs" / "before.jsonl"
    assert run_evaluate([str(folder), "--no-sheet", "--dice", str(log)], rec) == 0
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert sorted(r["kind"] for r in rows) == ["accepted-wrong", "missed", "right", "right", "right"]
    assert {r["image"] for r in rows} == {"two.png", "wrong.png", "single.png", "corrupt.png"}  # named in its set
    assert [r["error"] is not None for r in rows if r["image"] == "corrupt.png"] == [True]
    # the same set read again, its first image's d8 now refused: the command names it, for the worse
    two = draw_scene(tmp_path / "again.png", [(20, 20, 80, 80), (150, 100, 210, 160)], seed=1)
    rec.frames[digest(two)] = [reading("d6", 3, (20, 20, 80, 80)),
                              DieReading("d8", Box(150, 100, 210, 160), Unreadable("low confidence", 0.66))]
    capsys.readouterr()
    assert run_evaluate([str(folder), "--no-sheet", "--against", str(log)], rec) == 0
    out = capsys.readouterr().out
    assert "5 labeled dice in both logs, 1 changed (1 for the worse)" in out
    changed = "tiny-set two.png: d8 5: d8 5 (0.97) [right] -> d8 refused: low confidence (0.66) [not-accepted]"
    assert f"worse: {changed}" in out
    assert run_evaluate([str(folder), "--no-sheet", "--json", "--against", str(log)], rec) == 0
    against = json.loads(capsys.readouterr().out)["against"]
    assert against["changes"] == [changed]


@pytest.mark.parametrize("make, argv, message", [
    pytest.param(lambda t: (t / "file").write_text("x"), ["--dice", "{tmp}/file/log.jsonl"],
                 "cannot write the die log", id="a log under a file"),
    pytest.param(lambda t: None, ["--against", "{tmp}/none.jsonl"], "cannot read the die log", id="no earlier log"),
    pytest.param(lambda t: (t / "old.jsonl").write_text('{"set": "s"}\n'), ["--against", "{tmp}/old.jsonl"],
                 "line 1 is not a die row", id="an earlier log of something else"),
    pytest.param(lambda t: (t / "old.jsonl").write_text("not json\n"), ["--against", "{tmp}/old.jsonl"],
                 "line 1 is not a die row", id="a damaged earlier log"),
])
def test_a_log_that_cannot_be_used_fails_before_any_image_is_read(make, argv, message, tiny_set, tmp_path):
    folder, rec = tiny_set
    make(tmp_path)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    with pytest.raises(DiceReaderError, match=message):  # the command line prints it as one line, exit 2
        run_evaluate([str(folder), "--no-sheet", *argv], rec)
    assert rec.calls == []


def test_a_full_disk_stops_the_log_and_costs_the_figures_nothing(tiny_set, tmp_path, capsys, monkeypatch):
    class FullFile:
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def close(self):
            pass

    real_init = evaluate_cmd.DieLog.__init__

    def full_disk(self, path):
        real_init(self, path)
        self.file.close()
        self.file = FullFile()

    monkeypatch.setattr(evaluate_cmd.DieLog, "__init__", full_disk)
    folder, rec = tiny_set
    assert run_evaluate([str(folder), str(folder), "--no-sheet", "--json", "--dice", str(tmp_path / "log.jsonl")],
                        rec) == 0
    out, err = capsys.readouterr()
    sets = json.loads(out)["sets"]
    assert [s["end_to_end"] for s in sets] == [pytest.approx(3 / 5, abs=1e-4)] * 2
    assert "No space left on device" in err and "figures are not affected" in err
    assert err.count("cannot write the die log") == 1  # said once, not once a set
