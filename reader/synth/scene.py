"""Random scene descriptions: dice with materials and rest poses, trays, lights and cameras.

A scene is plain data (dicts of numbers and lists) so it can be logged, stored with a fixture,
and drawn by `render.Renderer`. Every random choice comes from the numpy Generator passed in,
so a bulk image is a pure function of (seed, index).

Labels are computed here from the final pose (`geometry.label_from_rotation`) and the camera
(`geometry.project`), never copied from the value that was asked for.
"""

from __future__ import annotations

import colorsys

import numpy as np

from reader.synth import geometry as geo
from reader.synth.mesh import silhouette_points
from reader.synth.textures import SURFACES

N_SURFACE_IDS = 16  # per surface kind: 6 x 16 cached textures

# ---- die appearance --------------------------------------------------------------------------

_NAMED_BODIES = [  # linear-ish RGB of common dice plastics
    (0.85, 0.84, 0.80), (0.92, 0.90, 0.84), (0.03, 0.03, 0.035), (0.55, 0.03, 0.03),
    (0.03, 0.10, 0.45), (0.02, 0.30, 0.06), (0.25, 0.04, 0.35), (0.80, 0.55, 0.02),
    (0.80, 0.20, 0.02), (0.05, 0.35, 0.40), (0.60, 0.10, 0.25), (0.35, 0.35, 0.38),
]
_INKS = {
    "white": (0.92, 0.92, 0.90), "black": (0.02, 0.02, 0.02), "gold": (0.75, 0.55, 0.15),
    "silver": (0.70, 0.72, 0.75), "red": (0.60, 0.03, 0.03), "blue": (0.03, 0.08, 0.45),
    "green": (0.03, 0.35, 0.08), "yellow": (0.85, 0.75, 0.05),
}


def _lum(c) -> float:
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def _random_color(rng) -> tuple[float, float, float]:
    if rng.random() < 0.6:
        # white, ivory and black dice are the commonest in shops and on tables
        w = np.array([0.2, 0.08, 0.12] + [0.6 / (len(_NAMED_BODIES) - 3)] * (len(_NAMED_BODIES) - 3))
        base = np.array(_NAMED_BODIES[int(rng.choice(len(_NAMED_BODIES), p=w / w.sum()))])
        c = base * rng.uniform(0.8, 1.15, 3)
    else:
        import colorsys

        h, s, v = rng.random(), rng.uniform(0.2, 0.85), rng.uniform(0.2, 0.9)
        c = np.array(colorsys.hsv_to_rgb(h, s, v)) ** 2.2
    return tuple(float(x) for x in np.clip(c, 0.005, 0.95))


def die_material(rng, die: str, style: str | None) -> dict:
    """Body, ink and label style of one die: opaque, marbled, translucent, metallic, speckled."""
    pips = die == "d6" and style == "pips"
    kinds = ["opaque", "marbled", "translucent", "metallic", "speckled"]
    p = [0.62, 0.15, 0.12, 0.03, 0.08] if pips else [0.38, 0.24, 0.22, 0.06, 0.10]
    kind = kinds[int(rng.choice(5, p=p))]
    body1 = _random_color(rng)
    body2 = _random_color(rng) if kind in ("marbled", "speckled") else body1
    if kind == "marbled" and rng.random() < 0.5:  # swirl of a colour with white or black
        body2 = (0.85, 0.85, 0.82) if rng.random() < 0.6 else (0.02, 0.02, 0.02)
    if kind == "translucent":  # cloudy swirls inside the resin, lighter than the body
        body2 = tuple(float(min(0.95, c * 1.7 + 0.08)) for c in body1)
    if kind == "metallic":
        body1 = tuple(float(x) for x in rng.choice([(0.75, 0.55, 0.2), (0.6, 0.6, 0.62),
                                                     (0.55, 0.3, 0.15), (0.2, 0.2, 0.22)]))
        body2 = body1
    # ink: contrast with the body, like real dice
    lb = _lum(body1) if kind != "marbled" else 0.5 * (_lum(body1) + _lum(body2))
    if rng.random() < 0.25:
        name = str(rng.choice(["gold", "silver", "red", "blue", "green", "yellow"]))
    else:
        name = "white" if lb < 0.3 else "black"
    ink = _INKS[name]
    if abs(_lum(ink) - lb) < 0.18:
        ink = _INKS["white"] if lb < 0.35 else _INKS["black"]
    ink = tuple(float(x) * float(rng.uniform(0.85, 1.05)) for x in ink)
    text_h = {"d4": (0.16, 0.22), "d6": (0.55, 0.75), "d8": (0.44, 0.60), "d10": (0.44, 0.60),
              "d12": (0.44, 0.58), "d20": (0.40, 0.54)}[die]
    height = round(float(rng.uniform(*text_h)) / 0.04) * 0.04
    # 6 and 9 are underlined or dotted on dice that carry both; a D6 has no 9, and many numeral
    # D6 leave the 6 plain (a third here). One draw either way, so every other die of a seed
    # renders as it did before.
    marks = ["underline", "dot", "none"] if die == "d6" and not pips else ["underline", "dot", "underline"]
    mark = str(marks[int(rng.integers(3))])
    font = int(rng.integers(720))  # taken modulo the fonts found, so scenes need no fonts
    spread = round(float(rng.uniform(0.42, 0.58)) / 0.04) * 0.04
    radius = round(float(rng.uniform(0.12, 0.19)) / 0.02) * 0.02
    engrave = float(rng.choice([0.0, 0.5, 0.8], p=[0.4, 0.3, 0.3]))
    atlas = [die, "pips" if pips else "numerals", font, round(height, 2), mark,
             round(spread, 2), round(radius, 2), engrave]
    gloss = float(rng.uniform(20, 140)) if kind != "metallic" else float(rng.uniform(60, 200))
    return {
        "kind": kind,
        "body_kind": {"opaque": 0, "marbled": 1, "translucent": 2, "metallic": 3, "speckled": 4}[kind],
        "body1": body1, "body2": body2, "ink": ink, "ink_name": name,
        "marble_scale": float(rng.uniform(0.6, 2.2)), "gloss": gloss,
        "spec_strength": float(rng.uniform(0.03, 0.12)) if kind != "metallic" else 0.4,
        "ink_gloss": float(rng.uniform(0.0, 1.0)), "seed": float(rng.uniform(0, 100)),
        "atlas": atlas,
        "opacity": float(rng.uniform(0.6, 0.88)) if kind == "translucent" else 1.0,
    }


def die_bevel(rng, die: str, style: str | None) -> float:
    lo, hi = {"d4": (0.03, 0.08), "d6": (0.06, 0.16), "d8": (0.03, 0.08), "d10": (0.02, 0.06),
              "d12": (0.02, 0.07), "d20": (0.02, 0.07)}[die]
    if die == "d6" and style == "pips":
        lo, hi = 0.10, 0.24
    return round(float(rng.uniform(lo, hi)), 2)


def die_size_mm(rng, die: str) -> float:
    """Face-to-face height of the die when it lies flat (12-25 mm across real dice)."""
    lo, hi = {"d4": (14, 20), "d6": (12, 20), "d8": (13, 19), "d10": (14, 20), "d12": (15, 22),
              "d20": (16, 24)}[die]
    return float(rng.uniform(lo, hi))


def make_die(rng, die: str, style: str | None = None, value: int | None = None,
             cocked: bool = False, xy=(0.0, 0.0), tilt_toward: float | None = None,
             look: dict | None = None) -> dict:
    """A die resting on the table at xy: flat on a face, or tipped 25-40 degrees (cocked).

    `look` (style, scale, bevel, material of an earlier die) keeps one physical die the same
    from roll to roll.
    """
    if look:
        style = look["style"]
    s = geo.solid(die)
    if die == "d6" and style is None:
        style = "pips" if rng.random() < 0.6 else "numerals"
    if die != "d6":
        style = None
    if value is None and die != "d4":
        value = int(rng.choice([v for v in s.values if v]))
    yaw = float(rng.uniform(0, 2 * np.pi))
    r = geo.rest_rotation(s, value, yaw, rng)
    if cocked:
        toward = float(rng.uniform(0, 2 * np.pi)) if tilt_toward is None else tilt_toward
        r = geo.tilt_rotation(r, np.radians(rng.uniform(25, 40)), toward)
    # inradius-1 solids stand 2 tall on a face, except the D4 (face to opposite corner: 4)
    scale = die_size_mm(rng, die) / (4 if die == "d4" else 2)
    bevel = die_bevel(rng, die, style)
    material = die_material(rng, die, style)
    if look:
        scale, bevel, material = look["scale"], look["bevel"], look["material"]
    z = -geo.lowest_z(s, r, scale * 1.0)
    t = [float(xy[0]), float(xy[1]), z]
    d = {"die": die, "style": style, "R": r.tolist(), "t": t, "scale": scale, "bevel": bevel,
         "material": material}
    return d


def die_look(d: dict) -> dict:
    return {k: d[k] for k in ("style", "scale", "bevel", "material")}


def die_radius_xy(d: dict) -> float:
    """Horizontal reach of a posed die from its centre (for placing dice without overlap)."""
    s = geo.solid(d["die"])
    pts = (s.vertices * d["scale"]) @ np.asarray(d["R"]).T
    return float(np.max(np.linalg.norm(pts[:, :2], axis=1)))


def die_extent_toward(d: dict, az: float) -> float:
    s = geo.solid(d["die"])
    pts = (s.vertices * d["scale"]) @ np.asarray(d["R"]).T
    return float(np.max(pts[:, :2] @ np.array([np.cos(az), np.sin(az)])))


def die_solid(d: dict) -> geo.Solid:
    """The solid die `d` is, with its own numbers where it was numbered anew (numbering.vary_numbers)."""
    return geo.numbered(d["die"], tuple(d.get("numbers") or ()))


def label_die(d: dict) -> geo.PoseLabel:
    return geo.label_from_rotation(die_solid(d), np.asarray(d["R"]))


# ---- camera and light ------------------------------------------------------------------------

def make_camera(target, off_vertical_deg: float, azimuth: float, distance: float, fov: float,
                width: int, height: int, shift_px=(0.0, 0.0), supersample: int = 2) -> dict:
    target = np.asarray(target, float)
    th = np.radians(off_vertical_deg)
    eye = target + distance * np.array([np.sin(th) * np.cos(azimuth), np.sin(th) * np.sin(azimuth), np.cos(th)])
    # image "up" points away from the camera's horizontal offset, like a phone held over a table;
    # straight above, azimuth still turns the picture (the same rule, so it is continuous)
    up = (-np.cos(azimuth), -np.sin(azimuth), 0.0)
    view = geo.look_at(eye, target, up=up)
    proj = geo.perspective(fov, width / height, max(1.0, distance * 0.05), distance * 6)
    shift = np.eye(4)
    shift[0, 3] = 2 * shift_px[0] / width
    shift[1, 3] = -2 * shift_px[1] / height
    proj = shift @ proj
    k = geo.intrinsics(fov, width, height)
    k[0][2] += shift_px[0]
    k[1][2] += shift_px[1]
    return {"width": width, "height": height, "supersample": supersample, "eye": eye.tolist(),
            "target": target.tolist(), "view": view.tolist(), "proj": proj.tolist(), "fov_y": fov,
            "off_vertical_deg": off_vertical_deg, "azimuth": azimuth, "intrinsics": k}


def _light_dir(elevation: float, azimuth: float) -> list[float]:
    """The unit vector toward a light `elevation` radians over the table, at `azimuth`."""
    return [float(np.cos(elevation) * np.cos(azimuth)), float(np.cos(elevation) * np.sin(azimuth)),
            float(np.sin(elevation))]


def make_lights(rng) -> dict:
    n = int(rng.choice([1, 2, 3], p=[0.45, 0.35, 0.2]))
    temp = rng.uniform(0, 1)  # 0 warm .. 1 cool
    warm, cool = np.array([1.0, 0.82, 0.62]), np.array([0.82, 0.9, 1.05])
    lights = []
    for i in range(n):
        el = np.radians(rng.uniform(35, 85) if i == 0 else rng.uniform(20, 80))
        az = rng.uniform(0, 2 * np.pi)
        col = warm + (cool - warm) * np.clip(temp + rng.normal(0, 0.15), 0, 1)
        inten = rng.uniform(0.75, 1.3) if i == 0 else rng.uniform(0.1, 0.5)
        lights.append({"dir": _light_dir(el, az),
                       "color": [float(c * inten) for c in col],
                       "distance": float(rng.uniform(150, 900))})
    amb = rng.uniform(0.15, 0.4)
    sky = (warm + (cool - warm) * temp) * amb
    ground = sky * rng.uniform(0.3, 0.6)
    return {"lights": lights, "sky": sky.tolist(), "ground": ground.tolist(),
            "shadow_strength": float(rng.uniform(0.55, 0.95)), "shadow_soft": float(rng.uniform(0.8, 3.5))}


MAX_LIGHTS = 3  # the renderer's shader takes this many point lights


def room_lights(scene: dict, rng) -> None:
    """Light `scene` as a room does (in place): much of the light diffuse, from the ceiling, the walls and
    a pale table bouncing it back, the key light weaker, and up to two weak lights low around (the
    shader takes MAX_LIGHTS in all).

    Why: seen from above, the faces around a real die's top face are about as bright as the top face
    (ring/centre luminance, median: type-lurig's D8, D10, D20 0.94-0.99, crops-fickett's blue D20
    1.03), while make_lights' strong key and low ambient shade them darker (base-lit numeral crops 0.89), with
    hard shading edges between the facets. Drawn from its own `rng` after the scene is laid out, so
    the scene is otherwise the one its seed gave."""
    for light in scene["lights"]:
        light["color"] = [float(c * rng.uniform(0.3, 0.7)) for c in light["color"]]
    sky = np.array(scene["sky"], float)
    sky = sky / max(float(sky.max()), 1e-6) * float(rng.uniform(0.55, 1.0))
    scene["sky"] = sky.tolist()
    scene["ground"] = (sky * float(rng.uniform(0.7, 0.95))).tolist()
    tone = np.array(scene["lights"][0]["color"], float)
    tone = tone / max(float(tone.max()), 1e-6)
    for _ in range(min(int(rng.integers(1, 4)), MAX_LIGHTS - len(scene["lights"]))):
        el, az = np.radians(rng.uniform(15, 50)), rng.uniform(0, 2 * np.pi)
        scene["lights"].append({"dir": _light_dir(el, az),
                                "color": [float(c * rng.uniform(0.08, 0.25)) for c in tone],
                                "distance": float(rng.uniform(300, 900))})


def clear_resin(scene: dict, rng, share: float = 0.5) -> None:
    """Make each die of `scene` clear resin with chance `share` (in place): what lies behind it seen
    through it, tinted by its body the deeper the longer the path, the numerals of its far faces seen
    through it mirrored, its near faces' body faint (the renderer's `_draw_resin`).

    Why: the real D20 no look reads are mostly clear resin (crops-fickett's blue and purple, several
    of type-lurig's), where the far faces' numerals show through among the near ones and the body's
    colour deepens toward the outline; die_material's translucent dice (a cloudy body at 0.6-0.88
    opacity) look opaque by comparison. Drawn from its own `rng` after the scene is laid out, so
    the scene is otherwise the one its seed gave."""
    blobs = scene.get("blobs", [])
    blob_per_die = len(blobs) == len(scene["dice"])  # as layouts lay them (blobs_for), one under each die
    for i, d in enumerate(scene["dice"]):
        if rng.random() >= share:
            continue
        if blob_per_die:  # the light crossing it lights the table under it too: its contact shadow
            blobs[i][3] *= 0.3  # faint (it casts none in the shadow map)
        m = d["material"]
        if rng.random() < 0.12:  # near colourless, a smoky or faint tint
            body = np.full(3, rng.uniform(0.55, 0.9)) * rng.uniform(0.9, 1.1, 3)
        else:
            h, sat, val = rng.random(), rng.uniform(0.55, 1.0), rng.uniform(0.35, 0.95)
            body = np.array(colorsys.hsv_to_rgb(h, sat, val)) ** 1.6
        body = tuple(float(x) for x in np.clip(body, 0.01, 0.97))
        name = str(rng.choice(["white", "gold", "silver", "black", "yellow"], p=[0.5, 0.2, 0.1, 0.1, 0.1]))
        ink = tuple(float(x) * float(rng.uniform(0.85, 1.05)) for x in _INKS[name])
        m.update(kind="clear", body_kind=2, body1=body, body2=body, ink=ink, ink_name=name,
                 opacity=float(rng.uniform(0.05, 0.25)), resin=1.0,
                 resin_density=float(rng.uniform(0.5, 1.8)),
                 gloss=float(rng.uniform(80, 220)), spec_strength=float(rng.uniform(0.08, 0.2)))


def make_surface(rng, kind: str | None = None) -> dict:
    kind = kind or str(rng.choice(SURFACES, p=[0.22, 0.16, 0.2, 0.16, 0.14, 0.12]))
    tex_id = int(rng.integers(N_SURFACE_IDS))
    from reader.synth.textures import surface_span

    span = surface_span(tex_id, kind)
    return {"kind": kind, "tex_id": tex_id, "span": span, "tint": [float(x) for x in rng.uniform(0.85, 1.1, 3)],
            "gloss": float(rng.uniform(4, 30)), "spec": float(rng.uniform(0.0, 0.05)) if kind != "neoprene" else 0.01,
            "uv_offset": [float(rng.random()), float(rng.random())], "extent": 2000.0}


def blobs_for(dice: list[dict], rng) -> list[list[float]]:
    out = []
    for d in dice:
        out.append([d["t"][0], d["t"][1], d["scale"] * float(rng.uniform(1.0, 1.35)), float(rng.uniform(0.25, 0.5))])
    return out


# ---- labels ----------------------------------------------------------------------------------

def die_box(d: dict, cam: dict) -> tuple[np.ndarray, float]:
    """(unclipped box [x0,y0,x1,y1] in output pixels, depth) of a die's silhouette."""
    pts = silhouette_points(d["die"], d["bevel"]) * d["scale"] @ np.asarray(d["R"]).T + np.asarray(d["t"])
    uv = geo.project(pts, np.asarray(cam["view"]), np.asarray(cam["proj"]), cam["width"], cam["height"])
    box = np.array([uv[:, 0].min(), uv[:, 1].min(), uv[:, 0].max(), uv[:, 1].max()])
    depth = float(np.linalg.norm(np.asarray(cam["eye"]) - np.asarray(d["t"])))
    return box, depth


def _segment_hits_box(p: np.ndarray, e: np.ndarray, box) -> np.ndarray:
    """For points p (N, 3) and eye e: does the segment p->e pass through the box (slab test)?"""
    lo = np.array(box[:3], float) + 0.5  # a die touching a wall is not hidden by it
    hi = np.array(box[3:], float) - 0.5
    d = e[None, :] - p
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = (lo[None, :] - p) / d
        t2 = (hi[None, :] - p) / d
    tmin = np.where(np.isfinite(t1), np.minimum(t1, t2), -np.inf)
    tmax = np.where(np.isfinite(t2), np.maximum(t1, t2), np.inf)
    # a zero direction component: inside the slab means no constraint, outside means a miss
    par = d == 0
    inside = (p >= lo) & (p <= hi)
    tmin = np.where(par, np.where(inside, -np.inf, np.inf), tmin)
    tmax = np.where(par, np.where(inside, np.inf, -np.inf), tmax)
    enter = tmin.max(axis=1)
    leave = tmax.min(axis=1)
    return (enter <= leave) & (leave > 0) & (enter < 1)


def wall_visible_fraction(d: dict, scene: dict) -> float:
    """Share of the die's corners the camera sees past the tray walls."""
    walls = scene.get("walls") or []
    if not walls:
        return 1.0
    s = geo.solid(d["die"])
    pts = (s.vertices * d["scale"] * 0.9) @ np.asarray(d["R"]).T + np.asarray(d["t"])
    eye = np.asarray(scene["camera"]["eye"], float)
    hidden = np.zeros(len(pts), bool)
    for w in walls:
        hidden |= _segment_hits_box(pts, eye, w["box"])
    return float(1.0 - hidden.mean())


def scene_labels(scene: dict, min_visible: float = 0.3) -> list[dict]:
    """Shared label rows for every die at least `min_visible` inside the image and not hidden
    behind a tray wall (a camera off to one side does not see dice at the foot of the near wall)."""
    cam = scene["camera"]
    w, h = cam["width"], cam["height"]
    rows = []
    for d in scene["dice"]:
        if wall_visible_fraction(d, scene) < 0.5:
            continue
        box, _ = die_box(d, cam)
        area = max(1e-6, (box[2] - box[0]) * (box[3] - box[1]))
        c = _in_picture(box, w, h)
        if c[2] - c[0] < 3 or c[3] - c[1] < 3:
            continue
        if (c[2] - c[0]) * (c[3] - c[1]) / area < min_visible:
            continue
        lab = label_die(d)
        row = {"die": d["die"], "value": lab.value, "box": [round(float(x), 1) for x in c],
               "state": lab.state}
        if d["die"] == "d6":
            row["style"] = d["style"]
        rows.append(row)
    return rows


def _in_picture(box, w: float, h: float) -> np.ndarray:
    return np.array([max(0, box[0]), max(0, box[1]), min(w, box[2]), min(h, box[3])])


def labeled_die(scene: dict, row: dict) -> dict:
    """The die of `scene` that label row `row` (scene_labels) is of: its type and its box in the picture."""
    cam = scene["camera"]
    for d in scene["dice"]:
        if d["die"] == row["die"] and [round(float(x), 1) for x in
                                       _in_picture(die_box(d, cam)[0], cam["width"], cam["height"])] == row["box"]:
            return d
    raise ValueError(f"no {row['die']} of the scene lies at {row['box']}")


def truth_pose(d: dict) -> dict:
    """The pose stored with a fixture so a test can recompute the top face from geometry."""
    return {"die": d["die"], "R": [[round(x, 6) for x in row] for row in d["R"]],
            "t": [round(x, 3) for x in d["t"]], "scale": round(d["scale"], 4), "bevel": d["bevel"]}
