"""Recognizer speed and memory on 1280x720 frames with 1, 4 and 10 dice.

Same as `dice-reader bench`; arguments are passed through (e.g. `--runs 50 --json`).
Run: python3 benchmarks/bench_recognizer.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reader.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
