"""`dice-reader serve` with the live loop, seen in Chromium: rolls read from recorded frames appear
on the overlay one after another, and a first-player match ends with who goes first."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

from webtable import REPO, free_port

sys.path.insert(0, str(REPO / "tests"))
from tray_fakes import make_rolls  # noqa: E402  (the live-tray fakes: recorded rolls with truth)

TOKEN = "live-test-token"
SERVE = textwrap.dedent("""
    # Ctrl-C is how the test stops the server; a shell's background job (CI run with &)
    # starts its children with SIGINT ignored, and Python then never raises KeyboardInterrupt
    import signal
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from tray_fakes import TruthRecognizer
    import reader.commands.replay as replay
    fake = TruthRecognizer(Path(sys.argv[2]))
    replay.load_recognizer = lambda models=None: fake
    from reader.cli import main
    sys.exit(main(sys.argv[3:]))
""")


def serve(src, out, port, *rules):
    env = dict(os.environ, DICE_READER_JUDGE_TOKEN=TOKEN, PYTHONPATH=str(REPO))
    return subprocess.Popen(
        [sys.executable, "-c", SERVE, str(REPO / "tests"), str(src), "serve", "--source",
         f"recording:{src}", "--realtime", "--out", str(out), "--port", str(port), *rules],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def stop(proc):
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


def test_the_overlay_follows_a_live_banish_roll_by_roll(browser, tmp_path, artifacts):
    src = make_rolls(tmp_path / "src", [[("d6", 6)], [("d6", 3)], [("d6", 2)]])
    port = free_port()
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    # loaded first, as OBS does; the server comes up a moment later
    page.goto(f"{(REPO / 'reader/web/static/overlay.html').as_uri()}?ws=ws://127.0.0.1:{port}/ws")
    proc = serve(src, tmp_path / "out", port, "--banish", "--cards", "A,B,C,D,E", "--count", "2",
                 "--die", "d6")
    try:
        page.wait_for_selector("body[data-connected=yes]", timeout=20_000)
        page.wait_for_function("window.__overlay.renders.some(r => r.roll === '0003' && r.reading_ms)",
                               timeout=30_000)
        page.wait_for_function("document.getElementById('decision').textContent === 'Banished: #2 B'",
                               timeout=10_000)
        rolls = page.evaluate("[...new Set(window.__overlay.renders.filter(r => r.reading_ms).map(r => r.roll))]")
        assert rolls == ["0001", "0002", "0003"]  # every roll was on screen, in order
        lat = page.evaluate("window.__overlay.renders.filter(r => r.reading_ms)"
                            ".map(r => r.rendered_ms - r.reading_ms)")
        print(f"\nlive overlay: reading -> on screen, first render of each update: "
              f"max {max(lat):.0f} ms over {len(lat)} updates")
        assert page.locator("#table").is_hidden()  # the banish is done: no value table any more

        judge = browser.new_page(viewport={"width": 1600, "height": 1000})
        judge.goto(f"http://127.0.0.1:{port}/judge?token={TOKEN}")
        judge.wait_for_selector("#frame[src^=blob]", timeout=10_000)
        judge.wait_for_selector("#log li.roll[data-seq='4']", timeout=10_000)
        judge.screenshot(path=str(artifacts / "judge-live.png"), full_page=True)
        judge.close()
    finally:
        stop(proc)
        page.close()
    assert proc.returncode == 0, proc.stderr.read()


def test_the_overlay_shows_who_goes_first(browser, tmp_path, artifacts):
    src = make_rolls(tmp_path / "src", [[("d6", 3), ("d6", 4)], [("d6", 6), ("d6", 5)]])
    port = free_port()
    proc = serve(src, tmp_path / "out", port, "--first-player", "--players", "Ana,Ben")
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        deadline = time.time() + 20
        while True:  # the page is opened once the server answers (a browser in a studio would retry)
            try:
                page.goto(f"http://127.0.0.1:{port}/overlay")
                break
            except Exception:
                if time.time() > deadline:
                    raise
                time.sleep(0.3)
        page.wait_for_function("document.getElementById('decision').textContent.startsWith('Ben goes first')",
                               timeout=30_000)
        assert page.inner_text("#decision") == "Ben goes first (7 vs 11)"
        assert sorted(page.locator("#dice .die .value").all_inner_texts()) == ["5", "6"]
        page.wait_for_selector("#table .row.winner")
        assert page.inner_text("#table .row.winner").split() == ["Ben", "6", "+", "5", "11"]
        page.wait_for_timeout(400)  # let the dice's pop-in animation finish
        page.screenshot(path=str(artifacts / "overlay-first-player.png"), omit_background=True)
    finally:
        stop(proc)
        page.close()
    assert proc.returncode == 0, proc.stderr.read()
