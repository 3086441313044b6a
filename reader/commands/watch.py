"""`dice-reader watch`: the live tray. Reads every roll when the dice stop, decides, records."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from reader.commands import view_args
from reader.errors import DiceReaderError
from reader.rules.wording import describe

HELP = ("Watch a tray (camera, stream, video, folder or recording), read each roll when the dice "
        "settle, apply the rules and record every roll under --out.")


def add_arguments(p) -> None:
    p.add_argument("--source", required=True,
                   help="camera:0, /dev/video0, http(s)://, rtsp://, file:roll.mp4, folder:frames/, "
                        "recording:rolls/0007/ or a folder of rolls, fake:squares")
    p.add_argument("--tower", metavar="PORT",
                   help="dice tower serial URL: /dev/ttyUSB0, a pty from tower-sim, socket://host:port, "
                        "rfc2217://host:port, loop://")
    rules = p.add_mutually_exclusive_group()
    rules.add_argument("--banish", action="store_true", help="banish cards from memory (needs --cards)")
    rules.add_argument("--first-player", action="store_true", help="decide who goes first (2 D6 each)")
    p.add_argument("--cards", help='cards in memory, in order: "A,B,C"')
    p.add_argument("--count", type=int, default=1, help="how many cards to banish (default 1)")
    p.add_argument("--die", help="die to roll (default: the smallest allowed)")
    p.add_argument("--mapping", choices=("blocks", "single"), default="blocks",
                   help="blocks: each card gets equal blocks of values; single: one value per card")
    p.add_argument("--players", help='two player names, "Ana,Ben"')
    p.add_argument("--out", default="rolls", help="folder for the recorded rolls (default ./rolls)")
    p.add_argument("--settle-s", type=float, default=0.5, help="seconds of stillness before reading (0.5)")
    p.add_argument("--max-rolls", type=int, help="stop after this many rolls are read")
    p.add_argument("--realtime", action="store_true",
                   help="play a recording/video at its recorded speed (default: as fast as possible)")
    p.add_argument("--raw-log", metavar="FILE", help="tower serial traffic log (default OUT/tower-raw.log)")
    p.add_argument("--width", type=int, help="camera width")
    p.add_argument("--height", type=int, help="camera height")
    p.add_argument("--fps", type=float, help="camera frame rate")
    p.add_argument("--exposure", type=float, help="fixed camera exposure (V4L2 units); default auto")
    p.add_argument("--white-balance", type=float, help="fixed white balance in kelvin; default auto")
    p.add_argument("--pixel-format", metavar="FOURCC",
                   help="the camera's pixel format, e.g. YUYV (uncompressed; fewer frames a second) where it "
                        "streams MJPG, whose JPEG blurs small dice's pips; refused at the start if the camera "
                        "cannot give it at this size and rate")
    p.add_argument("--models", metavar="DIR", help="models folder (default: models/)")
    view_args.add_arguments(p)
    view_args.add_guess_argument(p, rolls=True)
    p.add_argument("--json", action="store_true", help="print every loop event as a JSON line")


def build_decider(args):
    from reader.decide import NoRules, RulesDecider

    if args.banish:
        if not args.cards:
            raise DiceReaderError('--banish needs --cards, e.g. --cards "A,B,C"')
        return RulesDecider.banish(args.cards, count=args.count, die=args.die, mapping=args.mapping)
    if args.first_player:
        return RulesDecider.first_player(args.players)
    if args.cards or args.players:
        raise DiceReaderError("--cards goes with --banish, --players with --first-player")
    return NoRules()


def _dice_text(dice: list[dict]) -> str:
    from reader.commands.replay import _show

    return _show(dice)


class Printer:
    """Turns loop events into lines on stdout as they happen."""

    def __init__(self, as_json: bool, out=None) -> None:
        self.as_json = as_json
        self.out = out or sys.stdout

    def __call__(self, ev: dict) -> None:
        if self.as_json:
            print(json.dumps(ev), file=self.out, flush=True)
            return
        t = ev.get("type")
        roll = ev.get("roll", "")
        line = None
        if t == "roll_started":
            line = f"roll {roll}: dice moving"
        elif t == "trigger":
            line = f"roll {roll}: tower says dice dropped (message {ev.get('seq')})"
        elif t == "settled":
            line = f"roll {roll}: settled after {ev['still_s']:.2f} s still (verdict {ev['latency_s']:.2f} s after stillness)"
        elif t == "reading":
            line = f"roll {roll}: read {_dice_text(ev.get('dice', []))}"
        elif t == "decision":
            line = f"roll {roll}: {describe(ev)}"
        elif t == "roll_saved":
            extra = "" if ev.get("outcome") == "read" else f" ({ev.get('outcome')})"
            line = f"roll {roll}: saved in {ev['path']}{extra}"
        elif t == "not_a_roll":
            line = f"not a roll: {ev['reason']}"
        elif t in ("camera_lost", "tower_lost"):
            line = f"{t.replace('_', ' ')}: {ev.get('reason')}"
        elif t in ("camera_back", "tower_back", "tower_warning", "note"):
            line = ev.get("text") or t.replace("_", " ")
        if line:
            print(line, file=self.out, flush=True)


def open_camera_source(args):
    """The source `watch` and `serve` read, opened with the camera options they take; where a live
    camera streams JPEG frames, the operator is told once (reader.camera_settings.compression_note)."""
    from reader.camera_settings import compression_note
    from reader.sources import open_source

    source = open_source(args.source, width=args.width, height=args.height, fps=args.fps,
                         exposure=args.exposure, white_balance=args.white_balance, pixel_format=args.pixel_format)
    if note := compression_note(source.describe()):
        print(note, file=sys.stderr)
    return source


def run(args) -> int:
    from reader.loop import LiveLoop, LoopConfig
    from reader.recording import find_partials
    from reader.settle import SettleConfig

    from reader.commands.replay import load_recognizer

    if args.max_rolls is not None and args.max_rolls < 1:
        raise DiceReaderError("--max-rolls must be at least 1")
    try:
        settle = SettleConfig(settle_s=args.settle_s)
    except ValueError as exc:
        raise DiceReaderError(str(exc)) from None
    decider = build_decider(args)
    out_dir = Path(args.out)
    for p in find_partials(out_dir):
        print(f"warning: {p} is an unfinished roll from an earlier run (crash or full disk); "
              "it is not a valid recording and is kept for inspection", file=sys.stderr)
    view = view_args.view_from_args(args)
    guess = view_args.guess_from_args(args)
    recognizer = load_recognizer(args.models)
    recognizer.view = view  # each roll's manifest keeps it (camera.view): replay reads as this run did
    for note in view_args.start_notes(args, view):
        print(note, file=sys.stderr)
    source = open_camera_source(args)
    tower = raw = None
    printer = Printer(args.json)
    try:
        if args.tower:
            from reader.tower.port import TowerPort

            out_dir.mkdir(parents=True, exist_ok=True)
            raw = open(args.raw_log or out_dir / "tower-raw.log", "a", encoding="utf-8")
            tower = TowerPort(args.tower, raw_log=raw).start()
        if not args.json and hasattr(decider, "prompt") and decider.prompt():
            print(decider.prompt(), flush=True)
        models = getattr(recognizer, "versions", None)
        models = models if isinstance(models, dict) else {}
        loop = LiveLoop(source, recognizer, decider,
                        LoopConfig(out_dir=out_dir, settle=settle, max_rolls=args.max_rolls,
                                   realtime=args.realtime, guess_camera=guess),
                        tower=tower, on_event=_with_prompt(printer, decider, args.json), models=models)
        try:
            summary = loop.run()
        except DiceReaderError as exc:
            print(f"stopped: {exc}", file=sys.stderr)
            _print_summary(loop.summary, decider, args.json)
            return 2
        except KeyboardInterrupt:
            _print_summary(loop.summary, decider, args.json)
            return 130
    finally:
        if tower is not None:
            tower.stop()
        if raw is not None:
            raw.close()
        source.close()
    _print_summary(summary, decider, args.json)
    return 0


def _with_prompt(printer, decider, as_json: bool):
    def on_event(ev: dict) -> None:
        printer(ev)
        if not as_json and ev.get("type") == "roll_saved" and ev.get("outcome") == "read":
            prompt = decider.prompt() if hasattr(decider, "prompt") else None
            if prompt:
                print(f"next: {prompt}", flush=True)
    return on_event


def _print_summary(summary, decider, as_json: bool) -> None:
    read = [r for r in summary.rolls if r.outcome == "read"]
    latencies = [r.latency_s for r in read if r.latency_s is not None]
    result = None
    session = getattr(decider, "session", None)
    if session is not None and session.done:
        last = [d for r in read for d in r.decisions if d.get("result") in ("done", "first")]
        result = describe(last[-1]) if last else None
    if as_json:
        print(json.dumps({"type": "summary", "rolls_read": len(read), "rolls_recorded": len(summary.rolls),
                          "not_a_roll": summary.not_a_roll, "frames": summary.frames,
                          "camera_losses": summary.camera_losses, "tower_losses": summary.tower_losses,
                          "tower_problems": summary.tower_problems, "result": result,
                          "stopped_because": summary.stopped_because,
                          "rules": session.to_json() if session is not None else None}), flush=True)
        return
    print("--- summary ---")
    print(f"rolls read: {len(read)}, recorded: {len(summary.rolls)}, not a roll: {summary.not_a_roll}, "
          f"frames: {summary.frames}")
    if latencies:
        print(f"stillness to verdict: median {sorted(latencies)[len(latencies) // 2]:.2f} s, "
              f"max {max(latencies):.2f} s")
    if summary.camera_losses or summary.tower_losses:
        print(f"camera lost {summary.camera_losses} time(s), tower lost {summary.tower_losses} time(s)")
    if summary.tower_problems:
        print("tower line problems: " + ", ".join(f"{k} {v}" for k, v in summary.tower_problems.items()))
    if result:
        print(f"result: {result}")
    elif session is not None:
        print("result: not decided yet" + (f" ({decider.prompt()})" if decider.prompt() else ""))
    if summary.stopped_because:
        print(f"stopped: {summary.stopped_because}")
