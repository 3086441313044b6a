"""Bulk training data: labeled die crops or full tray frames, unattended and resumable.

    python -m reader.synth.bulk crops  --out work/synth/crops  --count 50000 --seed 1
    python -m reader.synth.bulk scenes --out work/synth/scenes --count 5000 --seed 1

Writes `NNNNNNN.jpg` and one `labels.jsonl` line per image in the shared labeled-scene format
(`{"image", "dice": [{"die", "value", "box", "state", "style"?}]}`; the main die first in a crop;
scenes add the camera). Image i is a pure function of (seed, i): a restart reads labels.jsonl,
drops a torn last line, skips every image already listed and renders the rest, so killing and
restarting loses at most the image in flight. The rate is printed as it goes. An image whose
render never ends (the GL driver hung inside one scene's draw, where no Python can stop it) is
noted in `hung.txt` and passed by: the run ends that process and goes on in a fresh one.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

# An image renders in well under a second; one that has taken this long never ends. Mesa's software
# GL (llvmpipe) hung for good inside the draw of one scene (`crops --lean --seed 101`, image 3091,
# at supersample 1; session 26), holding Python's lock, and the run stood still without a word.
HANG_SECONDS = 120.0
HUNG_FILE = "hung.txt"  # images passed by because their render never ended
RENDERING_FILE = ".rendering"  # the image being rendered now, for the supervising process
_CHILD_ENV = "DICE_READER_BULK_CHILD"


def _hung_images(out: Path) -> set[str]:
    f = out / HUNG_FILE
    return set(f.read_text().split()) if f.is_file() else set()


def supervise(cmd: list[str], out: Path, hang_seconds: float = HANG_SECONDS, poll: float = 1.0) -> int:
    """Run `cmd`, a bulk generation into `out`, in a child process. When one image has been
    rendering for `hang_seconds` (RENDERING_FILE names it and dates it), the child is killed, the
    image noted in HUNG_FILE and `cmd` run again, which passes it by. A draw that holds Python's
    lock cannot be stopped from inside its own process, so the watch is kept from outside."""
    marker = out / RENDERING_FILE
    while True:
        # one left by a run that was stopped mid-image is no hang; the child writes its own
        marker.unlink(missing_ok=True)
        child = subprocess.Popen(cmd, env={**os.environ, _CHILD_ENV: "1"})
        hung = None
        while child.poll() is None:
            time.sleep(poll)
            try:
                name, since = marker.read_text().strip(), marker.stat().st_mtime
            except OSError:
                continue
            if name and time.time() - since > hang_seconds:
                hung = name
                child.kill()
                child.wait()
        if hung is None:
            return child.returncode
        with (out / HUNG_FILE).open("a", encoding="utf-8") as fh:
            fh.write(hung + "\n")
        print(f"bulk: image {hung} rendered for {hang_seconds:g} s and would not end (the GL driver hung); "
              f"noted in {out / HUNG_FILE}, passed by, going on in a fresh process", file=sys.stderr, flush=True)


def _done_images(labels: Path) -> set[str]:
    """Images already labeled; a torn last line (crash mid-write) is cut off the file."""
    if not labels.exists():
        return set()
    done, good = set(), []
    raw = labels.read_bytes().decode("utf-8", errors="replace").splitlines(keepends=True)
    for line in raw:
        try:
            row = json.loads(line)
            done.add(row["image"])
            good.append(line if line.endswith("\n") else line + "\n")
        except (json.JSONDecodeError, KeyError, TypeError):
            print(f"bulk: dropping a torn line in {labels}", file=sys.stderr)
    if len(good) != len(raw) or (raw and not raw[-1].endswith("\n")):
        tmp = labels.with_suffix(".tmp")
        tmp.write_text("".join(good))
        os.replace(tmp, labels)
    return done


# Crops for the lean look (models/train/train_lean.py): the camera drawn evenly up to this far off
# vertical, as far as a tray camera's frame corners see a die, and this share of the dice cocked.
LEAN_MAX_OFF = 55.0
LEAN_COCKED_SHARE = 0.35
# --bodies clear: the share of dice made clear resin (reader.synth.scene.clear_resin); the real D20 the
# looks fail on are mostly clear resin, so half, where die_material draws translucent for a fifth
CLEAR_SHARE = 0.5


def make_crop(renderer, seed: int, index: int, size: int = 128,
              mix: str = "all", resample_min: float | None = None,
              glyphs: str = "base", lean: bool = False, light: str = "base",
              bodies: str = "base", numbers: str = "base",
              neighbours: bool = True, logos: str = "none",
              emblems: str = "drawn", tens: bool = False) -> tuple[np.ndarray, dict, dict]:
    """(RGB crop, label row without the image name, fx) for image `index` of `seed` and `mix`;
    `glyphs="varied"` draws the numerals from more fonts, reshaped (glyphs.vary_glyphs), "thin" from
    light fonts (glyphs.thin_glyphs), "makers" in makers' forms (digit_forms.vary_forms); `lean`
    draws the camera's angle and the lean as the lean look's crops want them, and the row keeps
    the angle ("camera": {"off_vertical_deg"}). The camera's foot is always below the crop. `neighbours`
    False: the main die alone (layouts.crop_scene), as in a photo of one die. `logos` "some" or "up":
    dice bearing a maker's emblem (logos.put_logos), "up" the main die on its face up, from the family
    `emblems` (logos.FAMILIES: "drawn" six emblems, "procedural" a shape drawn anew for each die,
    "held-out" only for judging a look, never for teaching one). `tens`: the main die, if a D10, a
    percentile die ("00" to "90"; reader.synth.percentile)."""
    from reader.synth.camfx import RESAMPLE_MIN, apply_fx, sample_fx
    from reader.synth.layouts import MIXES, crop_scene
    from reader.synth.glyphs import vary_glyphs

    rng = np.random.default_rng([seed, index, 1])
    if lean:
        pick = np.random.default_rng([seed, index, 11])
        off = float(pick.uniform(0.0, LEAN_MAX_OFF))
        scene = crop_scene(rng, size=size, classes=MIXES[mix], off_vertical=off,
                           cocked=bool(pick.random() < LEAN_COCKED_SHARE), neighbours=neighbours)
    else:
        scene = crop_scene(rng, size=size, classes=MIXES[mix], neighbours=neighbours)
    if glyphs == "varied":
        vary_glyphs(scene, np.random.default_rng([seed, index, 7]))
    if glyphs == "thin":
        from reader.synth.glyphs import thin_glyphs

        thin_glyphs(scene, np.random.default_rng([seed, index, 7]))
    if glyphs == "makers":
        from reader.synth.digit_forms import vary_forms

        vary_forms(scene, np.random.default_rng([seed, index, 13]))
    if light == "room":
        from reader.synth.scene import room_lights

        room_lights(scene, np.random.default_rng([seed, index, 9]))
    if bodies == "clear":
        from reader.synth.scene import clear_resin

        clear_resin(scene, np.random.default_rng([seed, index, 19]), share=CLEAR_SHARE)
    if numbers == "varied":  # last: the glyphs' and forms' atlases are drawn without numbers
        from reader.synth.numbering import vary_numbers

        vary_numbers(scene, np.random.default_rng([seed, index, 23]))
    if logos != "none":  # after the numbers: an emblem takes the place of a face's number
        from reader.synth.logos import put_logos

        put_logos(scene, np.random.default_rng([seed, index, 29]), up=logos == "up", family=emblems)
    if tens:  # last: the numbers' and logos' atlases are drawn without the tens' 0
        from reader.synth.percentile import put_tens

        put_tens(scene)
    fx_rng = np.random.default_rng([seed, index, 5])
    fx = sample_fx(fx_rng, strength=float(fx_rng.uniform(0.3, 1.0)),
                   resample_min=RESAMPLE_MIN if resample_min is None else resample_min)
    if fx["resample"] < 0.75:
        # the camera effects blur it below the render size anyway: skip the 2x supersampling
        scene["camera"]["supersample"] = 1
    img = renderer.render(scene)
    row = {"dice": scene["labels"]}
    if lean:
        row["camera"] = {"off_vertical_deg": round(scene["camera"]["off_vertical_deg"], 3)}
    return apply_fx(img, fx), row, fx


def make_frame(renderer, seed: int, index: int, width: int = 960, height: int = 540):
    from reader.synth.camfx import apply_fx, sample_fx
    from reader.synth.layouts import tray_scene

    rng = np.random.default_rng([seed, index, 2])
    scene = tray_scene(rng, width=width, height=height)
    img = renderer.render(scene)
    fx = sample_fx(rng, strength=float(rng.uniform(0.2, 0.8)))
    cam = scene["camera"]
    row = {"dice": scene["labels"],
           "camera": {k: cam[k] for k in ("width", "height", "fov_y", "off_vertical_deg", "azimuth",
                                          "eye", "target", "intrinsics")},
           "surface": scene["floor"]["kind"]}
    return apply_fx(img, fx), row, fx


def generate(kind: str, out: Path, count: int, seed: int, size: int = 128, width: int = 960,
             height: int = 540, report_every: int = 200, quiet: bool = False, mix: str = "all",
             resample_min: float | None = None, glyphs: str = "base", lean: bool = False,
             light: str = "base", bodies: str = "base", numbers: str = "base", logos: str = "none",
             emblems: str = "drawn", tens: bool = False) -> dict:
    """Render images 0..count-1 of `seed` into `out`, skipping those already there."""
    os.environ.setdefault("LP_NUM_THREADS", "1")
    import cv2

    cv2.setNumThreads(1)
    out.mkdir(parents=True, exist_ok=True)
    lock = _take_lock(out)
    try:
        return _generate(kind, out, count, seed, size, width, height, report_every, quiet, mix, resample_min,
                         glyphs, lean, light, bodies, numbers, logos, emblems, tens)
    finally:
        lock.unlink(missing_ok=True)


def _take_lock(out: Path) -> Path:
    """One writer per folder: a second run into the same folder would interleave labels."""
    lock = out / ".bulk.lock"
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            return lock
        except FileExistsError:
            try:
                pid = int(lock.read_text().strip() or 0)
                os.kill(pid, 0)
            except (ValueError, ProcessLookupError, FileNotFoundError):
                lock.unlink(missing_ok=True)  # left by a run that died: take it over
                continue
            except PermissionError:
                pass
            raise SystemExit(f"bulk: {out} is being written by process {pid}; not starting a second writer")
    raise SystemExit(f"bulk: cannot take the lock {lock}")


def _generate(kind, out, count, seed, size, width, height, report_every, quiet, mix, resample_min,
              glyphs, lean=False, light="base", bodies="base", numbers="base", logos="none",
              emblems="drawn", tens=False) -> dict:
    from reader.synth.camfx import encode_jpeg
    from reader.synth.render import Renderer

    labels = out / "labels.jsonl"
    done = _done_images(labels)
    hung = _hung_images(out)
    todo = [i for i in range(count) if f"{i:07d}.jpg" not in done and f"{i:07d}.jpg" not in hung]
    if not quiet:
        # the same seed draws another font where other fonts are installed: say how many were found
        from reader.synth.textures import FONT_PACKAGES, FONTS_RENDERED, fonts

        base_fonts = len(fonts())
        print(f"bulk {kind}: {len(done)} already in {out}, {len(todo)} to render (seed {seed}; "
              f"{len(fonts(more=glyphs == 'varied', thin=glyphs == 'thin'))} numeral fonts found"
              f"{f'; {len(hung)} passed by, hung before ({HUNG_FILE})' if hung else ''})", flush=True)
        if todo and base_fonts < FONTS_RENDERED:
            print(f"bulk {kind}: warning: {base_fonts} of the {FONTS_RENDERED} numeral fonts every earlier seed "
                  f"was drawn in are installed here ({FONT_PACKAGES}): this seed's dice are drawn in fewer",
                  file=sys.stderr, flush=True)
    if not todo:
        return {"rendered": 0, "rate": 0.0}
    renderer = Renderer()
    marker = out / RENDERING_FILE
    t0 = time.time()
    n = failed = 0
    with labels.open("a", encoding="utf-8") as fh:
        for i in todo:
            name = f"{i:07d}.jpg"
            marker.write_text(name + "\n")  # for supervise(), watching from outside
            try:
                if kind == "crops":
                    img, row, fx = make_crop(renderer, seed, i, size, mix, resample_min, glyphs, lean, light, bodies,
                                              numbers, logos=logos, emblems=emblems, tens=tens)
                else:
                    img, row, fx = make_frame(renderer, seed, i, width, height)
            except (ValueError, RuntimeError, ArithmeticError) as exc:
                # one odd scene must not stop an unattended run; it stays unlabeled, so a
                # restart tries it again
                failed += 1
                print(f"bulk {kind}: image {i} skipped: {exc}", file=sys.stderr, flush=True)
                if failed > 50 and failed > n:
                    raise SystemExit(f"bulk {kind}: most images fail; stopping ({exc})") from exc
                continue
            data = encode_jpeg(img, fx["jpeg"])
            tmp = out / (name + ".tmp")
            try:
                tmp.write_bytes(data)
                os.replace(tmp, out / name)
                fh.write(json.dumps({"image": name, **row}) + "\n")
                fh.flush()
            except OSError as exc:  # full disk: everything labeled so far is complete
                tmp.unlink(missing_ok=True)
                raise SystemExit(f"bulk {kind}: cannot write {out / name} ({exc.strerror}); "
                                 f"{len(done) + n} images are complete, rerun to continue") from exc
            n += 1
            if not quiet and (n % report_every == 0 or n == len(todo)):
                dt = time.time() - t0
                print(f"bulk {kind}: {len(done) + n}/{count} images, {n / dt:.1f} {kind}/s", flush=True)
    marker.unlink(missing_ok=True)
    dt = time.time() - t0
    return {"rendered": n, "rate": n / dt if dt > 0 else 0.0}


def main(argv: list[str] | None = None) -> int:
    """The generation runs in a child process under supervise(), which passes by an image whose
    render never ends."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if os.environ.get(_CHILD_ENV):
        return _run(argv)
    a = _parser().parse_args(argv)  # a bad option fails here, before any child
    return supervise([sys.executable, "-m", "reader.synth.bulk", *argv], a.out)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m reader.synth.bulk", description=__doc__.split("\n\n")[0])
    p.add_argument("kind", nargs="?", choices=["crops", "scenes"], default=None)
    p.add_argument("--kind", dest="kind_opt", choices=["crops", "scenes"], default=None)
    p.add_argument("--out", required=True, type=Path)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--size", type=int, default=128, help="crop side in pixels")
    p.add_argument("--width", type=int, default=960)
    p.add_argument("--height", type=int, default=540)
    from reader.synth.layouts import MIXES

    p.add_argument("--mix", choices=sorted(MIXES), default="all",
                   help="crops: every class (default) or the numeral dice only, D20 most")
    p.add_argument("--resample-min", type=float, default=None,
                   help="crops: the smallest share of its pixels a crop keeps before it is blown up again "
                        "(camera effects; default 0.3, the training mix); 0.7 keeps a top face sharp for a "
                        "look cut close to it")
    p.add_argument("--glyphs", choices=["base", "varied", "makers", "thin"], default="base",
                   help="crops: numerals in the renderer's base fonts as drawn (default, every earlier seed) "
                        "or varied: 26 more fonts, digits narrower, wider, leaning, heavier, lighter, spaced "
                        "(reader/synth/glyphs.py); or makers: the base fonts with some digits in the forms "
                        "real dice makers cut, a footed 1, a flat-topped 3, a crossed 7 "
                        "(reader/synth/digit_forms.py); or thin: as varied, in 31 light and regular fonts, "
                        "strokes 1 px thinner to 1 px heavier; the same dice in the same poses as the base seed")
    p.add_argument("--light", choices=["base", "room"], default="base",
                   help="crops: the lights as drawn (default, every earlier seed) or room: much of the light "
                        "diffuse, the key light weaker, weak lights low around, so the faces around the top "
                        "face are lit about as brightly as real dice' are (reader.synth.scene.room_lights)")
    p.add_argument("--bodies", choices=["base", "clear"], default="base",
                   help="crops: the dice's bodies as drawn (default, every earlier seed) or clear: each die "
                        f"clear resin with chance {CLEAR_SHARE:g}, what lies behind it tinted through it and its far "
                        "faces' numerals seen through it (reader.synth.scene.clear_resin); the same dice in "
                        "the same poses as the base seed")
    p.add_argument("--numbers", choices=["base", "varied"], default="base",
                   help="crops: each die numbered as the renderer's solids number it (default, every earlier "
                        "seed) or varied: numbered anew, as some maker numbers theirs (opposite faces summing as "
                        "on real dice, a fifth of the D20 spindowns; reader.synth.numbering); the same dice in "
                        "the same poses as the base seed, the same face up")
    p.add_argument("--logos", choices=["none", "some", "up"], default="none",
                   help="crops: no die bears a maker's logo (default, every earlier seed), some: a third of the "
                        "dice bear one on their highest face (a pip D6 on its 1), or up: the main die bears one on "
                        "the face it shows up, labeled \"logo\": true (reader.synth.logos); the same dice in the "
                        "same poses as the base seed")
    from reader.synth.logos import TAUGHT

    p.add_argument("--emblems", choices=list(TAUGHT), default="drawn",
                   help="with --logos: the six drawn emblems (default) or procedural: a shape drawn anew for "
                        "each die, none a digit or a pip (reader.synth.emblem_shapes); the same dice in the same "
                        "poses either way. The held-out family is never drawn here: it judges a look taught these "
                        "(benchmarks/logo_faces.py --emblems held-out)")
    p.add_argument("--tens", action="store_true",
                   help="crops: the main die, where it is a D10, a percentile die, its faces \"00\" to \"90\", labeled "
                        "\"tens\": true with the value a plain D10 would show (reader.synth.percentile); the same dice "
                        "in the same poses as without")
    p.add_argument("--fewer-fonts", action="store_true",
                   help="render even where fewer numeral fonts are installed than every seed is drawn in "
                        "(the seed then draws other dice)")
    p.add_argument("--lean", action="store_true",
                   help=f"crops for the lean look (models/train/train_lean.py): the camera drawn evenly 0-"
                        f"{LEAN_MAX_OFF:g} degrees off vertical, {LEAN_COCKED_SHARE * 100:.0f}%% of the dice cocked, "
                        "each row with the camera's angle")
    return p


def _run(argv: list[str]) -> int:
    p = _parser()
    a = p.parse_args(argv)
    kind = a.kind_opt or a.kind or "crops"
    if a.count < 0:
        p.error("--count must be >= 0")
    if a.mix != "all" and kind != "crops":
        p.error("--mix chooses the dice of crops; scenes always hold every kind")
    if a.glyphs != "base" and kind != "crops":
        p.error("--glyphs varies the numerals of crops")
    if a.light != "base" and kind != "crops":
        p.error("--light relights crops")
    if a.bodies != "base" and kind != "crops":
        p.error("--bodies draws the dice of crops")
    if a.numbers != "base" and kind != "crops":
        p.error("--numbers numbers the dice of crops")
    if a.logos != "none" and kind != "crops":
        p.error("--logos marks the dice of crops")
    if a.emblems != "drawn" and a.logos == "none":
        p.error("--emblems chooses the logos of --logos some or up")
    if a.tens and kind != "crops":
        p.error("--tens numbers the D10 of crops")
    if a.lean and kind != "crops":
        p.error("--lean draws the camera of crops")
    if a.resample_min is not None and not 0.05 <= a.resample_min <= 1.0:
        p.error("--resample-min must be in 0.05-1")
    from reader.synth.textures import FONT_PACKAGES, FONTS_RENDERED, fonts

    if a.count and not a.fewer_fonts and (found := len(fonts())) < FONTS_RENDERED:
        # a seed is its dice only with the fonts it was drawn in: session 79 taught a look on numerals
        # drawn in 4 fonts of 20 on a machine without them, past a warning, and judged the look by it
        p.error(f"{found} of the {FONTS_RENDERED} numeral fonts every seed is drawn in are installed "
                f"here: this seed's dice would be drawn in fewer. Install them ({FONT_PACKAGES}; "
                "reader/synth/README.md lists more), or pass --fewer-fonts to render so anyway")
    res = generate(kind, a.out, a.count, a.seed, a.size, a.width, a.height, mix=a.mix,
                   resample_min=a.resample_min, glyphs=a.glyphs, lean=a.lean, light=a.light,
                   bodies=a.bodies, numbers=a.numbers, logos=a.logos, emblems=a.emblems, tens=a.tens)
    print(f"bulk {kind}: done, {res['rendered']} rendered at {res['rate']:.2f} {kind}/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
