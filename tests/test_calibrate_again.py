"""Calibrating a reader that is already calibrated (models/reader.onnx, when its uncalibrated export
is gone with work/) must pick its thresholds from the calibration dice alone: the old thresholds
must not hide the wrong readings under them. Needs the training extras (torch)."""

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")

from models.train import calibrate  # noqa: E402
from models.train.reader_data import synth_scene_patches  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _calibration_dice(tmp_path) -> Path:
    """The dice of the first rendered stills (fixtures/stills), as a calibration set."""
    stills = ROOT / "fixtures" / "stills"
    lines = []
    for line in (stills / "labels.jsonl").read_text().splitlines()[:60]:
        rec = json.loads(line)
        rec["image"] = str(stills / rec["image"])
        lines.append(json.dumps(rec))
    scenes = tmp_path / "scenes"
    scenes.mkdir()
    (scenes / "labels.jsonl").write_text("\n".join(lines) + "\n")
    p = synth_scene_patches(scenes)
    imgs, ti, fi, si, src = p.arrays()
    out = tmp_path / "calib.npz"
    np.savez_compressed(out, imgs=imgs, ti=ti, fi=fi, si=si, src=src)
    return out


def _strip_thresholds(src: Path, dst: Path) -> None:
    model = onnx.load(str(src))
    keep = [(p.key, p.value) for p in model.metadata_props
            if p.key not in ("accept_threshold", "accept_threshold_by_die", "cocked_threshold")]
    del model.metadata_props[:]
    for k, v in keep:
        p = model.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(model, str(dst))


def test_old_thresholds_do_not_hide_wrong_readings_from_a_new_calibration(tmp_path):
    calib = _calibration_dice(tmp_path)
    bare = tmp_path / "reader.onnx"
    _strip_thresholds(ROOT / "models" / "reader.onnx", bare)
    looks = ["--top-face", str(ROOT / "models" / "reader_top.onnx"),
             "--top-face", str(ROOT / "models" / "reader_top_d6.onnx"), "--min-source", "20"]
    calibrate.main([str(bare), str(calib), "--out", str(tmp_path / "bare.json")] + looks)
    calibrate.main([str(ROOT / "models" / "reader.onnx"), str(calib), "--out", str(tmp_path / "again.json")] + looks)
    bare_cal = json.loads((tmp_path / "bare.json").read_text())
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["accept_threshold_by_die"] == bare_cal["accept_threshold_by_die"]
    assert again["accept_threshold"] == bare_cal["accept_threshold"]
    assert again["calibration"] == bare_cal["calibration"]


def test_a_release_s_thresholds_can_be_kept_while_a_look_is_added(tmp_path):
    """calibrate --thresholds-from keeps the given reader's thresholds (the rule's own are written
    beside them), so a new look is measured alone (models/reader.md, v9)."""
    calib = _calibration_dice(tmp_path)
    bare = tmp_path / "reader.onnx"
    _strip_thresholds(ROOT / "models" / "reader.onnx", bare)
    committed = onnx.load(str(ROOT / "models" / "reader.onnx"))
    ref = {p.key: json.loads(p.value) for p in committed.metadata_props}
    calibrate.main([str(bare), str(calib), "--out", str(tmp_path / "kept.json"), "--min-source", "20",
                    "--top-face", str(ROOT / "models" / "reader_top.onnx"),
                    "--top-face", str(ROOT / "models" / "reader_top_d6.onnx"),
                    "--thresholds-from", str(ROOT / "models" / "reader.onnx")])
    kept = json.loads((tmp_path / "kept.json").read_text())
    assert kept["accept_threshold_by_die"] == ref["accept_threshold_by_die"]
    assert kept["accept_threshold"] == ref["accept_threshold"]
    assert kept["cocked_threshold"] == ref["cocked_threshold"]
    assert set(kept["rule_thresholds"]) == {"accept_threshold", "accept_threshold_by_die", "cocked_threshold"}
    assert kept["rule_thresholds"]["accept_threshold_by_die"] != ref["accept_threshold_by_die"]


def test_a_new_look_s_die_type_can_take_the_rule_s_threshold_while_the_rest_are_kept(tmp_path):
    """calibrate --thresholds-from R --rule-for d6: the D6 (the type the new look reads) gets the
    rule's threshold on these dice; every other type keeps the release's."""
    calib = _calibration_dice(tmp_path)
    committed = onnx.load(str(ROOT / "models" / "reader.onnx"))
    ref = {p.key: json.loads(p.value) for p in committed.metadata_props}
    calibrate.main([str(ROOT / "models" / "reader.onnx"), str(calib), "--out", str(tmp_path / "mixed.json"),
                    "--min-source", "20", "--top-face", str(ROOT / "models" / "reader_top.onnx"),
                    "--top-face", str(ROOT / "models" / "reader_top_d6.onnx"),
                    "--thresholds-from", str(ROOT / "models" / "reader.onnx"), "--rule-for", "d6"])
    mixed = json.loads((tmp_path / "mixed.json").read_text())
    rule = mixed["rule_thresholds"]["accept_threshold_by_die"]
    assert rule["d6"] != ref["accept_threshold_by_die"]["d6"]  # else this test would tell nothing
    assert mixed["accept_threshold_by_die"]["d6"] == rule["d6"]
    others = {k: v for k, v in mixed["accept_threshold_by_die"].items() if k != "d6"}
    assert others == {k: v for k, v in ref["accept_threshold_by_die"].items() if k != "d6"}
    assert mixed["rule_for"] == ["d6"]


def test_the_release_s_whole_look_can_keep_its_temperatures(tmp_path):
    """calibrate --thresholds-from R --keep-whole-temperature: the whole look's type and face
    temperatures are R's, not refitted on these dice. A candidate that replaces only a second look is
    calibrated so: refitted on calibration dice filtered for the new look, the release's own face
    temperature moved 0.9 -> 0.8 and read two more renders wrong (models/reader.md, session 59)."""
    calib = _calibration_dice(tmp_path)
    committed = onnx.load(str(ROOT / "models" / "reader.onnx"))
    ref = {p.key: json.loads(p.value) for p in committed.metadata_props}
    common = [str(ROOT / "models" / "reader.onnx"), str(calib), "--min-source", "20",
              "--top-face", str(ROOT / "models" / "reader_top.onnx"),
              "--thresholds-from", str(ROOT / "models" / "reader.onnx")]
    calibrate.main(common + ["--out", str(tmp_path / "refit.json")])
    calibrate.main(common + ["--out", str(tmp_path / "kept.json"), "--keep-whole-temperature"])
    refit = json.loads((tmp_path / "refit.json").read_text())
    kept = json.loads((tmp_path / "kept.json").read_text())
    refit_t = (refit["temperature_type"], refit["temperature_face"])
    assert refit_t != (ref["temperature_type"], ref["temperature_face"])  # else this test would tell nothing
    assert (kept["temperature_type"], kept["temperature_face"]) == (ref["temperature_type"], ref["temperature_face"])
    with pytest.raises(SystemExit):  # nothing to keep them from
        calibrate.main([str(ROOT / "models" / "reader.onnx"), str(calib), "--out", str(tmp_path / "x.json"),
                        "--keep-whole-temperature"])


# conf, wrong, read_as per die; kept thresholds; the release's wrong by die; the raised thresholds
BUDGETS = {
    "as careful as the release: the kept threshold stays": (
        [0.95, 0.90, 0.70], [True, False, True], ["d6"] * 3, {"d6": 0.84}, {"d6": 1}, {}),
    "one wrong more than the release: raised just over the less sure wrong, the other let through": (
        [0.95, 0.90, 0.88], [True, False, True], ["d6"] * 3, {"d6": 0.84}, {"d6": 1}, {"d6": 0.881}),
    "the release let none through: every wrong of that type refused": (
        [0.97, 0.99, 0.86], [True, False, True], ["d8"] * 3, {"d8": 0.81}, {}, {"d8": 0.971}),
    "a type with no wrongs keeps its threshold, another is raised": (
        [0.99, 0.92, 0.93], [False, True, False], ["d6", "d10", "d10"], {"d6": 0.84, "d10": 0.8}, {},
        {"d10": 0.921}),
    "a type the release keeps no threshold for starts from the global one": (
        [0.91, 0.85], [True, True], ["d20", "d20"], {}, {}, {"d20": 0.911}),
}


@pytest.mark.parametrize("conf, wrong, read_as, kept, budget, raised", BUDGETS.values(), ids=BUDGETS.keys())
def test_a_new_reader_accepts_no_more_wrong_dice_of_a_type_than_the_release(conf, wrong, read_as, kept, budget,
                                                                           raised):
    """calibrate --wrong-budget: a type's kept threshold rises only as far as it must for the new
    reader's accepted wrong readings of that type to be no more than the release's."""
    got = calibrate.wrong_budget_thresholds(np.array(conf), np.array(wrong), np.array(read_as), kept, 0.89, budget)
    assert got == raised
    for die, thr in {**kept, **got}.items():
        m = np.array(wrong) & (np.array(read_as) == die)
        assert int((m & (np.array(conf) >= thr)).sum()) <= budget.get(die, 0)


def test_wrong_rendered_dice_are_not_bought_with_right_real_ones():
    """With sources, the budget holds per source too: the release let one real D10 wrong through and
    none rendered; a reader with no real wrong but one rendered is raised over the rendered one."""
    conf = np.array([0.90, 0.85])
    wrong = np.array([True, False])
    read_as = np.array(["d10", "d10"])
    source = np.array(["synth-scenes", "tray-mixed-bartek"])
    budget = {"d10": 1, "d10|tray-mixed-bartek": 1}
    assert calibrate.wrong_budget_thresholds(conf, wrong, read_as, {"d10": 0.8}, 0.89, budget) == {}
    got = calibrate.wrong_budget_thresholds(conf, wrong, read_as, {"d10": 0.8}, 0.89, budget, source=source)
    assert got == {"d10": 0.901}


# p(cocked) of the state check for three leaning dice the reader alone reads surely; the release's
# count of leaning dice valued; the threshold chosen
CHECKS = {
    "the release valued one: the check refuses the two it doubts most": ([0.30, 0.20, 0.08], 1, 0.20),
    "the release valued none: the check refuses all three": ([0.30, 0.20, 0.08], 0, 0.08),
    "the release valued all three: the check refuses nothing it can help": ([0.30, 0.20, 0.08], 3, 0.50),
}


@pytest.mark.parametrize("checked, allowed, want", CHECKS.values(), ids=CHECKS.keys())
def test_the_state_check_is_as_lenient_as_the_release_allows(checked, allowed, want):
    """calibrate --state-check: the highest threshold at which no more leaning calibration dice are
    given a value than the release gives; a flat die the check finds flat is read at every one."""
    from reader.vision.faces import FaceEvidence, FaceReader, StateCheck

    class Meta:
        meta = {"types": ["d4", "d6", "d8", "d10", "d12", "d20", "none"], "accept_threshold": 0.5,
                "cocked_threshold": 0.4}

    tp = np.array([0.0, 0.99, 0.0, 0.0, 0.0, 0.01, 0.0])
    fp = np.array([0.002, 0.002, 0.99, 0.002, 0.002, 0.002])
    evs = [FaceEvidence(tp, fp, 0.05, True, c) for c in [*checked, 0.01]]  # three leaning, one flat
    reader = FaceReader(Meta(), state_check=StateCheck(object(), 1.01))
    boxes = [(0, 0, 10, 10)] * 4
    ti, fi = np.array([1] * 4), np.array([2] * 4)
    leaning = np.array([True, True, True, False])
    t, table = calibrate.state_check_threshold(reader, evs, boxes, ti, fi, leaning, ~leaning, allowed)
    assert t == pytest.approx(want)
    assert reader.state_check.threshold == pytest.approx(want)
    assert table[f"{want:.2f}"] == {"leaning_valued": min(allowed, 3), "flat_accepted": 1}
