"""`DIE=VALUE` items on the training tools' command lines (models/train/die_values.py): `train_top_face
--cut`, `at_boxes --at`, `calibrate_seen --from-deg`. A mistyped item must stop the tool with a usage
error saying what to give, before it loads or renders anything, never be taken as another die."""

from __future__ import annotations

import argparse
import importlib

import pytest

from models.train.die_values import die_value

DICE = ("d6", "d20")


@pytest.mark.parametrize("item, want", [
    pytest.param("d20=0.45", ("d20", 0.45), id="a die and a number"),
    pytest.param("d6=1", ("d6", 1.0), id="a whole number"),
])
def test_an_item_is_read_as_its_die_and_value(item, want):
    assert die_value(DICE)(item) == want


@pytest.mark.parametrize("item, low, high", [
    pytest.param("d20", None, None, id="no value"),
    pytest.param("d21=0.4", None, None, id="no such die"),
    pytest.param("d20=wide", None, None, id="not a number"),
    pytest.param("d20=1.5", 0.0, 1.0, id="over the top of its range"),
    pytest.param("d20=-0.1", 0.0, 1.0, id="under the bottom of its range"),
])
def test_a_bad_item_says_what_to_give(item, low, high):
    with pytest.raises(argparse.ArgumentTypeError, match="give DIE=VALUE"):
        die_value(DICE, low, high)(item)


@pytest.mark.parametrize("tool, argv, needs", [
    pytest.param("train_top_face", ["--cut", "d21=0.45"], "torch", id="train_top_face --cut"),
    pytest.param("at_boxes", ["fixtures/single-d20", "--at", "d20=high"], None, id="at_boxes --at"),
    pytest.param("calibrate_seen", ["--from-deg", "d20"], "torch", id="calibrate_seen --from-deg"),
])
def test_each_tool_stops_on_a_bad_item_as_a_usage_error(tool, argv, needs, capsys):
    if needs:  # the training extra (CI has the runtime's packages only)
        pytest.importorskip(needs)
    main = importlib.import_module(f"models.train.{tool}").main
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    assert f"{argv[-1]!r}: give DIE=VALUE" in capsys.readouterr().err
