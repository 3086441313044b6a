"""`dice-reader tower-sim`: a simulated dice tower on a pty, with faults on demand."""

from __future__ import annotations

import select
import sys
import time

from reader.errors import DiceReaderError

HELP = ("Simulate the dice tower on a pseudo-terminal (prints the port to give to watch --tower). "
        "Type d<Enter> to drop dice, n to send noise, u/r to unplug/replug, q to quit.")


def add_arguments(p) -> None:
    p.add_argument("--link", default="/tmp/dice-tower",
                   help="stable path (symlink) to the pty, kept across unplug/replug (default /tmp/dice-tower)")
    p.add_argument("--faults", default="",
                   help="probabilities per message, e.g. drop=0.1,garble=0.05,duplicate=0.1,delay_s=0.2")
    p.add_argument("--drop-every", type=float, metavar="S", help="drop dice every S seconds by itself")
    p.add_argument("--dice", type=int, default=1, help="dice per drop (default 1)")
    p.add_argument("--duration", type=float, metavar="S", help="stop after S seconds")
    p.add_argument("--seed", type=int, default=0, help="seed for the faults")


def run(args) -> int:
    from reader.tower.sim import Faults, TowerSim

    faults = Faults.parse(args.faults)
    if args.drop_every is not None and args.drop_every <= 0:
        raise DiceReaderError("--drop-every must be positive")
    if args.dice < 1:
        raise DiceReaderError("--dice must be at least 1")
    try:
        sim = TowerSim(args.link, faults=faults, seed=args.seed).start()
    except OSError as exc:
        raise DiceReaderError(f"cannot create the simulated tower at {args.link}: {exc.strerror}") from None
    print(f"tower simulator on {sim.path} (pty {sim._slave_name}); "
          f"use: dice-reader watch --tower {sim.path} ...", flush=True)
    interactive = sys.stdin.isatty()
    if interactive:
        print("commands: d = drop dice, n = 10 kB noise, u = unplug, r = replug, q = quit", flush=True)
    start = time.monotonic()
    next_drop = start + args.drop_every if args.drop_every else None
    try:
        while True:
            now = time.monotonic()
            if args.duration is not None and now - start >= args.duration:
                break
            if next_drop is not None and now >= next_drop:
                next_drop += args.drop_every
                sim.drop(args.dice)
                print(f"{now - start:8.2f} drop ({args.dice} dice)", flush=True)
            if not interactive:
                time.sleep(0.05)
                continue
            ready, _, _ = select.select([sys.stdin], [], [], 0.05)
            if not ready:
                continue
            raw = sys.stdin.readline()
            if raw == "":  # end of input: keep running on the clock alone
                interactive = False
                continue
            cmd = raw.strip().lower()
            if cmd in ("q", "quit"):
                break
            if cmd.startswith("d"):
                sim.drop(args.dice)
                print("drop", flush=True)
            elif cmd.startswith("n"):
                sim.noise(10_000)
                print("sent 10 kB of noise", flush=True)
            elif cmd.startswith("u"):
                sim.unplug()
                print("unplugged", flush=True)
            elif cmd.startswith("r"):
                sim.replug()
                print(f"replugged on {sim.path}", flush=True)
            elif cmd:
                print("commands: d, n, u, r, q", flush=True)
    finally:
        sim.stop()
    return 0
