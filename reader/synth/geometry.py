"""Dice solids, their face layouts, rest poses and the top face read back from a rotation.

Pure numpy, no OpenGL: the tests that check committed fixtures (in CI, where nothing renders)
recompute each die's top face from the final rotation stored with the recording, using this
module. Labels are therefore a function of the pose the renderer drew, never of the value that
was asked for.

Conventions: world z is up, the table is the plane z = 0, lengths in millimetres. A solid's
vertices are in its own frame centred on its centre; a pose is (R, t) with world = R @ p + t.
Face values: a D10's "0" face carries the value 10 (as in `reader.dice`), and a D4 has no face
value here (its reading is "type only").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

PHI = (1 + 5 ** 0.5) / 2
# A die whose resting face is tilted more than this off the table is not lying on a face.
FLAT_TOLERANCE_DEG = 4.0


@dataclass(frozen=True)
class Solid:
    """A convex die shape with one value per face (`values[i]` for face i, 0 = no value)."""

    name: str
    vertices: np.ndarray  # (V, 3), centred, inradius 1
    faces: tuple[tuple[int, ...], ...]  # vertex indices, counter-clockwise seen from outside
    normals: np.ndarray  # (F, 3) unit outward
    centers: np.ndarray  # (F, 3) face centroids
    ups: np.ndarray  # (F, 3) unit in-plane direction a numeral's top points to
    values: tuple[int, ...]

    def face_of_value(self, value: int) -> int:
        return self.values.index(value)

    def label(self, face: int) -> str:
        """Text printed on a face ("0" for a D10's 10)."""
        v = self.values[face]
        return "0" if (self.name == "d10" and v == 10) else str(v)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _hull_faces(verts: np.ndarray) -> list[list[int]]:
    """Faces of a convex polyhedron whose faces are regular-ish: group vertices by support plane."""
    n = len(verts)
    planes: dict[tuple, list[int]] = {}
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                nrm = np.cross(verts[j] - verts[i], verts[k] - verts[i])
                if np.linalg.norm(nrm) < 1e-9:
                    continue
                nrm = nrm / np.linalg.norm(nrm)
                d = nrm @ verts[i]
                if d < 0:
                    nrm, d = -nrm, -d
                side = verts @ nrm - d
                if np.all(side <= 1e-6):
                    key = tuple(np.round(nrm, 5))
                    if key not in planes:
                        planes[key] = [m for m in range(n) if abs(side[m]) < 1e-6]
    faces = []
    for key, idx in planes.items():
        nrm = np.array(key)
        c = verts[idx].mean(axis=0)
        a = _unit(verts[idx[0]] - c)
        b = np.cross(nrm, a)
        ang = [np.arctan2((verts[m] - c) @ b, (verts[m] - c) @ a) for m in idx]
        faces.append([idx[m] for m in np.argsort(ang)])  # CCW seen from outside
    return faces


def _base_vertices(name: str) -> np.ndarray:
    if name == "d4":
        return np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]], float)
    if name == "d6":
        return np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    if name == "d8":
        return np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
    if name == "d12":
        v = [[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
        for a in (-1, 1):
            for b in (-1, 1):
                v += [[0, a / PHI, b * PHI], [a / PHI, b * PHI, 0], [a * PHI, 0, b / PHI]]
        return np.array(v, float)
    if name == "d20":
        v = []
        for a in (-1, 1):
            for b in (-1, 1):
                v += [[0, a, b * PHI], [a, b * PHI, 0], [b * PHI, 0, a]]
        return np.array(v, float)
    if name == "d10":
        # Pentagonal trapezohedron: two apexes and a zig-zag ring; z0 makes each kite planar.
        h = 1.15
        c36 = np.cos(np.pi / 5)
        z0 = h * (1 - c36) / (1 + c36)
        v = [[0, 0, h], [0, 0, -h]]
        for k in range(10):
            a = k * np.pi / 5
            v.append([np.cos(a), np.sin(a), z0 if k % 2 == 0 else -z0])
        return np.array(v, float)
    raise ValueError(f"unknown die {name!r}")


def pair_layout(normals: np.ndarray, total: int, rng: np.random.Generator) -> list[int]:
    """Values 1..F with opposite faces summing to `total`, arranged as `rng` draws them (the solids'
    own: a fixed seed per die; reader.synth.numbering: a new one per rendered die)."""
    f = len(normals)
    values = [0] * f
    done = set()
    low_values = list(rng.permutation(np.arange(1, f // 2 + 1)))
    for i in range(f):
        if i in done:
            continue
        j = int(np.argmin(normals @ normals[i]))  # the opposite face
        v = int(low_values.pop())
        if rng.random() < 0.5:
            values[i], values[j] = v, total - v
        else:
            values[i], values[j] = total - v, v
        done |= {i, j}
    return values


def d10_layout(normals: np.ndarray, centers: np.ndarray, top_cycle) -> list[int]:
    """A D10's values: `top_cycle` (the odd numbers) around the top apex in turn, even ones around the
    bottom; opposite faces sum to 9 when "0" counts as 0 (0 opposite 9, 1 opposite 8, ...). Stored: 0 -> 10."""
    out = [0] * len(normals)
    up = [i for i in range(len(normals)) if normals[i][2] > 0]
    up.sort(key=lambda i: np.arctan2(centers[i][1], centers[i][0]))
    for i, v in zip(up, top_cycle):
        j = int(np.argmin(normals @ normals[i]))
        out[i], out[j] = int(v), (9 - int(v)) or 10
    return out


def _layout(name: str, normals: np.ndarray, centers: np.ndarray) -> list[int]:
    if name == "d4":
        return [0] * 4
    if name == "d6":
        # 1 opposite 6, 2 opposite 5, 3 opposite 4; 1-2-3 counter-clockwise around their corner.
        table = {(0, 0, 1): 1, (0, 0, -1): 6, (1, 0, 0): 2, (-1, 0, 0): 5, (0, 1, 0): 3, (0, -1, 0): 4}
        return [table[tuple(int(round(c)) for c in n)] for n in normals]
    if name == "d8":
        # Upper half 1,3,5,7 around the top vertex alternating with... opposite faces sum to 9.
        ring = {(1, 1): 1, (-1, 1): 3, (-1, -1): 5, (1, -1): 7}
        out = []
        for n in normals:
            sx, sy, sz = (int(np.sign(c)) for c in n)
            if sz > 0:
                out.append(ring[(sx, sy)])
            else:
                out.append(9 - ring[(-sx, -sy)])
        return out
    if name == "d10":
        return d10_layout(normals, centers, (1, 7, 5, 3, 9))
    total = {"d12": 13, "d20": 21}[name]
    return pair_layout(normals, total, np.random.default_rng({"d12": 12, "d20": 20}[name]))


def _ups(name: str, verts: np.ndarray, faces, normals, centers) -> np.ndarray:
    ups = []
    for f, n, c in zip(faces, normals, centers):
        if name == "d10":
            apex = verts[0] if n[2] > 0 else verts[1]
            # numerals are written across the kite: upright when the apexes are left and right
            u = np.cross(n, apex - c)
        elif name == "d6":
            u = (verts[f[0]] + verts[f[1]]) / 2 - c  # perpendicular to an edge
        else:
            u = verts[f[0]] - c  # toward a corner, base parallel to the opposite edge
        u = u - (u @ n) * n
        ups.append(u / np.linalg.norm(u))
    return np.array(ups)


@lru_cache(maxsize=None)
def solid(name: str) -> Solid:
    """The die `name` ("d4".."d20") with inradius 1 (every face plane at distance 1)."""
    verts = _base_vertices(name)
    faces = _hull_faces(verts)
    centers = np.array([verts[f].mean(axis=0) for f in faces])
    normals = []
    for f in faces:
        nrm = np.cross(verts[f[1]] - verts[f[0]], verts[f[2]] - verts[f[0]])
        normals.append(nrm / np.linalg.norm(nrm))
    normals = np.array(normals)
    inr = float(np.mean(np.sum(normals * centers, axis=1)))
    verts = verts / inr
    centers = centers / inr
    values = _layout(name, normals, centers)
    ups = _ups(name, verts, faces, normals, centers)
    for a in (verts, centers, normals, ups):
        a.setflags(write=False)
    return Solid(name, verts, tuple(tuple(f) for f in faces), normals, centers, ups, tuple(values))


@lru_cache(maxsize=4096)  # a die numbered anew each render: bounded, and cheap to make again
def numbered(name: str, values: tuple[int, ...] = ()) -> Solid:
    """The die `name` with `values` on its faces instead of its own (face i shows values[i]): a die of
    another maker, whose numbers sit otherwise around the same solid (reader.synth.numbering). No
    values: the die as `solid` numbers it (a scene's die that was not numbered anew)."""
    s = solid(name)
    if not values:
        return s
    if sorted(values) != sorted(s.values):
        raise ValueError(f"{name} faces show {sorted(s.values)}, not {sorted(values)}")
    return replace(s, values=tuple(int(v) for v in values))


def needs_mark(text: str) -> bool:
    """A numeral that reads as another one upside down gets a mark (underline or dot): 6 and 9."""
    return text in ("6", "9")


# ---- rotations -------------------------------------------------------------------------------

def rot_axis(axis, angle: float) -> np.ndarray:
    """Rotation matrix for `angle` radians about `axis` (Rodrigues)."""
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * (k @ k)


def rot_between(a, b) -> np.ndarray:
    """The smallest rotation taking unit vector a onto unit vector b."""
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    v = np.cross(a, b)
    c = float(a @ b)
    if np.linalg.norm(v) < 1e-9:
        if c > 0:
            return np.eye(3)
        perp = np.cross(a, [1, 0, 0]) if abs(a[0]) < 0.9 else np.cross(a, [0, 1, 0])
        return rot_axis(perp, np.pi)
    return rot_axis(v, np.arctan2(np.linalg.norm(v), c))


def rest_rotation(s: Solid, value_up: int | None, yaw: float, rng=None) -> np.ndarray:
    """A pose lying on a face with the face showing `value_up` on top (any face for a D4/None)."""
    if value_up is None or s.name == "d4":
        rng = rng or np.random.default_rng()
        bottom = int(rng.integers(len(s.faces)))
    else:
        top = s.face_of_value(value_up)
        bottom = int(np.argmin(s.normals @ s.normals[top]))
    r = rot_between(s.normals[bottom], [0, 0, -1])
    return rot_axis([0, 0, 1], yaw) @ r


def tilt_rotation(r: np.ndarray, tilt: float, toward: float) -> np.ndarray:
    """Tip a resting pose by `tilt` radians so that its top leans toward azimuth `toward`."""
    axis = np.array([-np.sin(toward), np.cos(toward), 0.0])
    return rot_axis(axis, tilt) @ r


def lowest_z(s: Solid, r: np.ndarray, scale: float) -> float:
    """Height of the lowest vertex of the posed solid below its centre (negative)."""
    return float(np.min((s.vertices * scale) @ r.T, axis=0)[2])


# ---- reading a pose --------------------------------------------------------------------------

@dataclass(frozen=True)
class PoseLabel:
    state: str  # "flat" or "cocked"
    value: int | None  # None for cocked dice and for a D4
    top_face: int
    top_angle_deg: float  # angle between the top face's normal and world up


def label_from_rotation(s: Solid, r: np.ndarray, tol_deg: float = FLAT_TOLERANCE_DEG) -> PoseLabel:
    """What a judge would call this pose: the face pointing up, or cocked if no face lies flat."""
    up = (np.asarray(r, float) @ s.normals.T)[2]  # z of every rotated normal
    top = int(np.argmax(up))
    bottom = int(np.argmin(up))
    top_angle = float(np.degrees(np.arccos(np.clip(up[top], -1, 1))))
    bottom_angle = float(np.degrees(np.arccos(np.clip(-up[bottom], -1, 1))))
    if bottom_angle > tol_deg:
        return PoseLabel("cocked", None, top, top_angle)
    value = None if s.name == "d4" else int(s.values[top])
    return PoseLabel("flat", value, top, top_angle)


# ---- cameras ---------------------------------------------------------------------------------

def look_at(eye, target, up=(0.0, 1.0, 0.0)) -> np.ndarray:
    """World-to-camera 4x4 (OpenGL convention: camera looks down -z, y up)."""
    eye = np.asarray(eye, float)
    f = _unit(np.asarray(target, float) - eye)
    upv = np.asarray(up, float)
    if abs(f @ _unit(upv)) > 0.999:
        upv = np.array([0.0, 1.0, 0.0]) if abs(f[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    s_ = _unit(np.cross(f, upv))
    u = np.cross(s_, f)
    m = np.eye(4)
    m[0, :3], m[1, :3], m[2, :3] = s_, u, -f
    m[:3, 3] = -m[:3, :3] @ eye
    return m


def perspective(fov_y_deg: float, aspect: float, near: float, far: float) -> np.ndarray:
    f = 1.0 / np.tan(np.radians(fov_y_deg) / 2)
    m = np.zeros((4, 4))
    m[0, 0], m[1, 1] = f / aspect, f
    m[2, 2] = (far + near) / (near - far)
    m[2, 3] = 2 * far * near / (near - far)
    m[3, 2] = -1
    return m


def project(points: np.ndarray, view: np.ndarray, proj: np.ndarray, width: int, height: int) -> np.ndarray:
    """World points (N, 3) -> pixel coordinates (N, 2), image y pointing down."""
    p = np.c_[points, np.ones(len(points))] @ (proj @ view).T
    ndc = p[:, :2] / p[:, 3:4]
    return np.c_[(ndc[:, 0] + 1) * 0.5 * width, (1 - ndc[:, 1]) * 0.5 * height]


def intrinsics(fov_y_deg: float, width: int, height: int) -> list[list[float]]:
    """Pinhole K matrix of the render camera, for the manifest."""
    fy = height / 2 / np.tan(np.radians(fov_y_deg) / 2)
    return [[fy, 0.0, width / 2], [0.0, fy, height / 2], [0.0, 0.0, 1.0]]
