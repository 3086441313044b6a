"""The recognizer's memory over a long run: does it settle, or keep growing? Figures, never assertions.

A table's reader stays up for a day of rounds, and every roll's settled frame is read. `dice-reader
bench` prints the high-water mark of a few dozen frames; this reads many more, one after another (each
1280x720, 1-10 dice pasted anew on `dice-reader bench`'s trays), and prints the resident memory as it
goes. Session 74, 2 cores: 263 MB after 10 frames, 376 after 100, 418 after 1,000, then 420-426 up to
6,000 (models/reader.md, "Session 74"): onnxruntime's buffers and the heap grow with the batch sizes
met, then hold.

Run: python3 benchmarks/memory_long_run.py [--frames N] [--seed N] [--models DIR]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from reader.commands import bench  # noqa: E402
from reader.commands.read import load_recognizer  # noqa: E402


def resident_mb() -> str:
    """This process's resident memory now, in MB (Linux: /proc/self/statm); "?" where it cannot be read."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return "?"
    return f"{pages * os.sysconf('SC_PAGE_SIZE') / 2**20:.0f}"


def checkpoints(frames: int) -> list[int]:
    """Where to print: 10, 100, 1,000, ... and every tenth of the run, up to `frames`."""
    marks = {10 ** k for k in range(1, 7) if 10 ** k <= frames}
    marks |= {max(1, frames * k // 10) for k in range(1, 11)}
    return sorted(marks)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--frames", type=int, default=3000, help="frames read in a row (3000)")
    p.add_argument("--seed", type=int, default=11, help="seed of the frames' layouts")
    p.add_argument("--models", metavar="DIR", default=None, help="folder of the ONNX models")
    args = p.parse_args(argv)
    if args.frames < 1:
        p.error("--frames must be at least 1")
    rng = np.random.default_rng(args.seed)
    where, crops = bench.die_images("auto", rng=rng)
    trays = [bench.background(rng) for _ in range(bench.TRAYS)]
    recognizer = load_recognizer(args.models)
    print(f"1280x720 frames of 1-10 dice from {where}; models loaded: {resident_mb()} MB resident")
    marks, t0 = set(checkpoints(args.frames)), time.perf_counter()
    for k in range(1, args.frames + 1):
        frame = bench.compose_frame(crops, int(rng.integers(1, 11)), rng, tray=trays[k % bench.TRAYS])[0]
        recognizer.read_frame(frame)
        if k in marks:
            print(f"{k:>7} frames: {resident_mb()} MB resident, "
                  f"{bench.peak_rss_mb():.0f} MB high-water ({time.perf_counter() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
