"""`dice-reader` command line: a thin dispatcher over reader/commands/.

Each sub-command lives in its own module so that `dice-reader banish` never imports the camera,
onnxruntime or a web server. Add a command by adding a line to COMMANDS.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import signal
import sys

from reader.errors import DiceReaderError

# name -> module under reader.commands. The module has HELP, add_arguments(parser), run(args) -> int.
COMMANDS: dict[str, str] = {
    "log": "log",
    "serve": "serve",
    "read": "read",
    "evaluate": "evaluate",
    "bench": "bench",
    "banish": "banish",
    "first-player": "first_player",
    "watch": "watch",
    "replay": "replay",
    "tower-sim": "tower_sim",
    "camera": "camera",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dice-reader",
        description="Read dice in a tray and apply the Grand Archive random-selection rules.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f"reader.commands.{module_name}")
        p = sub.add_parser(name, help=module.HELP, description=module.HELP)
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


@contextlib.contextmanager
def stop_on_sigterm():
    """SIGTERM stops a command the way Ctrl-C does. A service manager (systemd, `docker stop`)
    ends the judge's tray with SIGTERM; by default that kills the process where it stands, leaving
    the roll under way half written. As Ctrl-C, the live loop closes that roll marked unread and
    `serve` shuts its server and log down. Only where signals can be set (the main thread)."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    except ValueError:  # not the main thread: main() called from a thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with stop_on_sigterm():
            return int(args._run(args) or 0)
    except DiceReaderError as exc:
        print(f"dice-reader {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"dice-reader {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
