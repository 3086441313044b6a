"""models/train/gpu.sh names its render mixes briefly; each must reach `bulk crops` as the options it
stands for, or a lent GPU's few minutes render the wrong dice (only its sheet would show it)."""

import shutil
import subprocess
from pathlib import Path

import pytest

GPU_SH = Path(__file__).resolve().parent.parent / "models" / "train" / "gpu.sh"

CASES = {
    "every type": ("all", ["--mix", "all"]),
    "numeral dice": ("numerals", ["--mix", "numerals"]),
    "sharp D20": ("d20-sharp", ["--mix", "d20", "--resample-min", "0.6"]),
    "room-lit D20": ("d20-room", ["--mix", "d20", "--light", "room"]),
    "room-lit numeral dice": ("numerals-room", ["--mix", "numerals", "--light", "room"]),
    "sharp room-lit D20": ("d20-sharp-room", ["--mix", "d20", "--light", "room", "--resample-min", "0.6"]),
    "D20 in makers' digit forms": ("d20-makers", ["--mix", "d20", "--glyphs", "makers"]),
    "room-lit D20 in makers' digit forms": ("d20-room-makers", ["--mix", "d20", "--light", "room", "--glyphs", "makers"]),
    "numeral D6 in thin fonts": ("d6-numerals-thin", ["--mix", "d6-numerals", "--glyphs", "thin"]),
    "numeral D6 in makers' digit forms": ("d6-numerals-makers", ["--mix", "d6-numerals", "--glyphs", "makers"]),
    "room-lit D6 in thin fonts": ("d6-room-thin", ["--mix", "d6", "--light", "room", "--glyphs", "thin"]),
    "D20, half of them clear resin": ("d20-clear", ["--mix", "d20", "--bodies", "clear"]),
    "room-lit D20, half clear resin": ("d20-room-clear", ["--mix", "d20", "--light", "room", "--bodies", "clear"]),
    "room-lit clear D20 in makers' forms": ("d20-room-makers-clear",
                                            ["--mix", "d20", "--light", "room", "--glyphs", "makers", "--bodies", "clear"]),
    "numeral dice numbered as other makers number theirs": ("numerals-numbered", ["--mix", "numerals", "--numbers", "varied"]),
    "room-lit D20, half clear resin, numbered anew": ("d20-room-clear-numbered",
                                                     ["--mix", "d20", "--light", "room", "--bodies", "clear",
                                                      "--numbers", "varied"]),
    "D6 bearing a logo drawn anew on the face up": ("d6-logos", ["--mix", "d6", "--logos", "up", "--emblems", "procedural"]),
    "numeral dice numbered anew, a logo up": ("numerals-numbered-logos",
                                              ["--mix", "numerals", "--numbers", "varied", "--logos", "up",
                                               "--emblems", "procedural"]),
}


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("name", CASES)
def test_render_mix_names_become_bulk_options(name):
    spec, expected = CASES[name]
    # what render() passes to bulk crops for this name
    out = subprocess.run(["bash", "-c", f'source "{GPU_SH}" && mix_args {spec}'],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == expected


def test_every_option_a_mix_gives_is_one_bulk_crops_takes():
    """A mix that names an option bulk crops lacks would fail on the GPU machine, in sixteen logs."""
    from reader.synth.bulk import _parser

    for spec, expected in CASES.values():
        _parser().parse_args(["crops", "--out", "x", "--count", "1", *expected])


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("name", CASES)
def test_each_render_folder_knows_the_scenes_to_replay_its_angles_from(name):
    """gpu.sh's d20split look splits the renders by camera angle, replayed from each folder's seed and
    mix (models.train.slant_split): a mix replayed that is not the one rendered stops the split."""
    from reader.synth.layouts import MIXES

    spec, expected = CASES[name]
    out = subprocess.run(["bash", "-c", f'source "{GPU_SH}" && replay_of 301 {spec}'],
                         capture_output=True, text=True, check=True).stdout.strip()
    seed, _, mix = out.partition(":")
    assert seed == "301" and mix == expected[expected.index("--mix") + 1] and mix in MIXES


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("least,stops", [("0", False), ("999", True)], ids=["enough fonts", "too few fonts"])
def test_the_render_step_stops_when_too_few_numeral_fonts_travelled(least, stops):
    """Session 46's lease rendered with 8 fonts of 20 (packed before the font packages were installed)
    and went on; the step must stop before its renders instead."""
    run = subprocess.run(["bash", "-c", f'source "{GPU_SH}" && FONTS_MIN={least} fonts_check && echo went on'],
                         capture_output=True, text=True)
    assert (run.returncode != 0) == stops
    assert ("went on" in run.stdout) != stops
    if stops:
        assert "numeral fonts travelled, not 999" in run.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_render_step_asks_by_default_for_the_fonts_every_seed_was_drawn_in():
    """Without FONTS_MIN the step's least is the renderer's own count (textures.FONTS_RENDERED), the one
    bulk warns under: the number lives in one place."""
    from reader.synth.textures import FONTS_RENDERED, fonts

    run = subprocess.run(["bash", "-c", f'unset FONTS_MIN; source "{GPU_SH}" && fonts_check && echo went on'],
                         capture_output=True, text=True)
    stops = len(fonts()) < FONTS_RENDERED
    assert ("went on" in run.stdout) != stops
    if stops:
        assert f"numeral fonts travelled, not {FONTS_RENDERED}" in run.stdout


def _gpu(command: str) -> list[str]:
    return subprocess.run(["bash", "-c", f'source "{GPU_SH}" && {command}'],
                          capture_output=True, text=True, check=True).stdout.split()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("name", CASES)
def test_only_logo_mixes_are_marked_to_be_taught_no_face(name):
    """A -logos render folder is marked (sN.logos) so that train teaches its dice no face; any other
    marked so would teach a look to refuse plain faces."""
    spec, expected = CASES[name]
    assert _gpu(f"logo_mix {spec}") == (["yes"] if "--logos" in expected else ["no"])


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_logo_folders_are_taught_no_face_and_the_rest_read(tmp_path):
    """train's second looks read the plain folders (--synth) and are taught the marked ones as no face
    (--unsure), never both ways; with no marked folder they are asked nothing of logos."""
    for n in ("s101", "s102", "s103"):
        (tmp_path / n).mkdir()
    (tmp_path / "s102.logos").touch()
    assert _gpu(f"render_folders synth {tmp_path}") == ["--synth", f"{tmp_path}/s101/", "--synth", f"{tmp_path}/s103/"]
    assert _gpu(f"render_folders logos {tmp_path}") == ["--unsure", f"{tmp_path}/s102/", "--unsure-share", "0.2"]
    (tmp_path / "s102.logos").unlink()
    assert _gpu(f"render_folders logos {tmp_path}") == []
