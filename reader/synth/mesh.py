"""Rounded-edge triangle meshes of the dice solids, with per-face label coordinates.

Real dice have rounded edges and corners (pip D6 very much so). The mesh is the Minkowski sum
of the solid shrunk toward its centre and a small ball: flat faces (which carry the labels),
cylindrical strips along the edges and spherical patches at the corners, each with exact
normals, so the highlights roll over the edges the way they do on plastic dice.

Pure numpy; the renderer uploads the arrays.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from reader.synth.geometry import Solid, solid

# Half the side of a face's label tile, in units of the face's inradius.
TILE_SCALE = {"d4": 2.0, "d6": 1.0, "d8": 1.0, "d10": 1.0, "d12": 1.0, "d20": 1.0}


def atlas_grid(n_faces: int) -> tuple[int, int]:
    cols = int(np.ceil(np.sqrt(n_faces)))
    rows = int(np.ceil(n_faces / cols))
    return cols, rows


def face_frame(s: Solid, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(centre, right, up, half tile size) of face i's label tile."""
    c, n, up = s.centers[i], s.normals[i], s.ups[i]
    right = np.cross(up, n)
    poly = s.vertices[list(s.faces[i])]
    # inradius of the face polygon about its centre: distance to the nearest edge line
    d = []
    for a, b in zip(poly, np.roll(poly, -1, axis=0)):
        e = (b - a) / np.linalg.norm(b - a)
        w = c - a
        d.append(np.linalg.norm(w - (w @ e) * e))
    return c, right, up, float(min(d)) * TILE_SCALE[s.name]


def _slerp(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
    v = a[None, :] * (1 - t)[:, None] + b[None, :] * t[:, None]
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@lru_cache(maxsize=64)
def rounded_mesh(name: str, bevel: float, segments: int = 4) -> np.ndarray:
    """Interleaved float32 rows (x y z, nx ny nz, u v, onface) for GL_TRIANGLES.

    `bevel` is the corner radius as a fraction of the inradius (0.02 sharp .. 0.25 very round).
    u, v are atlas coordinates of the face's label tile; onface is 1 on flat faces, 0 on bevels.
    """
    s = solid(name)
    k = 1.0 - bevel
    cols, rows = atlas_grid(len(s.faces))
    tris: list[tuple] = []  # each: 3 x (pos, normal, uv, onface)

    def add(p, n, uv=(-1.0, -1.0), on=0.0):
        tris.append((*p, *n, *uv, on))

    for i, f in enumerate(s.faces):
        n = s.normals[i]
        c, right, up, half = face_frame(s, i)
        col, row = i % cols, i // cols
        poly = s.vertices[list(f)] * k + bevel * n
        cen = poly.mean(axis=0)

        def uv(p):
            x = (p - c) @ right / half
            y = (p - c) @ up / half
            return ((col + (x + 1) / 2) / cols, (row + (1 - (y + 1) / 2)) / rows)

        for a, b in zip(poly, np.roll(poly, -1, axis=0)):
            for p in (cen, a, b):
                add(p, n, uv(p), 1.0)

    t = np.linspace(0, 1, segments + 1)
    # edge strips
    face_sets = [set(f) for f in s.faces]
    for i in range(len(s.faces)):
        for j in range(i + 1, len(s.faces)):
            shared = list(face_sets[i] & face_sets[j])
            if len(shared) != 2:
                continue
            a, b = s.vertices[shared[0]] * k, s.vertices[shared[1]] * k
            dirs = _slerp(s.normals[i], s.normals[j], t)
            for m in range(segments):
                d0, d1 = dirs[m], dirs[m + 1]
                pa0, pa1 = a + bevel * d0, a + bevel * d1
                pb0, pb1 = b + bevel * d0, b + bevel * d1
                for p, nn in ((pa0, d0), (pb0, d0), (pb1, d1), (pa0, d0), (pb1, d1), (pa1, d1)):
                    add(p, nn)
    # corner patches
    for vi, v in enumerate(s.vertices):
        adj = [i for i, f in enumerate(s.faces) if vi in f]
        axis = v / np.linalg.norm(v)
        ref = s.normals[adj[0]] - (s.normals[adj[0]] @ axis) * axis
        ref /= np.linalg.norm(ref)
        ref2 = np.cross(axis, ref)
        adj.sort(key=lambda i: np.arctan2(s.normals[i] @ ref2, s.normals[i] @ ref))
        centre_dir = np.sum(s.normals[adj], axis=0)
        centre_dir /= np.linalg.norm(centre_dir)
        vk = v * k
        for q in range(len(adj)):
            n0, n1 = s.normals[adj[q]], s.normals[adj[(q + 1) % len(adj)]]
            arc = _slerp(n0, n1, t)
            for m in range(segments):
                for d in (centre_dir, arc[m], arc[m + 1]):
                    add(vk + bevel * d, d)
    out = np.array(tris, dtype=np.float32)
    out.setflags(write=False)
    return out


def silhouette_points(name: str, bevel: float) -> np.ndarray:
    """Points whose projections bound the die's image (corner sphere extremes), inradius 1."""
    s = solid(name)
    k = 1.0 - bevel
    dirs = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1],
                     *(np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) / 3 ** 0.5)])
    pts = (s.vertices[:, None, :] * k + bevel * dirs[None, :, :]).reshape(-1, 3)
    return pts
