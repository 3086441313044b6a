"""Live-loop overheads on 1280x720 frames, without the recognizer: figures, never assertions.

    python3 benchmarks/bench_live_loop.py

Prints: ms per frame for the settle measure (downscale + motion energy), ms per frame for the whole
loop (settle + recording of moving frames + the settled PNG + events + fsync/rename per roll) with
a recognizer that returns nothing, and the stillness-to-verdict latency the loop reports (settle_s
plus processing). The recognizer's own cost is `dice-reader bench`.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

cv2.setNumThreads(1)

from reader.loop import LiveLoop, LoopConfig  # noqa: E402
from reader.settle import SettleDetector, small_view  # noqa: E402
from reader.sources import MemorySource, synthetic_tray  # noqa: E402


class NoDice:
    def read_frame(self, bgr):
        return []


def main() -> None:
    frames = synthetic_tray(rolls=4, seed=1, fps=30.0, size=(720, 1280), dice=3)
    det = SettleDetector()
    times = []
    for i, f in enumerate(frames):
        t0 = time.perf_counter()
        det.update(i / 30.0, small_view(f))
        times.append((time.perf_counter() - t0) * 1000)
    print(f"settle measure, 1280x720: median {statistics.median(times):.2f} ms/frame, "
          f"max {max(times):.2f} ms ({len(frames)} frames)")

    with tempfile.TemporaryDirectory() as d:
        loop = LiveLoop(MemorySource(frames, fps=30.0), NoDice(), None, LoopConfig(out_dir=Path(d)))
        t0 = time.perf_counter()
        summary = loop.run()
        total = time.perf_counter() - t0
        lat = [r.latency_s for r in summary.rolls if r.latency_s is not None]
        print(f"whole loop incl. recording, 1280x720: {total / len(frames) * 1000:.2f} ms/frame "
              f"({len(frames)} frames, {len(summary.rolls)} rolls recorded)")
        if lat:
            print(f"stillness to verdict (settle_s 0.5): median {statistics.median(lat):.3f} s, "
                  f"max {max(lat):.3f} s")


if __name__ == "__main__":
    main()
