"""Average two readers' weights (a "soup"): a network between the two, often better than either.

    python -m models.train.soup models/reader.onnx work/gpu/reader_raw.onnx --share 0.3 --out work/soup30.pt
    python -m models.train.export reader work/soup30.pt work/soup30.onnx --version dev

Two networks taught from the same start (every look here starts from the committed one) stay in
one basin, and the average of their weights reads like a blend of the two: session 20's soup of
v12's whole look and the GPU-taught one (30% of it) read 26 more of lurig's real numeral faces
than v12, with the GPU one's care between the two (models/reader.md). Both are rebuilt from their
exported ONNX files (models.train.onnx_weights: the BatchNorms folded into the convolutions), so
the average is of the weights the networks actually read with, and `export reader` writes it as
any checkpoint. `--share` is the second network's part.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from models.train.onnx_weights import reader_from_onnx


def soup(first: Path, second: Path, share: float) -> dict[str, torch.Tensor]:
    """(1 - share) x first + share x second, weight by weight (counters kept from the first)."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share {share}: give a part between 0 and 1")
    a, b = reader_from_onnx(first).state_dict(), reader_from_onnx(second).state_dict()
    return {k: (1 - share) * v + share * b[k] if v.is_floating_point() else v for k, v in a.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("first", type=Path, help="an exported reader or look (.onnx)")
    ap.add_argument("second", type=Path, help="another, taught from the same start")
    ap.add_argument("--share", type=float, default=0.5, help="the second's part (default 0.5)")
    ap.add_argument("--out", type=Path, required=True, help="torch weights (.pt) for `export`")
    args = ap.parse_args(argv)
    torch.save(soup(args.first, args.second, args.share), args.out)
    print(f"wrote {args.out}: {1 - args.share:.2f} x {args.first.name} + {args.share:.2f} x {args.second.name}")


if __name__ == "__main__":
    main()
