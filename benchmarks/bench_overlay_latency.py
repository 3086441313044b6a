"""Overlay latency: from a reading published into the hub to the dice on screen in Chromium.

    python3 benchmarks/bench_overlay_latency.py [ROLLS]   (default 100; needs chromium + playwright)

Prints figures, never assertions: median, 95th percentile and max of (time the overlay rendered
the roll, read in the page) - (time the hub applied the reading), same machine clock; and the
cost of a roll-log append (one fsync'd SQLite transaction). Target: a roll on screen within 500 ms.
"""

from __future__ import annotations

import shutil
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reader.rolllog import RollLog  # noqa: E402
from reader.web.evidence import RollLogger  # noqa: E402
from reader.web.hub import Hub  # noqa: E402
from reader.web.server import WebServer, make_app  # noqa: E402


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> None:
    rolls = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp())
    log = RollLog(tmp / "rolls.db")
    hub = Hub()
    hub.listen(RollLogger(log, hub.publish, tmp))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = WebServer(make_app(hub, log, "bench", tmp), "127.0.0.1", port).start()
    lat = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(f"{server.url}/overlay")
        page.wait_for_selector("body[data-connected=yes]")
        for i in range(rolls):
            name = f"{i + 1:04d}"
            hub.publish({"type": "reading", "roll": name, "frame": 1,
                         "dice": [{"die": "d20", "value": i % 20 + 1, "box": [0, 0, 9, 9],
                                   "confidence": 0.99, "state": "flat"}]})
            page.wait_for_function(f"window.__overlay.renders.some(r => r.roll === '{name}' && r.reading_ms)")
            r = page.evaluate(f"window.__overlay.renders.find(r => r.roll === '{name}' && r.reading_ms)")
            lat.append(r["rendered_ms"] - r["reading_ms"])
            hub.publish({"type": "decision", "roll": name, "result": "reroll", "die": "d20", "value": 20})
            hub.publish({"type": "roll_saved", "roll": name, "path": str(tmp / name)})
        browser.close()
    server.stop()
    t0 = time.perf_counter()
    for i in range(200):
        log.append("note", {"text": f"bench {i}"})
    append_ms = (time.perf_counter() - t0) / 200 * 1000
    print(f"overlay latency over {rolls} rolls (reading -> rendered in Chromium): median "
          f"{statistics.median(lat):.1f} ms, p95 {pct(lat, 0.95):.1f} ms, max {max(lat):.1f} ms "
          f"(target 500 ms)")
    print(f"roll log append (WAL, synchronous=FULL, one transaction): {append_ms:.2f} ms per entry; "
          f"verify of {log.head()[0]} entries: ", end="")
    t0 = time.perf_counter()
    ok = log.verify().ok
    print(f"{(time.perf_counter() - t0) * 1000:.1f} ms ({'ok' if ok else 'BAD'})")
    log.close()
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
