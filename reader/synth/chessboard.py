"""Photos of a printed chessboard in a rendered tray, taken by the renderer's own tray camera: the
fixture that stands in for the tray camera when `dice-reader camera` is tested
(reader.vision.camera_setup), with the camera the reader's calibration frames were rendered by.

The installed camera takes the board lying flat in the tray. The "held tilted" photos are the same
board seen by the same lens from other sides: to the focal length it makes no difference whether
the board turns or the camera goes round it (the renderer draws no board held in the air).

    python -m reader.synth.chessboard --out fixtures/camera-board --seed 5

writes flat.jpg, held-1.jpg ... and camera.json (the installed camera as rendered, its field of
view and lean as CameraView.rendered reads them, and this command).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np

from reader.synth import scene as sc
from reader.synth.camfx import apply_fx
from reader.synth.layouts import tray_walls
from reader.synth.textures import CHESS_SQUARE_MM, CHESS_SQUARE_PX, TEX

SHEET_MM = TEX / CHESS_SQUARE_PX * CHESS_SQUARE_MM  # the paper the board is printed on (square)
# The held photos: the same lens, the board seen from these (degrees off vertical, azimuth degrees).
HELD = ((38.0, 0.0), (36.0, 200.0), (40.0, 300.0))


def board_scene(rng, camera: dict) -> dict:
    """An empty tray of random surface and light with the printed board lying in its middle."""
    surface = sc.make_surface(rng)
    walls = tray_walls(rng, surface, 170.0, 140.0, float(rng.uniform(15, 30)))
    half = SHEET_MM / 2
    sheet = {"box": [-half, -half, 0.0, half, half, 0.3], "kind": "chessboard", "tex_id": 0, "span": SHEET_MM,
             "tint": [float(t) for t in rng.uniform(0.92, 1.0, 3)], "gloss": 12.0, "spec": 0.02}
    return {"camera": camera, "floor": surface, "walls": walls + [sheet], "dice": [], "blobs": [],
            "shadow_extent": 250.0, **sc.make_lights(rng)}


def camera_at(off_vertical: float, azimuth_deg: float, fov_y: float, width: int, height: int) -> dict:
    """A camera looking at the board's middle from far enough to hold the whole sheet."""
    distance = SHEET_MM * 1.15 / 2 / math.tan(math.radians(fov_y) / 2)
    return sc.make_camera([0.0, 0.0, 0.0], off_vertical, math.radians(azimuth_deg), distance, fov_y,
                          width, height, supersample=2)


def photo(renderer, rng, camera: dict) -> np.ndarray:
    """The board photographed by `camera` (BGR), with a webcam's light noise and vignetting."""
    rgb = renderer.render(board_scene(rng, camera))
    fx = {"exposure": float(np.exp(rng.normal(0, 0.1))), "wb": [float(x) for x in np.exp(rng.normal(0, 0.03, 3))],
          "gamma": 1.0, "defocus": 0.0, "motion": 0.0, "motion_angle": 0.0,
          "vignette": float(rng.uniform(0.05, 0.25)), "noise": 0.01, "chroma_noise": 0.004, "resample": 1.0,
          "seed": int(rng.integers(2 ** 31)), "auto_exposure": True, "ae_target": 0.2}
    return cv2.cvtColor(apply_fx(rgb, fx), cv2.COLOR_RGB2BGR)


def write(out: Path, seed: int, width: int = 1280, height: int = 720) -> dict:
    from reader.synth.render import Renderer
    from reader.vision.viewing import CameraView

    rng = np.random.default_rng(seed)
    fov_y = float(rng.uniform(36, 48))
    installed = camera_at(float(rng.uniform(8, 25)), float(rng.choice([90.0, -90.0])), fov_y, width, height)
    renderer = Renderer()
    out.mkdir(parents=True, exist_ok=True)
    files = ["flat.jpg"]
    cv2.imwrite(str(out / "flat.jpg"), photo(renderer, rng, installed), [cv2.IMWRITE_JPEG_QUALITY, 85])
    for i, (off, az) in enumerate(HELD, 1):
        cam = camera_at(off, az + float(rng.uniform(-20, 20)), fov_y, width, height)
        files.append(f"held-{i}.jpg")
        cv2.imwrite(str(out / files[-1]), photo(renderer, rng, cam), [cv2.IMWRITE_JPEG_QUALITY, 85])
    view = CameraView.rendered(installed)
    truth = {"files": files, "hfov": round(view.hfov, 3), "tilt": round(view.tilt, 3), "toward": view.toward,
             "camera": {k: installed[k] for k in ("width", "height", "intrinsics", "off_vertical_deg", "azimuth",
                                                   "eye", "fov_y")},
             "command": f"python -m reader.synth.chessboard --out {out} --seed {seed}"}
    (out / "camera.json").write_text(json.dumps(truth, indent=1) + "\n")
    return truth


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m reader.synth.chessboard", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="folder to write the photos and camera.json to")
    p.add_argument("--seed", type=int, default=5)
    args = p.parse_args(argv)
    truth = write(Path(args.out), args.seed)
    print(f"wrote {len(truth['files'])} photos to {args.out}: camera {truth['hfov']:.1f} deg wide, "
          f"tilted {truth['tilt']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
