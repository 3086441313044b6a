"""The learning-rate schedule every trainer here uses: a time budget, not a step count.

Training runs for a number of minutes on whatever cores it gets, so the schedule follows the
share of the budget spent: a cosine from the base rate down to 2% of it, after a 100-step warm-up.
"""

from __future__ import annotations

import math


def cosine_lr(base: float, frac: float, step: int) -> float:
    """The rate at `frac` (0-1) of the time budget, `step` steps in."""
    return base * (0.02 + 0.98 * 0.5 * (1 + math.cos(math.pi * frac))) * min(1.0, (step + 1) / 100)
