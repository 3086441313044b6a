"""`dice-reader replay RECORDING...`: read recorded rolls again, offline, and say what changed.

The regression check for a new model on old rolls: every roll's settled frame is read again with
the current recognizer, the rules are run again from the session state recorded in the roll's
manifest, and readings and decisions are compared with what was recorded. A recording with no
readings (a renderer fixture) is compared with its ground truth, and with its "expected"
decisions when it has them.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from reader.commands.read import load_recognizer  # watch and serve take it from here too (tests replace it)
from reader.errors import DiceReaderError
from reader.rules.wording import describe
from reader.unmoved import split_unmoved

HELP = ("Read recorded rolls again with the current recognizer, print readings and decisions, and "
        "report where they differ from the recording. Exit status: 0 all the same, 1 if any roll "
        "differs or cannot be read again, 2 on bad input.")


def add_arguments(p) -> None:
    p.add_argument("recordings", nargs="+", metavar="RECORDING",
                   help="a roll folder (rolls/0007) or a folder of rolls (rolls/)")
    p.add_argument("--models", metavar="DIR", help="models folder (default: models/ or $DICE_READER_MODELS)")
    p.add_argument("--json", action="store_true", help="one JSON object per roll on stdout")
    p.add_argument("--progress", action="store_true",
                   help="always draw the progress bar on stderr (default: only on a terminal)")


@dataclass
class RollReplay:
    roll: str
    path: Path
    compared_with: str  # "recording", "truth" or "nothing"
    recorded: list[dict] = field(default_factory=list)
    replayed: list[dict] = field(default_factory=list)
    recorded_decisions: list[dict] = field(default_factory=list)
    replayed_decisions: list[dict] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    error: str | None = None
    outcome: str = ""

    @property
    def same(self) -> bool:
        return not self.differences and self.error is None

    def to_json(self) -> dict:
        return {"roll": self.roll, "path": str(self.path), "compared_with": self.compared_with,
                "same": self.same, "differences": self.differences, "error": self.error,
                "recorded": self.recorded, "replayed": self.replayed,
                "recorded_decisions": self.recorded_decisions,
                "replayed_decisions": self.replayed_decisions, "outcome": self.outcome}


def _key(d: dict) -> tuple:
    return (str(d.get("die")), d.get("value"), d.get("state", "flat"))


def _show(dice: list[dict]) -> str:
    if not dice:
        return "no dice"
    parts = []
    for d in dice:
        state = d.get("state", "flat")
        parts.append(f"{str(d.get('die')).upper()} {d['value']}" if state == "flat"
                     else f"{str(d.get('die')).upper()} {state}")
    return ", ".join(parts)


def _strip(decision: dict) -> dict:
    return {k: v for k, v in decision.items() if k not in ("t", "type", "roll")}


def expand(paths: list[str]) -> tuple[list[Path], list[Path]]:
    """Roll folders named or contained in `paths`, and the .partial folders found on the way."""
    from reader.recording import PARTIAL_SUFFIX, find_partials, is_recording, list_rolls

    rolls: list[Path] = []
    partials: list[Path] = []
    for s in paths:
        p = Path(s[len("recording:"):] if s.startswith("recording:") else s)
        if p.name.endswith(PARTIAL_SUFFIX):
            partials.append(p)
        elif is_recording(p):
            rolls.append(p)
        elif p.is_dir():
            found = list_rolls(p)
            partials += find_partials(p)
            if not found and not find_partials(p):
                raise DiceReaderError(f"{p} holds no recorded rolls")
            rolls += found
        else:
            raise DiceReaderError(f"{p}: no such recording")
    return rolls, partials


def recorded_view(manifest: dict):
    """The camera set-up a roll was read with (its manifest's camera.view, as `watch --camera-fov`
    writes it: a field of view and a tilt), or None. A rendered roll's own camera is its
    camera.view_matrix (reader.synth.rolls.camera_manifest): no reading was made knowing it."""
    from reader.vision.viewing import CameraView

    view = (manifest.get("camera") or {}).get("view")
    return None if view is None else CameraView.from_json(view)


def replay_roll(path: Path, recognizer) -> RollReplay:
    """Read one roll again and compare (see module doc)."""
    from reader.decide import RulesDecider
    from reader.recording import RecordingReader

    rec = RecordingReader(path)
    out = RollReplay(rec.name, rec.path, "recording", outcome=rec.manifest.get("outcome", "read"))
    reading_events = rec.of_type("reading")
    # a rendered fixture has no readings but may say which decisions its truth leads to
    expected = [] if reading_events else rec.of_type("expected")
    if reading_events:
        targets = [(e["frame"], e.get("dice", [])) for e in reading_events]
    else:
        truth = rec.of_type("truth")
        frames = [e["frame"] for e in truth]
        if rec.kind != "stills" and frames:
            frames = frames[-1:]  # a roll is read once, when it has settled
        targets = [(f, rec.truth(f)) for f in frames]
        out.compared_with = "truth" if targets else "nothing"
    try:
        decider = RulesDecider.from_rules_json(rec.manifest.get("rules"))
        view = recorded_view(rec.manifest)
    except DiceReaderError as exc:
        out.error = str(exc)
        return out
    # read with the camera set-up the roll was recorded with (watch --camera-fov), none if none
    recognizer.view = view
    baseline = rec.of_type("baseline")
    for frame_index, recorded in targets:
        try:
            image = rec.frame(frame_index)
            before = rec.frame(baseline[0]["frame"]) if baseline else None
        except DiceReaderError as exc:
            out.error = str(exc)
            return out
        # as live: dice that were in the tray before the throw are not part of the roll
        readings, _ = split_unmoved(recognizer.read_frame(image), before, image)
        replayed = [r.to_json() for r in readings]
        out.recorded += recorded
        out.replayed += replayed
        if Counter(map(_key, recorded)) != Counter(map(_key, replayed)):
            out.differences.append(
                f"frame {frame_index}: read {_show(replayed)}, recorded {_show(recorded)}")
        if reading_events or expected:
            out.replayed_decisions += decider.decide(readings)
    if reading_events or expected:
        out.recorded_decisions = ([_strip(d) for d in rec.decisions()] if reading_events
                                  else list(expected[-1].get("decisions", [])))
        if out.recorded_decisions != out.replayed_decisions:
            new = "; ".join(map(describe, out.replayed_decisions)) or "none"
            old = "; ".join(map(describe, out.recorded_decisions)) or "none"
            out.differences.append(f"decision now: {new}; recorded: {old}")
    return out


class Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled, self.done = total, enabled, 0

    def step(self, label: str) -> None:
        self.done += 1
        if not self.enabled:
            return
        width = 30
        filled = int(width * self.done / max(1, self.total))
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {label:<12}")
        if self.done == self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def run(args) -> int:
    rolls, partials = expand(args.recordings)
    for p in partials:
        print(f"warning: {p} is an unfinished recording (crash or full disk); not replayed",
              file=sys.stderr)
    if not rolls:
        raise DiceReaderError("nothing to replay: only unfinished recordings were given")
    recognizer = load_recognizer(args.models)
    progress = Progress(len(rolls), args.progress or sys.stderr.isatty())
    differ = 0
    for path in rolls:
        try:
            result = replay_roll(path, recognizer)
        except DiceReaderError as exc:
            result = RollReplay(path.name, path, "nothing", error=str(exc))
        progress.step(result.roll)
        if not result.same:
            differ += 1
        if args.json:
            print(json.dumps(result.to_json()), flush=True)
            continue
        if result.error:
            print(f"{result.path}: CANNOT REPLAY: {result.error}", flush=True)
            continue
        if result.compared_with == "nothing":
            print(f"{result.path}: nothing was read in this roll ({result.outcome or 'no reading'})",
                  flush=True)
            continue
        decided = "; ".join(map(describe, result.replayed_decisions))
        line = f"{result.path}: {_show(result.replayed)}" + (f" -> {decided}" if decided else "")
        print(line + ("   same" if result.same else "   DIFFERS"), flush=True)
        for d in result.differences:
            print(f"    {d}", flush=True)
    total = len(rolls)
    if differ:
        print(f"{differ} of {total} roll(s) differ from the recording", file=sys.stderr)
        return 1
    print(f"all {total} roll(s) read the same as recorded", file=sys.stderr)
    return 0
