"""The evaluate command's text: a table of the sets' figures and the counts behind each.

Apart from the scoring (reader.vision.evaluate) so that the definitions stay in one short module
and the wording can change without touching them.
"""

from __future__ import annotations

from typing import Sequence

from reader.dice import FACES
from reader.vision.evaluate import SetScore

COLUMNS = (
    # header, getter, format
    ("set", lambda s: s.name, "{}"),
    ("images", lambda s: s.images, "{}"),
    ("dice", lambda s: s.dice, "{}"),
    ("found", lambda s: s.found_rate, "pct1"),
    ("type acc", lambda s: s.type_accuracy, "pct1"),
    ("accepted", lambda s: s.share_accepted, "pct1"),
    ("value acc", lambda s: s.value_accuracy, "pct2"),
    ("acc-wrong", lambda s: s.accepted_wrong_rate, "pct2"),
    ("end-to-end", lambda s: s.end_to_end, "pct2"),
    ("false det", lambda s: s.false_detections, "{}"),
    ("ms mean", lambda s: s.ms_mean, "ms"),
    ("ms p95", lambda s: s.ms_p95, "ms"),
)


def _fmt(value, how: str) -> str:
    if value is None:
        return "-"
    if how == "pct1":
        return f"{100 * value:.1f}%"
    if how == "pct2":
        return f"{100 * value:.2f}%"
    if how == "ms":
        return f"{value:.1f}"
    return how.format(value)


def format_table(scores: Sequence[SetScore]) -> str:
    """An aligned text table, one row per set ('-' where a figure has no dice to count)."""
    rows = [[h for h, _, _ in COLUMNS]]
    for s in scores:
        rows.append([_fmt(get(s), how) for _, get, how in COLUMNS])
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    lines = []
    for n, row in enumerate(rows):
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def format_details(s: SetScore, top: int = 8) -> str:
    """Counts behind the rates, and the commonest confusions, for one set."""
    parts = [
        f"{s.name}: found {s.found}/{s.dice}, type right {s.type_right}/{s.found}, "
        f"accepted {s.accepted}/{s.value_found}, right {s.right}/{s.value_labeled}, "
        f"accepted-but-wrong {s.accepted_wrong}, false detections {s.false_detections} "
        f"(given a value: {s.false_valued})"
    ]
    if s.images_failed:
        parts.append(f"  images that could not be read: {s.images_failed}")
    if s.cocked_labeled:
        parts.append(f"  cocked dice given a value: {s.cocked_given_value}/{s.cocked_labeled}")
    if s.mistyped_valued:
        parts.append(f"  dice labeled with no value given one as another die (a D4 read as a D6): "
                     f"{s.mistyped_valued}")
    if len(s.by_die) > 1:  # a mixed set: which dice the end-to-end figure is made of
        order = sorted(s.by_die.items(), key=lambda kv: (FACES.get(kv[0], 99), kv[0]))
        parts.append("  end-to-end by die: " + ", ".join(f"{die} {right}/{n}" for die, (right, n) in order))
    if len(s.by_size) > 1:  # how large a die must be in the frame to be read
        parts.append("  end-to-end by die size (box side, px): "
                     + ", ".join(f"{k} {right}/{n}" for k, (right, n) in s.by_size_in_order()))
    if s.refused:  # what a reader change must move to read more
        parts.append("  refused: " + ", ".join(f"{why} {n}" for why, n in
                                                sorted(s.refused.items(), key=lambda kv: (-kv[1], kv[0]))[:top]))
    for title, table in (("type confusions", s.type_confusions),
                         ("accepted wrong values", s.value_confusions)):
        if table:
            items = sorted(table.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
            parts.append(f"  {title}: " + ", ".join(f"{k} x{v}" for k, v in items))
    return "\n".join(parts)
