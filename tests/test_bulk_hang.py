"""An unattended render run must not stand still on one image whose draw never ends (Mesa's
software GL hung for good on one scene, session 26, holding Python's lock): the supervising
process notes that image, passes it by and renders every other one. No GL needed: the child
renders with stand-ins for the renderer and the crop maker."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from reader.synth.bulk import HUNG_FILE, RENDERING_FILE, supervise

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import sys, time
import numpy as np
from pathlib import Path
import reader.synth.bulk as bulk
import reader.synth.render as render

class StandIn:
    pass

def make_crop(renderer, seed, index, *args, **kwargs):
    if index == 1:
        while True:  # a draw that never ends
            pass
    return np.full((8, 8, 3), 100 + index, np.uint8), {"dice": []}, {"jpeg": 90}

render.Renderer = StandIn
bulk.make_crop = make_crop
bulk.generate("crops", Path(sys.argv[1]), 4, 1, quiet=True)
"""


def images(out: Path) -> list[str]:
    return [json.loads(line)["image"] for line in (out / "labels.jsonl").read_text().splitlines()]


def test_a_hung_image_is_noted_and_the_run_goes_on_past_it(tmp_path, capsys):
    rc = supervise([sys.executable, "-c", CHILD, str(tmp_path)], tmp_path, hang_seconds=2.0, poll=0.2)
    assert rc == 0
    assert (tmp_path / HUNG_FILE).read_text().split() == ["0000001.jpg"]
    assert images(tmp_path) == ["0000000.jpg", "0000002.jpg", "0000003.jpg"]
    assert all((tmp_path / name).is_file() for name in images(tmp_path))
    assert "0000001.jpg" in capsys.readouterr().err


def test_a_run_that_ends_by_itself_is_left_alone(tmp_path):
    child = "import sys; sys.exit(3)"
    assert supervise([sys.executable, "-c", child], tmp_path, hang_seconds=2.0, poll=0.2) == 3
    assert not (tmp_path / HUNG_FILE).exists()


def test_an_image_left_half_done_by_a_stopped_run_is_not_taken_for_a_hang(tmp_path):
    # a run killed by its user mid-image leaves its marker behind, hours old; the next run takes
    # longer than hang_seconds to start its first image, and must not pass that image by for it
    marker = tmp_path / RENDERING_FILE
    marker.write_text("0000005.jpg\n")
    os.utime(marker, (1e9, 1e9))
    starting = "import time; time.sleep(1.5)"
    assert supervise([sys.executable, "-c", starting], tmp_path, hang_seconds=0.5, poll=0.1) == 0
    assert not (tmp_path / HUNG_FILE).exists()
