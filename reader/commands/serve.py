"""`dice-reader serve`: the live tray with its web views: overlay, judge's view, replay, roll log.

Same tray and rules options as `watch`; the loop runs on this thread, the web server on its own.
Every roll lands in the roll log (--log, default OUT/rolls.db) pointing at its recording in --out.
"""

from __future__ import annotations

import ipaddress
import os
import sys
import threading
from pathlib import Path

from reader.errors import DiceReaderError

HELP = ("Watch a tray like `watch`, and serve a live overlay (OBS), the judge's view (token "
        "needed for actions) and replay of the recorded rolls; every roll goes into the roll log.")

TOKEN_ENV = "DICE_READER_JUDGE_TOKEN"


def add_arguments(p) -> None:
    from reader.commands import watch

    watch.add_arguments(p)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    p.add_argument("--log", metavar="LOG.db", help="roll log (default OUT/rolls.db)")
    p.add_argument("--exit-when-done", action="store_true",
                   help="stop serving when the source ends or the rules are done "
                        "(default: keep serving for review until Ctrl-C)")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Wiring:
    """Connects the loop's callbacks to the hub, keeps the match state on the pages current, and
    applies the judge's corrections to the rules (see reader/web/judging.py)."""

    def __init__(self, hub, decider, printer, log) -> None:
        from reader.web.judging import JudgedRules

        self.hub = hub
        self.rules = JudgedRules(decider) if hasattr(decider, "procedure") else None
        self.decider = self.rules or decider
        self.printer = printer
        self.log = log

    def match(self) -> dict | None:
        session = getattr(self.decider, "session", None)
        if session is None:
            return None
        return {"type": "match", **session.to_json()}

    def on_event(self, event: dict) -> None:
        if self.rules is not None:
            self.rules.note_event(event)
        self.printer(event)
        self.hub.publish(event)
        if event.get("type") in ("decision", "roll_saved"):
            m = self.match()
            if m is not None:
                self.hub.publish(m)

    def on_frame(self, index, bgr, readings) -> None:
        self.hub.set_frame(index, bgr, readings)

    def on_override(self, entry) -> dict | None:
        """The judge corrected a die: decide that roll again if it is the latest one."""
        p = entry.payload
        redone = self.rules.override(entry.roll, p["die"], p["value"], p["state"]) if self.rules else None
        if redone is None:
            text = (f"override #{entry.seq} logged; roll {entry.roll} is not the latest decided roll, "
                    "so no decision was changed: correct the match by hand if needed")
            self.printer({"type": "note", "text": text})
            self.hub.publish({"type": "note", "roll": entry.roll, "text": text})
            return None
        dice, decisions = redone
        e = self.log.append("roll", {"dice": dice, "decisions": decisions, "corrects": entry.seq,
                                     "frame": None}, roll=entry.roll, recording=entry.recording)
        for d in decisions:
            ev = {"type": "decision", "roll": entry.roll, "judge": True, **d}
            self.printer(ev)
            self.hub.publish(ev)
        self.hub.publish({"type": "logged", "roll": entry.roll, "seq": e.seq})
        m = self.match()
        if m is not None:
            self.hub.publish(m)
        return {"seq": e.seq, "decisions": decisions}

    def on_reroll(self, roll: str | None, reason: str) -> None:
        """The judge called the roll again: take its effect on the rules back."""
        taken = self.rules.take_back(roll) if self.rules else False
        self.printer({"type": "note", "text": f"judge: roll {roll} is called again ({reason or 'no reason given'})"
                      + ("; its decision is taken back" if taken else "")})
        m = self.match()
        if m is not None:
            self.hub.publish(m)


def run(args) -> int:
    from reader.commands import view_args, watch
    from reader.commands.replay import load_recognizer
    from reader.loop import LiveLoop, LoopConfig
    from reader.recording import find_partials
    from reader.rolllog import RollLog
    from reader.settle import SettleConfig
    from reader.web.evidence import RollLogger
    from reader.web.hub import Hub
    from reader.web.server import WebServer, make_app, new_token

    if args.max_rolls is not None and args.max_rolls < 1:
        raise DiceReaderError("--max-rolls must be at least 1")
    if not 0 <= args.port <= 65535:
        raise DiceReaderError(f"--port {args.port} is not a port number")
    try:
        settle = SettleConfig(settle_s=args.settle_s)
    except ValueError as exc:
        raise DiceReaderError(str(exc)) from None
    decider = watch.build_decider(args)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    for p in find_partials(out_dir):
        print(f"warning: {p} is an unfinished roll from an earlier run (crash or full disk); "
              "it is not a valid recording and is kept for inspection", file=sys.stderr)
    view = view_args.view_from_args(args)
    guess = view_args.guess_from_args(args)
    recognizer = load_recognizer(args.models)
    recognizer.view = view  # each roll's manifest keeps it: replay reads as this run did
    for note in view_args.start_notes(args, view):
        print(note, file=sys.stderr)
    log = RollLog(args.log or out_dir / "rolls.db")
    verdict = log.verify()
    if not verdict.ok:
        log.close()
        raise DiceReaderError(f"the roll log {log.path} does not verify ({verdict.message()}); "
                              "keep it as evidence and start a new one with --log")
    hub = Hub()
    logger = RollLogger(log, hub.publish, out_dir)
    hub.listen(logger)
    printer = watch.Printer(args.json)
    wiring = Wiring(hub, decider, printer, log)
    token = os.environ.get(TOKEN_ENV) or new_token()

    source = tower = raw = server = None
    try:
        source = watch.open_camera_source(args)
        from reader.web.server import LOCAL_HOSTS

        allowed = LOCAL_HOSTS if _is_loopback(args.host) else None
        server = WebServer(make_app(hub, log, token, out_dir, on_reroll=wiring.on_reroll,
                                    on_override=wiring.on_override, allowed_hosts=allowed),
                           args.host, args.port).start()
        _announce(server, token, log, args.host)
        rules = wiring.decider.rules_json()
        log.append("match", {"rules": rules, "source": args.source, "tower": args.tower,
                             "recordings": str(out_dir.resolve()), "server": server.url})
        m = wiring.match()
        if m is not None:
            hub.publish(m)
        if args.tower:
            from reader.tower.port import TowerPort

            raw = open(args.raw_log or out_dir / "tower-raw.log", "a", encoding="utf-8")
            tower = TowerPort(args.tower, raw_log=raw).start()
        if not args.json and hasattr(decider, "prompt") and wiring.decider.prompt():
            print(wiring.decider.prompt(), flush=True)
        models = getattr(recognizer, "versions", None)
        loop = LiveLoop(source, recognizer, wiring.decider,
                        LoopConfig(out_dir=out_dir, settle=settle, max_rolls=args.max_rolls,
                                   realtime=args.realtime, guess_camera=guess),
                        tower=tower, on_event=wiring.on_event, on_frame=wiring.on_frame,
                        models=models if isinstance(models, dict) else {})
        try:
            summary = loop.run()
            stopped = summary.stopped_because or "the loop ended"
            code = 0
        except DiceReaderError as exc:
            stopped, code = f"stopped: {exc}", 2
            print(stopped, file=sys.stderr)
        logger.close()
        hub.publish({"type": "note", "text": f"live loop ended: {stopped}"})
        print(f"live loop ended: {stopped}", flush=True)
        if not args.exit_when_done:
            try:  # the line inside: a stop sent the moment it is printed is a clean stop too
                print(f"still serving {server.url}/replay and the judge's view; Ctrl-C to stop", flush=True)
                threading.Event().wait()
            except KeyboardInterrupt:
                print("stopped serving", flush=True)
        return code
    finally:
        logger.close()
        if server is not None:
            server.stop()
        if tower is not None:
            tower.stop()
        if raw is not None:
            raw.close()
        if source is not None:
            source.close()
        log.close()


def _announce(server, token: str, log, host: str) -> None:
    print(f"overlay (OBS browser source, 1920x1080): {server.url}/overlay", flush=True)
    print(f"judge's view: {server.url}/judge?token={token}", flush=True)
    print(f"judge token: {token}", flush=True)
    print(f"replay: {server.url}/replay", flush=True)
    seq, head = log.head()
    print(f"roll log: {log.path} ({seq} entries, head {head[:16]}...)", flush=True)
    if not _is_loopback(host):
        print(f"warning: serving on {host}: other machines can open the overlay and replay; "
              "judge actions still need the token", file=sys.stderr, flush=True)
