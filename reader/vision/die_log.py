"""An evaluation die by die, and what changed between two of them.

Why: a set's figures say how many dice a reader change gained or lost, not which. Every change to the
reader is judged against the release die by die (the dice it reads that the release did not, the ones
it no longer reads, any read wrong anew), and an appeal asks what the reader made of one die in one
photo. `dice-reader evaluate --dice OUT.jsonl` writes these rows; `--against OLD.jsonl` compares a run
with an earlier one. Rows are plain JSON so that a log written by one version is read by the next.

A labeled die is known by its set, its image and its labeled box (the same in both runs); a reading
no label explains (a false detection, a phantom) has no such key, since another reader boxes it
otherwise, so those are compared as a count per image.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from reader.vision.evaluate import DieResult, ImageResult


def die_row(set_name: str, d: DieResult, error: str | None = None, folder: str | None = None) -> dict:
    """One labeled die, or one reading no label explains, as a JSON-ready row; `folder`: the set's, the
    image named from it (the same set found at another path, in another checkout, compares)."""
    label = None
    if d.label is not None:
        label = {"die": d.label.die, "value": d.label.value, "state": d.label.state,
                 "box": None if d.label.box is None else [round(float(v), 1) for v in d.label.box]}
    image = d.image
    if folder is not None:
        try:
            image = PurePath(d.image).relative_to(folder).as_posix()
        except ValueError:  # not under it: the path as scored
            pass
    row = {"set": set_name, "image": image, "kind": d.kind, "label": label,
           "reading": None if d.reading is None else d.reading.to_json()}
    if error is not None:
        row["error"] = error
    return row


def die_rows(set_name: str, results: Iterable[ImageResult], folder: str | None = None) -> list[dict]:
    """Every die of every image, in the order they were scored."""
    return [die_row(set_name, d, r.error, folder) for r in results for d in r.dice]


def _key(row: dict) -> tuple:
    label = row["label"]
    box = tuple(label["box"]) if label["box"] is not None else None
    return row["set"], row["image"], label["die"], label["value"], box


def said(row: dict) -> str:
    """What a row's reading says, in a few words: "d6 4 (0.97)", "d6 refused: low confidence (0.81)",
    "d20 cocked (0.62)", "missed"."""
    r = row["reading"]
    if r is None:
        return "missed"
    if r["state"] == "flat":
        return f"{r['die']} {r['value']} ({r['confidence']:.2f})"
    if r["state"] == "cocked":
        return f"{r['die']} cocked ({r['confidence']:.2f})"
    return f"{r['die']} refused: {r.get('reason', 'unreadable')} ({r['confidence']:.2f})"


@dataclass(frozen=True)
class Change:
    """One labeled die whose outcome changed between two runs (`before` None: not in the older log)."""

    set: str
    image: str
    label: dict
    before: dict | None
    after: dict

    @property
    def worse(self) -> bool:
        """Read wrong anew, or no longer read right."""
        was = self.before["kind"] if self.before else None
        now = self.after["kind"]
        return (now == "accepted-wrong" and was != "accepted-wrong") or (was == "right" and now != "right")

    def describe(self) -> str:
        label = self.label
        what = f"{label['die']} {label['value'] if label['value'] is not None else '-'}"
        if label.get("state") == "cocked":
            what += " cocked"
        before = said(self.before) if self.before else "not in the older log"
        return (f"{self.set} {self.image}: {what}: {before} [{self.before['kind'] if self.before else '-'}] -> "
                f"{said(self.after)} [{self.after['kind']}]")


@dataclass(frozen=True)
class Comparison:
    changes: tuple[Change, ...]
    phantoms: tuple[tuple[str, str, int, int], ...]  # (set, image, before, after) where the count moved
    kinds_before: Counter
    kinds_after: Counter
    compared: int      # labeled dice in both logs

    def summary(self) -> str:
        kinds = sorted(set(self.kinds_before) | set(self.kinds_after))
        moved = ", ".join(f"{k} {self.kinds_before[k]} -> {self.kinds_after[k]}" for k in kinds
                          if self.kinds_before[k] != self.kinds_after[k])
        worse = sum(c.worse for c in self.changes)
        return (f"{self.compared} labeled dice in both logs, {len(self.changes)} changed ({worse} for the worse)"
                + (f": {moved}" if moved else "")
                + (f"; phantoms moved in {len(self.phantoms)} images" if self.phantoms else ""))


def compare(before: Sequence[dict], after: Sequence[dict]) -> Comparison:
    """The labeled dice whose kind or reading changed from `before` to `after` (rows of die_rows), and
    the images whose count of phantoms (readings no label explains, given a value) moved. Only the
    images both logs scored are compared: a log of a holdout fifth against one of every image is
    compared on the fifth."""
    images = {(r["set"], r["image"]) for r in before} & {(r["set"], r["image"]) for r in after}
    old = {}
    for r in before:
        if r["label"] is not None and (r["set"], r["image"]) in images:
            old.setdefault(_key(r), []).append(r)
    changes, kinds_before, kinds_after, compared = [], Counter(), Counter(), 0
    for r in after:
        if r["label"] is None or (r["set"], r["image"]) not in images:
            continue
        was = old.get(_key(r))
        b = was.pop(0) if was else None
        if b is not None:
            compared += 1
            kinds_before[b["kind"]] += 1
            kinds_after[r["kind"]] += 1
        if b is None or b["kind"] != r["kind"] or _reading_said(b) != _reading_said(r):
            changes.append(Change(r["set"], r["image"], r["label"], b, r))
    phantoms = []
    count_b = Counter((r["set"], r["image"]) for r in before if r["kind"] == "phantom")
    count_a = Counter((r["set"], r["image"]) for r in after if r["kind"] == "phantom")
    for key in sorted(images):
        if count_b[key] != count_a[key]:
            phantoms.append((*key, count_b[key], count_a[key]))
    return Comparison(tuple(changes), tuple(phantoms), kinds_before, kinds_after, compared)


def _reading_said(row: dict) -> tuple:
    """What matters of a reading for a change: its type, state and value (not its confidence or box)."""
    r = row["reading"]
    return None if r is None else (r["die"], r["state"], r["value"])
