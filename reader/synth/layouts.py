"""Arrangements of dice: a single-die crop with neighbours and walls at its edges, a full tray.

Both return a scene dict for `render.Renderer` with the labels computed from the final poses.
"""

from __future__ import annotations

import numpy as np

from reader.synth import scene as sc

# Class mix of the training crops (the recognizer's classes) and the share of cocked dice.
CROP_CLASSES = [("d4", None, 0.05), ("d6", "pips", 0.15), ("d6", "numerals", 0.10), ("d8", None, 0.12),
                ("d10", None, 0.14), ("d12", None, 0.14), ("d20", None, 0.20)]
COCKED_SHARE = 0.10  # the flat shares above sum to 90%: cocked dice are the rest
# The numeral dice only, D20 most: the reader reads these worst (rendered D20 top face 55% right
# against 95% for pips, measured on fresh renders), so extra crops go where the errors are.
NUMERAL_CLASSES = [("d6", "numerals", 0.10), ("d8", None, 0.15), ("d10", None, 0.20), ("d12", None, 0.20),
                   ("d20", None, 0.35)]
# One die type alone: the data of a second look made for that type (train_top_face --dice); the
# D6 with pips and numerals in the whole mix's proportion, or its numerals alone (the faces
# that differ most from die to die: fonts, marks).
MIXES = {"all": CROP_CLASSES, "numerals": NUMERAL_CLASSES,
         "d6": [("d6", "pips", 0.6), ("d6", "numerals", 0.4)],
         "d6-numerals": [("d6", "numerals", 1.0)],
         **{die: [(die, None, 1.0)] for die in ("d8", "d10", "d12", "d20")}}
RANDOM_DICE = ["d6", "d6", "d8", "d10", "d12", "d20", "d4"]


def pick_class(rng, classes=CROP_CLASSES) -> tuple[str, str | None]:
    p = np.array([c[2] for c in classes])
    i = int(rng.choice(len(classes), p=p / p.sum()))
    return classes[i][0], classes[i][1]


def _wall(rng, surface: dict, x0, y0, x1, y1, height) -> dict:
    wall_surface = surface if rng.random() < 0.6 else sc.make_surface(rng)
    tint = [float(t * rng.uniform(0.75, 1.0)) for t in wall_surface["tint"]]
    return {"box": [x0, y0, 0.0, x1, y1, height], "kind": wall_surface["kind"],
            "tex_id": wall_surface["tex_id"], "span": wall_surface["span"], "tint": tint,
            "gloss": wall_surface["gloss"], "spec": wall_surface["spec"]}


def tray_walls(rng, surface: dict, tw: float, th: float, height: float) -> list[dict]:
    """The four 10 mm walls around a tray floor `tw` x `th` half-sizes (mm) about the origin, all of
    one look (the floor's or another surface's; reader.synth.chessboard's tray too)."""
    walls = [_wall(rng, surface, -tw - 10, -th - 10, tw + 10, -th, height),
             _wall(rng, surface, -tw - 10, th, tw + 10, th + 10, height),
             _wall(rng, surface, -tw - 10, -th, -tw, th, height),
             _wall(rng, surface, tw, -th, tw + 10, th, height)]
    for w in walls[1:]:
        for k in ("kind", "tex_id", "span", "tint", "gloss", "spec"):
            w[k] = walls[0][k]
    return walls


def _lean(rng, d: dict, az: float, surface: dict, walls: list, dice: list) -> None:
    """Give cocked die `d` something to lean on at azimuth az: a wall or another die."""
    reach = sc.die_extent_toward(d, az)
    x, y = d["t"][0], d["t"][1]
    ux, uy = np.cos(az), np.sin(az)
    if rng.random() < 0.5:
        other = sc.make_die(rng, str(rng.choice(RANDOM_DICE)))
        r_other = sc.die_radius_xy(other) * 0.85
        other["t"][0] = float(x + ux * (reach + r_other))
        other["t"][1] = float(y + uy * (reach + r_other))
        dice.append(other)
    else:
        # a wall perpendicular to az: use an axis-aligned wall along the dominant axis
        if abs(ux) > abs(uy):
            wx = x + np.sign(ux) * reach
            x0, x1 = (wx, wx + 8) if ux > 0 else (wx - 8, wx)
            walls.append(_wall(rng, surface, x0, y - 200, x1, y + 200, float(rng.uniform(15, 35))))
        else:
            wy = y + np.sign(uy) * reach
            y0, y1 = (wy, wy + 8) if uy > 0 else (wy - 8, wy)
            walls.append(_wall(rng, surface, x - 200, y0, x + 200, y1, float(rng.uniform(15, 35))))


def _lean_azimuth(d_die: str) -> float:
    return 0.0


def crop_scene(rng, size: int = 128, die: str | None = None, style: str | None = None,
               cocked: bool | None = None, classes=CROP_CLASSES, off_vertical: float | None = None,
               neighbours: bool = True) -> dict:
    """One main die near the centre filling 35-75% of the crop, maybe neighbours and a wall.
    `off_vertical` fixes the camera's angle from vertical (probes); otherwise it is drawn, 0-35.
    `neighbours` False: the main die alone, as in a photo of one die (a cocked one keeps what it leans
    on); the neighbours are drawn and placed all the same, so the die, walls, lights and camera are
    those of the scene with them."""
    if die is None:
        die, style = pick_class(rng, classes)
    if cocked is None:
        cocked = bool(rng.random() < COCKED_SHARE)
    surface = sc.make_surface(rng)
    dice: list[dict] = []
    walls: list[dict] = []
    main = sc.make_die(rng, die, style, cocked=cocked)
    dice.append(main)
    if cocked:
        # the tilt axis in make_die leans the top toward a random azimuth; lean on that side
        az = _top_lean_azimuth(main)
        _lean(rng, main, az, surface, walls, dice)
    r_main = sc.die_radius_xy(main)
    # neighbours just around the crop's edges
    placed = list(dice)
    for _ in range(int(rng.choice([0, 1, 2, 3, 4], p=[0.35, 0.25, 0.2, 0.12, 0.08]))):
        other = sc.make_die(rng, str(rng.choice(RANDOM_DICE)), cocked=bool(rng.random() < 0.05))
        ro = sc.die_radius_xy(other)
        for _try in range(10):
            a = rng.uniform(0, 2 * np.pi)
            dist = r_main + ro + rng.uniform(0.0, 1.6) * r_main
            p = np.array([np.cos(a), np.sin(a)]) * dist
            if all(np.linalg.norm(p - np.array(o["t"][:2])) > ro + sc.die_radius_xy(o) * 0.95
                   for o in placed):
                other["t"][0], other["t"][1] = float(p[0]), float(p[1])
                placed.append(other)
                if neighbours:
                    dice.append(other)
                break
    if not walls and rng.random() < 0.25:
        a = int(rng.integers(4))
        dist = r_main + rng.uniform(0.3, 2.0) * r_main
        h = float(rng.uniform(12, 35))
        box = [[dist, -300, dist + 10, 300], [-dist - 10, -300, -dist, 300],
               [-300, dist, 300, dist + 10], [-300, -dist - 10, 300, -dist]][a]
        walls.append(_wall(rng, surface, *box, h))
    lights = sc.make_lights(rng)
    off = float(35 * rng.random() ** 1.4)
    if off_vertical is not None:  # drawn all the same, so every later draw is what it would be
        off = float(off_vertical)
    az = float(rng.uniform(0, 2 * np.pi))
    for _ in range(12):  # look over the wall, never through it: the camera is on the die's side
        if all(np.cos(az) * c[0] + np.sin(az) * c[1] <= 0.1 for c in _wall_dirs(walls, main)):
            break
        az = float(rng.uniform(0, 2 * np.pi))
    fov = float(rng.uniform(18, 45))
    frac = float(rng.uniform(0.35, 0.75))
    shift = rng.uniform(-0.1, 0.1, 2) * size
    target = [main["t"][0], main["t"][1], main["t"][2]]
    dist = 150.0
    cam = None
    for _ in range(3):  # scale the distance until the die's box side is frac of the crop
        cam = sc.make_camera(target, off, az, dist, fov, size, size, shift_px=(0, 0))
        box, _ = sc.die_box(main, cam)
        side = max(box[2] - box[0], box[3] - box[1])
        dist *= side / (frac * size)
    cam = sc.make_camera(target, off, az, dist, fov, size, size, shift_px=tuple(shift))
    scene = {"camera": cam, "floor": surface, "walls": walls, "dice": dice, "shadow_extent": 120.0,
             "blobs": sc.blobs_for([d for d in dice], rng), **lights}
    scene["labels"] = _main_first(sc.scene_labels(scene, min_visible=0.25))
    return scene


def _wall_dirs(walls: list[dict], d: dict) -> list[np.ndarray]:
    """Unit horizontal directions from die d toward each wall."""
    out = []
    x, y = d["t"][0], d["t"][1]
    for w in walls:
        x0, y0, _, x1, y1, _ = w["box"]
        v = np.array([min(max(x, x0), x1) - x, min(max(y, y0), y1) - y])
        n = np.linalg.norm(v)
        if n > 1e-6:
            out.append(v / n)
    return out


def _top_lean_azimuth(d: dict) -> float:
    """Horizontal direction the die's top face leans toward (its tilt)."""
    from reader.synth import geometry as geo

    s = geo.solid(d["die"])
    lab = geo.label_from_rotation(s, np.asarray(d["R"]))
    n = np.asarray(d["R"]) @ s.normals[lab.top_face]
    return float(np.arctan2(n[1], n[0]))


def _main_first(rows: list[dict]) -> list[dict]:
    return rows  # scene_labels keeps scene order and the main die is dice[0]


def tray_scene(rng, width: int = 960, height: int = 540, n_dice: int | None = None,
               dice_spec: list[dict] | None = None, cocked_share: float = 0.06,
               camera: dict | None = None, surface: dict | None = None, tray: dict | None = None,
               lights: dict | None = None, max_off_vertical: float = 35.0) -> dict:
    """A dice tray with walls and 0-12 dice (touching, leaning, partly out of frame).
    `max_off_vertical`: the farthest the drawn camera leans off straight down (degrees); 35 takes
    any camera over a table, a camera on an arm over the tray leans less."""
    surface = surface or sc.make_surface(rng)
    tray = tray or {"w": float(rng.uniform(180, 300)), "h": float(rng.uniform(130, 220)),
                    "wall_h": float(rng.uniform(15, 40))}
    tw, th = tray["w"] / 2, tray["h"] / 2
    walls = tray_walls(rng, surface, tw, th, tray["wall_h"])
    dice_spec_random = dice_spec is None
    if dice_spec is None:
        n = int(rng.integers(0, 13)) if n_dice is None else n_dice
        dice_spec = [{"die": str(rng.choice(RANDOM_DICE)), "cocked": bool(rng.random() < cocked_share)}
                     for _ in range(n)]
    dice: list[dict] = []
    extra_walls: list[dict] = []
    for spec in dice_spec:
        d = sc.make_die(rng, spec["die"], spec.get("style"), spec.get("value"),
                        cocked=bool(spec.get("cocked")), look=spec.get("look"))
        r = sc.die_radius_xy(d)
        placed = False
        for _try in range(60):
            if spec.get("cocked"):
                # a cocked die leans on something: another die or the tray wall it tips toward
                az = _top_lean_azimuth(d)
                ux, uy = np.cos(az), np.sin(az)
                reach = sc.die_extent_toward(d, az)
                if dice and rng.random() < 0.5:
                    o = dice[int(rng.integers(len(dice)))]
                    p = np.array(o["t"][:2]) - np.array([ux, uy]) * (reach + sc.die_radius_xy(o) * 0.8)
                    if all(np.linalg.norm(p - np.array(q["t"][:2])) > (r + sc.die_radius_xy(q)) * 0.75
                           for q in dice) and abs(p[0]) < tw - r and abs(p[1]) < th - r:
                        d["t"][0], d["t"][1] = float(p[0]), float(p[1])
                        placed = True
                        break
                    continue
                if abs(ux) > abs(uy):
                    x = np.sign(ux) * (tw - reach)
                    y = rng.uniform(-th + r, th - r)
                else:
                    y = np.sign(uy) * (th - reach)
                    x = rng.uniform(-tw + r, tw - r)
                p = np.array([x, y])
            elif spec.get("outside") or (dice_spec_random and rng.random() < 0.04):
                # fell out of the tray: on the table beyond a wall, often partly out of frame
                side = int(rng.integers(4))
                off = 10 + r + rng.uniform(0, 40)
                p = [np.array([tw + off, rng.uniform(-th, th)]), np.array([-tw - off, rng.uniform(-th, th)]),
                     np.array([rng.uniform(-tw, tw), th + off]), np.array([rng.uniform(-tw, tw), -th - off])][side]
                if all(np.linalg.norm(p - np.array(o["t"][:2])) > (r + sc.die_radius_xy(o)) for o in dice):
                    d["t"][0], d["t"][1] = float(p[0]), float(p[1])
                    placed = True
                    break
                continue
            elif dice and rng.random() < 0.3:  # touching another die
                o = dice[int(rng.integers(len(dice)))]
                a = rng.uniform(0, 2 * np.pi)
                p = np.array(o["t"][:2]) + (r + sc.die_radius_xy(o)) * 0.9 * np.array([np.cos(a), np.sin(a)])
            else:
                p = np.array([rng.uniform(-tw + r, tw - r), rng.uniform(-th + r, th - r)])
            if not spec.get("cocked") and (abs(p[0]) > tw - r * 0.7 or abs(p[1]) > th - r * 0.7):
                continue
            if all(np.linalg.norm(p - np.array(o["t"][:2])) > (r + sc.die_radius_xy(o)) * 0.85 for o in dice):
                d["t"][0], d["t"][1] = float(p[0]), float(p[1])
                placed = True
                break
        if placed:
            dice.append(d)
    lights = lights or sc.make_lights(rng)
    if camera is None:
        off = float(max_off_vertical * rng.random() ** 1.3)
        # most tray cameras are set up with the tray's long side across the picture
        if rng.random() < 0.7:
            az = float(rng.choice([np.pi / 2, -np.pi / 2]) + rng.normal(0, np.radians(8)))
        else:
            az = float(rng.uniform(0, 2 * np.pi))
        fov = float(rng.uniform(40, 65))
        # image up is -(cos az, sin az): the tray's w runs across the image when az is +-90 deg
        across = abs(np.sin(az)) * tray["w"] + abs(np.cos(az)) * tray["h"]
        along = abs(np.cos(az)) * tray["w"] + abs(np.sin(az)) * tray["h"]
        span = max(across / (width / height), along) * rng.uniform(0.8, 1.15)
        dist = span / 2 / np.tan(np.radians(fov) / 2) + tray["wall_h"]
        cam = sc.make_camera([rng.normal(0, 8), rng.normal(0, 8), 0.0], off, az, dist, fov, width, height,
                             supersample=1)
    else:
        cam = sc.make_camera(**camera)
    scene = {"camera": cam, "floor": surface, "walls": walls + extra_walls, "dice": dice,
             "shadow_extent": float(max(tray["w"], tray["h"]) * 0.8),
             "blobs": sc.blobs_for(dice, rng), "tray": tray, **lights}
    scene["labels"] = sc.scene_labels(scene, min_visible=0.3)
    return scene
