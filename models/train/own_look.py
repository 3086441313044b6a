"""Give a die type a second look of its own, taken from the numeral look, the reader's thresholds kept.

    python -m models.train.own_look work/cand/reader.onnx work/cand/reader.onnx --look reader_top_d12.onnx --dice d12

The numeral look (`reader_top.onnx`) reads the top face of every numeral die that has no look of its
own. A look taught on one die type alone (`train_top_face --dice d12`, then averaged with the numeral
look: session 66's D12 candidates, models/reader.md) reads that type in its place, cut, turned,
weighed and tempered as the numeral look was: only the network changes, so the reader's thresholds and temperatures, calibrated
for the numeral look's readings, are kept rather than calibrated again (that needs the calibration
dice, hours of rendering on two cores). What the new look lets through is judged on every scored set
before it ships (`dice-reader evaluate --shift`, models/reader.md); this writes the reader's metadata
that places it, and nothing else.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

NUMERAL_LOOK = "reader_top.onnx"


def hand_over(top_face: list[dict], look: str, dice: list[str]) -> list[dict]:
    """The reader's `top_face` metadata with `dice` read by `look` in place of the numeral look: a
    copy of the numeral look's entry (cut, views, weight, temperature) naming `look` and `dice`, put
    right after it; the numeral look keeps the rest of its dice."""
    if not dice:
        raise ValueError("name the die types the new look reads")
    names = [entry["model"] for entry in top_face]
    if look in names:
        raise ValueError(f"{look} is already among the reader's looks")
    if NUMERAL_LOOK not in names:
        raise ValueError(f"the reader has no numeral look ({NUMERAL_LOOK}) to take {', '.join(dice)} from")
    numeral = top_face[names.index(NUMERAL_LOOK)]
    missing = [d for d in dice if d not in numeral["dice"]]
    if missing:
        raise ValueError(f"the numeral look does not read {', '.join(missing)} "
                         f"(it reads {', '.join(numeral['dice'])})")
    kept = [d for d in numeral["dice"] if d not in dice]
    if not kept:
        raise ValueError(f"the numeral look would read no die: give {look} every file's place instead")
    out = []
    for entry in top_face:
        if entry["model"] == NUMERAL_LOOK:
            out += [{**entry, "dice": kept}, {**entry, "model": look, "dice": list(dice)}]
        else:
            out.append(entry)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reader", type=Path, help="the exported reader (models/reader.onnx)")
    ap.add_argument("out", type=Path, help="where to write it (the same file is fine)")
    ap.add_argument("--look", required=True, help="the new look's file name, beside the reader (reader_top_d12.onnx)")
    ap.add_argument("--dice", nargs="+", required=True, help="the die types it takes from the numeral look")
    ap.add_argument("--version", default=None, help="the reader's new version (default: kept)")
    args = ap.parse_args(argv)
    if not (args.reader.parent / args.look).is_file():
        raise SystemExit(f"{args.look} is not beside {args.reader}: put the look there first")
    from models.train.export import restamp
    from reader.vision.onnx_model import OnnxModel
    top_face = OnnxModel(args.reader).meta.get("top_face") or []
    try:
        meta = {"top_face": hand_over(top_face, args.look, args.dice)}
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    if args.version:
        meta["version"] = args.version
    restamp(args.reader, args.out, meta)
    print(json.dumps(meta["top_face"]))


if __name__ == "__main__":
    main()
