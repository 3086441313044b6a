"""Photos of a printed chessboard as a known camera takes them, for the camera measure's tests
(reader.vision.camera_setup): a pinhole camera `hfov` wide, `tilt` degrees off straight down toward
`toward` (CameraView's meaning), looking at the board lying on the tray or held tilted."""

from __future__ import annotations

import math

import cv2
import numpy as np

from reader.synth.geometry import rot_axis, rot_between
from reader.vision.camera_setup import Board
from reader.vision.viewing import focal_of

SQUARE_PX = 40  # of the board's raster: the board is warped from it


def camera_rotation(tilt: float, toward: float) -> np.ndarray:
    """World (z up, the board at z = 0) to camera (x right, y down the picture, z along the axis):
    straight down with the picture's top toward world +y, then leant `tilt` degrees toward `toward`
    with no spin about the axis, so the world's up in the camera's frame is CameraView's."""
    down = np.array([[1.0, 0, 0], [0, -1.0, 0], [0, 0, -1.0]])  # world x right, world y up the picture
    t, a = math.radians(tilt), math.radians(toward)
    up_cam = np.array([math.sin(t) * math.sin(a), -math.sin(t) * math.cos(a), -math.cos(t)])
    return rot_between([0, 0, -1.0], up_cam) @ down


def photo(board: Board, hfov: float, tilt: float, toward: float, size=(1280, 720), distance: float = 14.0,
          board_turn: tuple[float, float, float] = (0.0, 0.0, 0.0), seed: int = 0) -> np.ndarray:
    """The board (its side of a square is the unit) seen by the camera; `board_turn`: (degrees about
    the board's x, about its y, about the axis) when it is held tilted instead of lying flat; the
    camera looks at the board's middle from `distance` squares away."""
    w, h = size
    f = focal_of(hfov, w)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    r_cam = camera_rotation(tilt, toward)
    rx, ry, rz = (math.radians(v) for v in board_turn)
    r_board = rot_axis([0, 0, 1], rz) @ rot_axis([0, 1, 0], ry) @ rot_axis([1, 0, 0], rx)
    middle = np.array([(board.columns - 1) / 2, (board.rows - 1) / 2, 0.0])
    axis_world = r_cam.T @ np.array([0, 0, 1.0])
    centre = -distance * axis_world  # the camera, looking at the world's origin
    # board point p (board frame, z = 0) -> world: r_board (p - middle)
    r = r_cam @ r_board
    t = r_cam @ (-r_board @ middle - centre)
    h_board = k @ np.column_stack([r[:, 0], r[:, 1], t])
    # raster pixel (u, v) -> board point: inner corner (0, 0) is at one square plus the margin
    raster = board.image(SQUARE_PX)
    to_board = np.array([[1 / SQUARE_PX, 0, -2.0], [0, 1 / SQUARE_PX, -2.0], [0, 0, 1]])
    table = (120, 110, 95)
    rng = np.random.default_rng(seed)
    img = cv2.warpPerspective(cv2.cvtColor(raster, cv2.COLOR_GRAY2BGR), h_board @ to_board, (w, h),
                              flags=cv2.INTER_AREA, borderValue=table)
    img = cv2.GaussianBlur(img, (0, 0), 0.7)
    noisy = img.astype(np.float32) + rng.normal(0, 2.0, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def through_lens(img: np.ndarray, hfov: float, k1: float) -> np.ndarray:
    """`img` (a pinhole camera's, `hfov` wide) as a lens with radial distortion k1 takes it: a
    webcam's wide lens bends straight lines outward (barrel, k1 < 0), which the measure leaves out."""
    h, w = img.shape[:2]
    f = focal_of(hfov, w)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1.0]])
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pts = np.stack([xs.ravel(), ys.ravel()], 1).reshape(-1, 1, 2)
    src = cv2.undistortPoints(pts, k, np.array([k1, 0, 0, 0, 0.0]), P=k).reshape(h, w, 2)
    return cv2.remap(img, src[..., 0], src[..., 1], cv2.INTER_LINEAR, borderValue=(120, 110, 95))
