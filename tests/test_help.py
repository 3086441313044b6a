"""Every command prints its help.

argparse formats a help string with %-substitution only when --help is asked for, so a bare "%"
in one ("the fixed 8% train_reader keeps") passes every run and crashes the one call a person
makes to learn the tool (models.train.calib_set did, with a ValueError). The training and
rendering tools import their extras (torch, moderngl) at the top; where those are not installed,
as in CI, their case skips and says which.
"""

from __future__ import annotations

import importlib

import pytest

from reader.cli import COMMANDS, build_parser

TOOLS = [
    "models.train.calib_set", "models.train.calibrate", "models.train.calibrate_seen", "models.train.candidate", "models.train.eval_detector",
    "models.train.d20_alone", "models.train.export", "models.train.lurig_faces_set", "models.train.probe_tilt", "models.train.real_pack",
    "models.train.recipe", "models.train.single_boxes", "models.train.soup", "models.train.train_detector",
    "models.train.train_lean", "models.train.train_reader", "models.train.train_top_face",
    "reader.synth.bulk", "reader.synth.chessboard", "reader.synth.fixtures", "reader.synth.sheet",
]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_each_dice_reader_command_prints_its_help(command, capsys):
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([command, "--help"])
    assert done.value.code == 0
    assert f"usage: dice-reader {command}" in capsys.readouterr().out


@pytest.mark.parametrize("module", TOOLS)
def test_each_training_and_rendering_tool_prints_its_help(module, capsys):
    try:
        tool = importlib.import_module(module)
    except ImportError as e:
        pytest.skip(f"{module} needs {e.name}, which this install lacks (pip install -e '.[train,render]')")
    with pytest.raises(SystemExit) as done:
        tool.main(["--help"])
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out
