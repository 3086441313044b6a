"""`DIE=VALUE` on a training tool's command line (`--cut d20=0.45`, `--at d20=0.96`, `--from-deg d20=40`).

Why one parser: three tools each read such items with their own copy of the same few lines, and each
refused bad ones its own way (one exited 1 with its own message, the others through argparse). As an
argparse `type`, a bad item is a usage error (exit 2) saying what is wrong, before anything loads.
"""

from __future__ import annotations

import argparse
from collections.abc import Collection


def die_value(dice: Collection[str], low: float | None = None, high: float | None = None):
    """An argparse `type` reading one `DIE=VALUE` item as (die, value): DIE one of `dice`, VALUE a
    number, from `low` to `high` where given. Collect with `dict(args.x)`."""
    def parse(item: str) -> tuple[str, float]:
        die, sep, text = item.partition("=")
        try:
            value = float(text)
        except ValueError:
            value = None
        if (not sep or die not in dice or value is None
                or (low is not None and value < low) or (high is not None and value > high)):
            span = f" from {low:g} to {high:g}" if low is not None and high is not None else ""
            raise argparse.ArgumentTypeError(
                f"{item!r}: give DIE=VALUE, DIE one of {', '.join(dice)} and VALUE a number{span}")
        return die, value
    parse.__name__ = "DIE=VALUE"
    return parse
