"""Measuring the tray camera's set-up (field of view, how far it leans, which way) from photos of a
printed chessboard in the tray, so that nobody has to guess the numbers `--camera-fov`,
`--camera-tilt` and `--camera-toward` take.

Why: a described camera is what lets the reader refuse dice seen too steeply and, with the lean
look, read the D20 (reader.vision.viewing; models/reader.md, "Session 35"). Described wrong, it does
harm: a D20 photographed 45 degrees off vertical but described as seen from above was read as the
face looking at the camera 23 times of 337, and the lean look refused a fifth to a half of real flat
dice. A field of view from a spec sheet is often the diagonal one, and a tilt guessed by eye is
easily 10 degrees off. A chessboard measures both.

How: the chessboard lying flat in the tray gives the tray's plane as the camera sees it: the angle
between its normal and the camera's axis is the tilt, and where the normal points in the picture is
the way the camera leans. That needs the focal length, which one photo of a board seen square on
cannot give (a board twice as far in a lens twice as long looks the same); photos of the board
held tilted 20-40 degrees give it (Zhang's calibration, cv2.calibrateCamera, with the principal
point at the picture's middle, square pixels and no lens distortion: a tray camera's field of view
is all the reader asks for). Or the field of view is given, and the flat photo alone gives the
tilt.

Pure: corners in, numbers out; finding the corners in an image is OpenCV's (find_board). The
command around it is reader.commands.camera.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from reader.errors import DiceReaderError
from reader.vision.viewing import CameraView, focal_of, hfov_of

# A field of view measured less surely than this (one standard deviation, degrees) is not given:
# the photos held the board too square to the camera to tell the focal length.
MAX_FOV_SD = 1.5
# Under this tilt (degrees) which way the camera leans means nothing, and is not said.
LEVEL_BELOW = 1.0
# Mean distance (pixels) between the board's corners as found in a photo and as the measured camera
# puts them, over which the measure is not trusted: a board that is not flat, corners found wrong, a strong
# wide-angle lens (whose distortion this model leaves out).
MAX_REPROJECTION_PX = 2.0


@dataclass(frozen=True)
class Board:
    """A printed chessboard, counted by its inner corners (where four squares meet): a board of
    8 x 6 squares has 7 x 5."""

    columns: int = 7
    rows: int = 5

    def __post_init__(self) -> None:
        if not (2 <= self.columns <= 40 and 2 <= self.rows <= 40) or self.columns == self.rows:
            raise DiceReaderError(f"chessboard {self.columns}x{self.rows} inner corners: give two different "
                                  "counts, 2-40 each (a square board's corners can be found turned a quarter)")

    @classmethod
    def parse(cls, text: str) -> "Board":
        """From "7x5" (inner corners across x down)."""
        try:
            cols, rows = (int(v) for v in text.lower().split("x"))
        except ValueError:
            raise DiceReaderError(f"chessboard {text!r}: give its inner corners as COLUMNSxROWS, e.g. 7x5") from None
        return cls(cols, rows)

    def points(self) -> np.ndarray:
        """The inner corners on the board's plane (z = 0), a square's side as the unit, in the
        order cv2.findChessboardCorners gives them (row by row)."""
        grid = np.mgrid[0:self.columns, 0:self.rows].T.reshape(-1, 2)
        return np.hstack([grid, np.zeros((len(grid), 1))]).astype(np.float32)

    def image(self, square_px: int = 236, margin_px: int | None = None) -> np.ndarray:
        """The board to print (grey, white margin): 236 px squares are 20 mm at 300 dpi, and a 7x5
        board (8 x 6 squares) is then 16 x 12 cm, small enough for a dice tray."""
        margin = square_px if margin_px is None else margin_px
        cols, rows = self.columns + 1, self.rows + 1
        img = np.full((rows * square_px + 2 * margin, cols * square_px + 2 * margin), 255, np.uint8)
        for r in range(rows):
            for c in range(cols):
                if (r + c) % 2 == 0:
                    y, x = margin + r * square_px, margin + c * square_px
                    img[y:y + square_px, x:x + square_px] = 0
        return img


@dataclass(frozen=True)
class BoardView:
    """The board's inner corners found in one photo (pixels, N x 2), and the photo's size."""

    name: str
    corners: np.ndarray
    size: tuple[int, int]  # width, height


@dataclass(frozen=True)
class CameraSetup:
    """What was measured: the set-up, how surely, and from what."""

    hfov: float               # horizontal field of view, degrees
    tilt: float               # degrees off straight down
    toward: float             # which way it leans, degrees clockwise from the picture's top
    hfov_sd: float | None     # one standard deviation of hfov (None: the field of view was given)
    reprojection_px: float    # mean corner error of the measured camera, pixels
    views: int                # photos used

    def view(self, lean: bool = False) -> CameraView:
        """As the options describe it (tilt_and_toward already says 0 for the way a level camera leans)."""
        return CameraView(round(self.hfov, 1), round(self.tilt, 1), lean, round(self.toward) % 360)

    def flags(self) -> str:
        """The options that describe this camera to read, watch and serve."""
        v = self.view()
        out = f"--camera-fov {v.hfov:g} --camera-tilt {v.tilt:g}"
        return out + (f" --camera-toward {v.toward:g}" if v.toward else "")

    def to_json(self) -> dict:
        return {"hfov": round(self.hfov, 2), "tilt": round(self.tilt, 2), "toward": round(self.toward, 1) % 360.0,
                "hfov_sd": None if self.hfov_sd is None else round(self.hfov_sd, 2),
                "reprojection_px": round(self.reprojection_px, 3), "views": self.views, "flags": self.flags()}


def find_board(image: np.ndarray, board: Board) -> np.ndarray | None:
    """The board's inner corners in `image` (N x 2 pixels, row by row), or None where it is not
    found whole. The sector-based finder (findChessboardCornersSB) copes with uneven light and
    blur better than the older one, and places corners to a fraction of a pixel."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    flags = cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY
    found, corners = cv2.findChessboardCornersSB(gray, (board.columns, board.rows), flags=flags)
    if not found:
        return None
    return corners.reshape(-1, 2).astype(np.float32)


def _matrix(focal: float, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    return np.array([[focal, 0, w / 2], [0, focal, h / 2], [0, 0, 1]], np.float64)


def _calibrate(views: list[BoardView], board: Board) -> tuple[float, float]:
    """The focal length (pixels) and its standard deviation (inf where no focal length fits), from
    every view."""
    size = views[0].size
    obj = [board.points() for _ in views]
    img = [v.corners.reshape(-1, 1, 2) for v in views]
    flags = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
             | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K1 | cv2.CALIB_FIX_K2 | cv2.CALIB_FIX_K3)
    guess = _matrix(focal_of(60.0, size[0]), size)
    try:
        _, k, _, _, _, sd, _, _ = cv2.calibrateCameraExtended(obj, img, size, guess, np.zeros(5), flags=flags)
    except cv2.error as exc:
        raise DiceReaderError(f"cannot measure the camera from these photos: {str(exc).strip().splitlines()[-1]}") from None
    # with the aspect ratio fixed, the x focal length follows the y one, whose deviation is reported
    focal, focal_sd = float(k[0, 0]), float(max(sd[0, 0], sd[1, 0]))
    if not math.isfinite(focal) or focal <= 0 or not math.isfinite(focal_sd):
        return max(focal, 1.0) if math.isfinite(focal) else 1.0, math.inf
    return focal, focal_sd


def _pose(view: BoardView, board: Board, k: np.ndarray) -> tuple[np.ndarray, float]:
    """The board's rotation into the camera's frame, and the mean corner error (pixels)."""
    obj = board.points()
    ok, rvec, tvec = cv2.solvePnP(obj, view.corners.reshape(-1, 1, 2), k, None, flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        raise DiceReaderError(f"{view.name}: the board's pose could not be solved")
    back, _ = cv2.projectPoints(obj, rvec, tvec, k, None)
    error = float(np.mean(np.linalg.norm(back.reshape(-1, 2) - view.corners, axis=1)))
    return cv2.Rodrigues(rvec)[0], error


def tilt_and_toward(rotation: np.ndarray) -> tuple[float, float]:
    """From the flat board's rotation into the camera's frame (x right, y down the picture, z along
    the axis): the tilt (degrees between the tray's up and the camera's looking back along its
    axis) and the way it leans (degrees clockwise from the picture's top: CameraView's `toward`,
    whose up in the camera's frame is (sin t sin a, -sin t cos a, -cos t))."""
    up = rotation[:, 2]
    if up[2] > 0:  # the board's normal as found may point into the table: the tray's up faces the camera
        up = -up
    tilt = math.degrees(math.acos(max(-1.0, min(1.0, -float(up[2])))))
    toward = math.degrees(math.atan2(float(up[0]), -float(up[1]))) % 360.0 if tilt >= LEVEL_BELOW else 0.0
    return tilt, toward


def measure(flat: BoardView, held: list[BoardView] = (), board: Board = Board(),
            hfov: float | None = None) -> CameraSetup:
    """The camera's set-up from the board lying flat in the tray (`flat`) and, unless the field of
    view `hfov` is given, photos of it held tilted (`held`), all taken by that camera unmoved."""
    views = [flat, *held]
    sizes = {v.size for v in views}
    if len(sizes) > 1:
        raise DiceReaderError(f"the photos are of different sizes ({', '.join(f'{w}x{h}' for w, h in sorted(sizes))}): "
                              "take them all with the tray camera at the size it reads at")
    if hfov is not None:
        if not 10.0 <= hfov <= 170.0:
            raise DiceReaderError(f"field of view {hfov:g} degrees: give 10-170")
        focal, hfov_sd = focal_of(hfov, flat.size[0]), None
    else:
        focal, focal_sd = _calibrate(views, board)
        w2 = flat.size[0] / 2
        hfov_sd = math.degrees(2 * w2 / (focal * focal + w2 * w2) * focal_sd)
        if not hfov_sd <= MAX_FOV_SD:
            said = f" (measured {hfov_of(focal, flat.size[0]):.0f} +- {hfov_sd:.0f} degrees)" if math.isfinite(hfov_sd) else ""
            raise DiceReaderError(
                f"cannot tell the field of view from {'this photo' if len(views) == 1 else 'these photos'}{said}: "
                "a board seen square on looks the same to a wide lens near as to a long lens far. "
                "Add 3 or more photos of the board held tilted 20-40 degrees, each a different way, "
                "or give the field of view (--fov)")
        hfov = hfov_of(focal, flat.size[0])
    k = _matrix(focal, flat.size)
    rotation, error = _pose(flat, board, k)
    errors = [error] + [_pose(v, board, k)[1] for v in held]
    worst = int(np.argmax(errors))
    if errors[worst] > MAX_REPROJECTION_PX:
        raise DiceReaderError(
            f"{views[worst].name}: the measured camera misses the board's corners by {errors[worst]:.1f} pixels on "
            "average: is the printed board flat (not curled), all of it in the photo, and the lens not a fisheye?")
    mean_error = float(np.mean(errors))
    tilt, toward = tilt_and_toward(rotation)
    if tilt > 80.0:
        raise DiceReaderError(f"the board lying in the tray is seen {tilt:.0f} degrees off straight down: "
                              "a tray camera must look down into the tray (at most 80 degrees off)")
    return CameraSetup(hfov, tilt, toward, hfov_sd, mean_error, len(views))
