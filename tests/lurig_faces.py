"""type-lurig's photos joined with the faces read by eye for them (models/train/lurig*_values.json;
type-lurig itself gives die types only): the one place the tests that read real dice of other
makers make that join."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from reader.vision.realdata import LabeledImage, load_set, realdata_root

LURIG = realdata_root() / "type-lurig"
FACES = Path(__file__).resolve().parents[1] / "models" / "train"
FROM_ABOVE = FACES / "lurig_values.json"          # D8, D10 and D20 photographed from above
OBLIQUE = FACES / "lurig_oblique_values.json"     # D20 about 45 degrees off vertical
D6 = FACES / "lurig_d6_values.json"               # every D6, from above, oblique, on wood


def lurig_faces(values_file: Path, die: str | None = None) -> list[LabeledImage]:
    """type-lurig's photos whose faces `values_file` holds (of `die` alone where given), each labeled
    with its face."""
    values = json.loads(values_file.read_text())["values"]
    return [dataclasses.replace(im, dice=(dataclasses.replace(im.dice[0], value=values[im.name]),))
            for im in load_set(LURIG) if im.name in values and die in (None, im.dice[0].die)]
