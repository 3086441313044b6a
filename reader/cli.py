"""`dice-reader` command line: a thin dispatcher over reader/commands/.

Each sub-command lives in its own module so that `dice-reader banish` never imports the camera,
onnxruntime or a web server. Add a command by adding a line to COMMANDS.
"""

from __future__ import annotations

import argparse
import importlib
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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except DiceReaderError as exc:
        print(f"dice-reader {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"dice-reader {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
