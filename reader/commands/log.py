"""`dice-reader log verify|export`: check a roll log's hash chain, or write it out for an appeal."""

from __future__ import annotations

import sys

HELP = "check a roll log's hash chain (verify) or write it as JSONL/CSV (export)"


def add_arguments(parser) -> None:
    sub = parser.add_subparsers(dest="log_action", metavar="ACTION")
    sub.required = True
    v = sub.add_parser("verify", help="recompute the hash chain; exit 1 naming the first bad entry")
    v.add_argument("log", metavar="LOG.db")
    v.add_argument("--head", metavar="HASH", default=None,
                   help="the head hash written down earlier: also fail if the log was rewritten since")
    e = sub.add_parser("export", help="write every entry as JSONL or CSV (the chain is verified too)")
    e.add_argument("log", metavar="LOG.db")
    e.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    e.add_argument("--out", metavar="FILE", default=None, help="output file (default: stdout)")


def run(args) -> int:
    from reader.rolllog import RollLog, RollLogError

    with RollLog(args.log, create=False) as log:
        if args.log_action == "verify":
            verdict = log.verify(expected_head=args.head)
            print(f"{args.log}: {verdict.message()}", file=sys.stdout if verdict.ok else sys.stderr)
            return 0 if verdict.ok else 1
        verdict = log.verify()
        if args.out:
            try:
                with open(args.out, "w", encoding="utf-8", newline="") as fh:
                    n = log.export(fh, args.format)
            except OSError as exc:
                raise RollLogError(f"cannot write {args.out}: {exc.strerror or exc}") from exc
            print(f"wrote {n} entries to {args.out}", file=sys.stderr)
        else:
            log.export(sys.stdout, args.format)
        print(f"{args.log}: {verdict.message()}", file=sys.stderr)
        return 0 if verdict.ok else 1
