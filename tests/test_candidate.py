"""models.train.candidate measures a new look against the release by the rule that ships a reader:
it must place every look as the release does (a look calibrated with another weight or other dice
is another reader than the one measured), and must mark every set on which the candidate lets more
wrong readings, or more cocked dice, through."""

from pathlib import Path

import pytest

from models.train.candidate import calibrate_args, compare, evaluate, kept_temperatures
from reader.vision.onnx_model import OnnxModel

MODELS = Path(__file__).resolve().parents[1] / "models"
# reader v19's looks (its metadata "top_face"): a release with no D20 look of its own, to add one to
V19_LOOKS = [
    {"model": "reader_top.onnx", "per_side": 0.7, "dice": ["d12", "d20", "d8"], "temperature": 0.8, "weight": 0.5},
    {"model": "reader_top_d6.onnx", "per_side": 0.7, "dice": ["d6"], "temperature": 0.7, "weight": 0.75,
     "cut_by_die": {"d6": 1.15}},
    {"model": "reader_top_d10.onnx", "per_side": 0.7, "dice": ["d10"], "temperature": 0.9, "weight": 0.5},
]


@pytest.fixture(autouse=True)
def release_figures_apart(tmp_path, monkeypatch):
    """Every run of main here caches the release's figures under tmp_path: the shared cache
    (work/candidates/release.json) is the developer's, and a cached release would leave it unmeasured."""
    from models.train import candidate

    monkeypatch.setattr(candidate, "RELEASE_FIGURES", tmp_path / "release-figures" / "release.json")


def test_the_release_figures_are_shared_by_candidates_judged_into_other_folders(tmp_path, monkeypatch):
    """The release is measured once for its models and reading code, whatever folder a candidate is
    judged into (session 69 measured it twice, 8 minutes each, for two --out folders)."""
    from models.train import candidate

    judged = []
    monkeypatch.setattr(candidate, "_run", lambda cmd, log: None)
    monkeypatch.setattr(candidate, "evaluate", lambda models, sets, out, shift="0,0": judged.append(models) or [
        _set(400, 1, name=s) for s in sets])
    new = tmp_path / "new_detector.onnx"
    new.write_bytes(b"a detector taught anew")
    for out in ("first", "second"):
        assert candidate.main(["det", "--detector", str(new), "--out", str(tmp_path / out)]) == 0
    assert judged.count(Path("models")) == len(candidate.SETS)  # the release: each set measured once, by the first
    assert judged.count(tmp_path / "first" / "det") == judged.count(tmp_path / "second" / "det") == 1


def test_the_looks_are_placed_as_the_release_places_them():
    top_face = OnnxModel(MODELS / "reader.onnx").meta["top_face"]
    args = calibrate_args(top_face, Path("cand"))
    # the command reader v20 was calibrated with (its D20 look at weight 1.0; v10-v19 had the first three)
    assert args == ["--top-face", "cand/reader_top.onnx",
                    "--top-face", "cand/reader_top_d6.onnx",
                    "--top-face", "cand/reader_top_d10.onnx",
                    "--top-face", "cand/reader_top_d20.onnx",
                    "--top-face-dice", "d12", "d8",
                    "--look-weight", "reader_top_d6.onnx=0.75", "reader_top_d20.onnx=1.0"]
    assert calibrate_args(V19_LOOKS, Path("cand"))[-6:] == ["--top-face-dice", "d12", "d20", "d8",
                                                            "--look-weight", "reader_top_d6.onnx=0.75"]


def test_a_new_look_takes_its_dice_from_the_numeral_look():
    # a D20 look of its own added to v19: the numeral look keeps the D8 and D12, no type is claimed twice
    args = calibrate_args(V19_LOOKS, Path("cand"), {"reader_top_d20.onnx": ["d20"]})
    i = args.index("--top-face-dice")
    assert args[i:i + 4] == ["--top-face-dice", "d12", "d8", "--look-weight"]
    assert "cand/reader_top_d20.onnx" in args and "d20" not in args


# (weights asked for) -> calibrate's --look-weight items, all after one flag (it keeps the last flag)
WEIGHT_CASES = {
    "a new look weighted beside the D6's": ({"reader_top_d20.onnx": 0.75},
                                             ["reader_top_d6.onnx=0.75", "reader_top_d20.onnx=0.75"]),
    "a release's look weighted anew": ({"reader_top_d6.onnx": 0.6}, ["reader_top_d6.onnx=0.6"]),
    "back to the default: no weight named": ({"reader_top_d6.onnx": 0.5}, []),
}


@pytest.mark.parametrize("weights, run", WEIGHT_CASES.values(), ids=WEIGHT_CASES.keys())
def test_a_look_is_calibrated_at_the_weight_asked_for(weights, run):
    """A look weighted otherwise is pooled otherwise: calibrated at one weight and read at another,
    its thresholds would be another reader's."""
    args = calibrate_args(V19_LOOKS, Path("cand"), {"reader_top_d20.onnx": ["d20"]}, weights)
    flags = [i for i, a in enumerate(args) if a == "--look-weight"]
    assert len(flags) == (1 if run else 0)
    got = args[flags[0] + 1:] if flags else []
    assert got == run
    assert "cand/reader_top_d20.onnx" in args


# (release looks replaced by --look) -> the looks that keep the release's temperature
KEEP_CASES = {
    "a new look added, none replaced: all four kept": (set(), ["reader_top.onnx", "reader_top_d6.onnx",
                                                               "reader_top_d10.onnx", "reader_top_d20.onnx"]),
    "the numeral look replaced: fitted anew, the rest kept": ({"reader_top.onnx"}, ["reader_top_d6.onnx",
                                                                                    "reader_top_d10.onnx",
                                                                                    "reader_top_d20.onnx"]),
}


@pytest.mark.parametrize("replaced, kept", KEEP_CASES.values(), ids=KEEP_CASES.keys())
def test_the_release_looks_keep_their_temperatures(replaced, kept):
    """A release look refitted on fewer die types moves its temperature, and the kept thresholds with
    it: the new look would be blamed for what the refit let through."""
    top_face = OnnxModel(MODELS / "reader.onnx").meta["top_face"]
    assert kept_temperatures(top_face, replaced) == ["--keep-temperature", *kept]


def test_calibrate_keeps_only_a_release_look_s_temperature(tmp_path):
    pytest.importorskip("torch")  # calibrate reads the training data's crop sizes (models.train.nets: torch)
    from models.train.calibrate import main

    with pytest.raises(SystemExit):  # no such look in the release: refused before any work
        main([str(MODELS / "reader.onnx"), str(tmp_path / "none.npz"), "--out", str(tmp_path / "c.json"),
              "--thresholds-from", str(MODELS / "reader.onnx"), "--keep-temperature", "reader_top_d12.onnx"])
    with pytest.raises(SystemExit):  # nothing to keep it from
        main([str(MODELS / "reader.onnx"), str(tmp_path / "none.npz"), "--out", str(tmp_path / "c.json"),
              "--keep-temperature", "reader_top.onnx"])


def _set(right, wrong, cocked=0, cocked_labeled=0, name="s", mistyped=0):
    return {"set": name, "right": right, "accepted_wrong": wrong, "cocked_given_value": cocked,
            "cocked_labeled": cocked_labeled, "type_accuracy": 0.99, "mistyped_valued": mistyped}


CASES = {
    "reads more, as many wrong": (_set(400, 7), _set(425, 7), False),
    "reads less, fewer wrong": (_set(400, 7), _set(390, 5), False),
    "one more wrong": (_set(873, 7), _set(875, 8), True),
    "one more cocked die valued": (_set(402, 7, 6, 110), _set(441, 5, 7, 110), True),
    "a D4 given a value as another die": (_set(595, 8, mistyped=0), _set(600, 8, mistyped=1), True),
    "as many valued as another die": (_set(595, 8, mistyped=1), _set(600, 8, mistyped=1), False),
}


@pytest.mark.parametrize("release, candidate, more_wrong", CASES.values(), ids=CASES.keys())
def test_a_set_that_lets_more_through_is_marked(release, candidate, more_wrong):
    lines, worse = compare([release], [candidate])
    assert (worse == ["s"]) == more_wrong
    assert lines[0].endswith("MORE WRONG") == more_wrong
    assert f"right {release['right']} -> {candidate['right']}" in lines[0]


def _crops(d20_right, wrong, confusions, d6_right=873):
    return dict(_set(d20_right + d6_right, wrong), by_die={"d20": {"right": d20_right, "dice": 2720},
                                                          "d6": {"right": d6_right, "dice": 894}},
                value_confusions=confusions)


# session 57's D20 look on crops-fickett, and what its line must say beside the totals
LINE_CASES = {
    "a D20 look reads more D20 and one new wrong face": (
        _crops(268, 8, {"d20 1->7": 1, "d6 6->5": 5}), _crops(286, 9, {"d20 1->7": 1, "d20 17->7": 1, "d6 6->5": 5}),
        ["(D20 268 -> 286)", "wrong 8 -> 9 (new: d20 17->7)"], ["D6 ", "1->7", "6->5"]),
    "the same wrong face twice more": (
        _crops(268, 8, {"d6 6->5": 5}), _crops(268, 10, {"d6 6->5": 7}),
        ["wrong 8 -> 10 (new: d6 6->5 x2)"], ["(D20", "(D6"]),
    "the D6 moves, the D20 not": (
        _crops(268, 8, {"d6 6->5": 5}), _crops(268, 7, {"d6 6->5": 4}, d6_right=874),
        ["(D6 873 -> 874)", "wrong 8 -> 7, type"], ["D20 ", "new:"]),
    "figures without the details (a cache before them)": (
        _set(400, 1), _set(401, 1), ["right 400 -> 401, wrong 1 -> 1, type"], ["(", "new:"]),
}


@pytest.mark.parametrize("release, candidate, said, unsaid", LINE_CASES.values(), ids=LINE_CASES.keys())
def test_a_line_names_the_dice_that_moved_and_the_new_wrong_readings(release, candidate, said, unsaid):
    (line,), _ = compare([release], [candidate])
    for text in said:
        assert text in line
    for text in unsaid:
        assert text not in line


def test_figures_of_other_sets_are_never_compared():
    with pytest.raises(ValueError):
        compare([_set(1, 0), _set(2, 0)], [_set(1, 0)])


@pytest.mark.parametrize("changed", ["reader.onnx", "crops.py"])
def test_the_release_figures_are_measured_again_when_a_model_or_the_reading_code_changes(tmp_path, changed):
    """The release's figures are cached by a digest of its model files and of the reading code: a new
    release, a model replaced by hand, or a change to how dice are read (session 54: how a die is cut)
    must not be compared through the last release's figures."""
    from models.train.candidate import release_digest

    models, code = tmp_path / "models", tmp_path / "vision"
    models.mkdir(), code.mkdir()
    for name in ("reader.onnx", "detector.onnx"):
        (models / name).write_bytes(b"weights of " + name.encode())
    (code / "crops.py").write_text("CROP = 96\n")
    before = release_digest(models, code)
    assert release_digest(models, code) == before
    folder = models if changed.endswith(".onnx") else code
    (folder / changed).write_bytes(b"something new")
    assert release_digest(models, code) != before


def test_a_failed_evaluation_says_why(tmp_path):
    # session 41: a candidate run stopped with "evaluate ... failed (exit 1)" and nothing more
    with pytest.raises(SystemExit, match="reader.onnx not found"):
        evaluate(tmp_path / "no-models", ["fixtures/stills"], tmp_path / "eval.json")


def test_a_detector_is_judged_with_the_release_s_readers_as_they_are(tmp_path, monkeypatch):
    """The readers were calibrated on labeled boxes, not on a detector's: a new detector is judged
    with them untouched. Calibrated again, the comparison would mix the two changes."""
    from models.train import candidate

    ran, judged = [], []
    monkeypatch.setattr(candidate, "_run", lambda cmd, log: ran.append(cmd))
    monkeypatch.setattr(candidate, "evaluate", lambda models, sets, out, shift="0,0": judged.append(models) or [
        _set(400, 1, name=s) for s in sets])
    new = tmp_path / "new_detector.onnx"
    new.write_bytes(b"a detector taught anew")
    assert candidate.main(["det", "--detector", str(new), "--out", str(tmp_path / "cand")]) == 0
    folder = tmp_path / "cand" / "det"
    assert ran == []
    assert (folder / "detector.onnx").read_bytes() == new.read_bytes()
    assert (folder / "reader.onnx").read_bytes() == (MODELS / "reader.onnx").read_bytes()
    assert folder in judged


def test_figures_at_several_shifts_are_summed():
    from models.train.candidate import summed

    at = [_set(400, 1, 6, 110, mistyped=1), _set(396, 3, 5, 110, mistyped=0)]
    at[1]["type_accuracy"] = 0.97
    s = summed(at)
    assert (s["right"], s["accepted_wrong"], s["cocked_given_value"], s["cocked_labeled"], s["mistyped_valued"]) == \
        (796, 4, 11, 220, 1)
    assert s["type_accuracy"] == pytest.approx(0.98) and s["set"] == "s"


def test_the_details_at_several_shifts_are_summed_too():
    from models.train.candidate import summed

    s = summed([_crops(268, 8, {"d20 1->7": 1}), _crops(270, 9, {"d20 1->7": 1, "d20 17->7": 1})])
    assert s["by_die"]["d20"] == {"right": 538, "dice": 5440}
    assert s["value_confusions"] == {"d20 1->7": 2, "d20 17->7": 1}


def test_a_candidate_is_judged_at_every_move(tmp_path, monkeypatch, capsys):
    """A pixel moves a set's figures by a few dice (session 53): judged at several moves of the
    frames, release and candidate are each read at every one, and the sums are compared."""
    from models.train import candidate

    asked = []

    def fake_evaluate(models, sets, out, shift="0,0"):
        asked.append((Path(models).name, shift))
        right = 400 if Path(models).name == "models" else 402
        return [_set(right if shift == "0,0" else right - 3, 1, name=s) for s in sets]

    monkeypatch.setattr(candidate, "evaluate", fake_evaluate)
    new = tmp_path / "d.onnx"
    new.write_bytes(b"a detector")
    candidate.main(["det", "--detector", str(new), "--out", str(tmp_path / "c"), "--moved"])
    assert {shift for _, shift in asked} == {"0,0", "1,0", "0,1", "-1,-1"}
    assert {name for name, _ in asked} == {"models", "det"}
    out = capsys.readouterr().out
    assert "summed over" in out and "right 1591 -> 1599, wrong 4 -> 4" in out


def test_a_look_judged_with_the_thresholds_kept_is_not_calibrated(tmp_path, monkeypatch, capsys):
    """--thresholds-kept judges a release look's new network in the release's reader as it is (reader
    v24's D20 look was so judged): nothing is calibrated, the reader and every other look are the
    release's files, and the new network stands in the old one's place."""
    from models.train import candidate

    ran, judged = [], []
    monkeypatch.setattr(candidate, "_run", lambda cmd, log: ran.append(cmd))
    monkeypatch.setattr(candidate, "evaluate", lambda models, sets, out, shift="0,0": judged.append(models) or [
        _set(400 if Path(models).name == "models" else 404, 1, name=s) for s in sets])
    new = tmp_path / "d20.onnx"
    new.write_bytes(b"a D20 look taught on")
    assert candidate.main(["d20", "--look", f"reader_top_d20.onnx={new}", "--thresholds-kept",
                           "--out", str(tmp_path / "cand")]) == 0
    folder = tmp_path / "cand" / "d20"
    assert ran == []
    assert (folder / "reader_top_d20.onnx").read_bytes() == new.read_bytes()
    for kept in ("reader.onnx", "reader_top.onnx", "detector.onnx"):
        assert (folder / kept).read_bytes() == (MODELS / kept).read_bytes()
    assert folder in judged
    assert "right 400 -> 404" in capsys.readouterr().out


@pytest.mark.parametrize("asked, said", [
    pytest.param(["--look", "reader_top_d20.onnx={new}", "--look-weight", "reader_top_d20.onnx=0.75"],
                 "--look-weight asks for it calibrated again", id="another weight"),
    pytest.param(["--look", "reader_top_d20.onnx={new}", "--rule-for", "d20"],
                 "--rule-for asks for it calibrated again", id="the rule's threshold"),
    pytest.param(["--whole", "{new}"], "--whole asks for it calibrated again", id="a whole look"),
    pytest.param([], "judged against itself", id="nothing swapped: the release against itself"),
])
def test_the_thresholds_kept_refuse_what_would_need_calibrating(tmp_path, monkeypatch, capsys, asked, said):
    """A reader judged with the release's thresholds cannot be one whose thresholds or places change:
    refused at once, not judged as something it is not."""
    from models.train import candidate

    monkeypatch.setattr(candidate, "evaluate", lambda *a, **k: pytest.fail("judged"))
    new = tmp_path / "new.onnx"
    new.write_bytes(b"a network")
    with pytest.raises(SystemExit) as stop:
        candidate.main(["x", "--thresholds-kept", "--out", str(tmp_path / "c"),
                        *[a.replace("{new}", str(new)) for a in asked]])
    assert stop.value.code == 2
    assert said in capsys.readouterr().err


def test_a_new_look_judged_with_the_thresholds_kept_takes_its_dice_from_the_numeral_look(tmp_path, monkeypatch):
    """A look for one die type (session 66's D12) judged with the release's thresholds is placed as
    models.train.own_look places it: the reader asks it for its dice, cut and weighed as the numeral
    look, every threshold the release's; a die the numeral look does not read is refused."""
    pytest.importorskip("torch")  # export's restamp lives beside the training code
    from models.train import candidate
    from models.train.export import restamp

    monkeypatch.setattr(candidate, "evaluate", lambda models, sets, out, shift="0,0": [_set(400, 1, name=s)
                                                                                       for s in sets])
    new = tmp_path / "d12.onnx"
    restamp(MODELS / "reader_top.onnx", new, {"dice": ["d12"]})
    assert candidate.main(["d12", "--look", f"reader_top_d12.onnx={new}", "--thresholds-kept",
                           "--out", str(tmp_path / "cand")]) == 0
    release, judged = (OnnxModel(folder / "reader.onnx").meta for folder in (MODELS, tmp_path / "cand" / "d12"))
    looks = {t["model"]: t for t in judged["top_face"]}
    assert looks["reader_top_d12.onnx"]["dice"] == ["d12"] and looks["reader_top.onnx"]["dice"] == ["d8"]
    assert looks["reader_top_d12.onnx"]["weight"] == looks["reader_top.onnx"]["weight"]
    assert judged["accept_threshold_by_die"] == release["accept_threshold_by_die"]

    restamp(MODELS / "reader_top.onnx", new, {"dice": ["d6"]})
    with pytest.raises(SystemExit) as stop:
        candidate.main(["d6", "--look", f"reader_top_d6b.onnx={new}", "--thresholds-kept",
                        "--out", str(tmp_path / "cand")])
    assert stop.value.code == 2
