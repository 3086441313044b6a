"""`dice-reader camera`: measure the tray camera's set-up from photos of a printed chessboard, and
print the options that describe it to read, watch and serve (reader.vision.camera_setup says why).

The photos come as files (the first one the board lying flat in the tray, the rest the board held
tilted) or from the tray camera itself (`--source camera:0`): the first frame the board is found in
is taken as lying flat, and then the board held tilted a few ways in front of the camera.
"""

from __future__ import annotations

import json
import sys
import time

from reader.errors import DiceReaderError
from reader.imagefile import ImageError, load_image

HELP = (
    "Measure the tray camera (field of view, how far it leans off straight down, which way) from "
    "photos of a printed chessboard: the first lying flat in the tray, the rest held tilted 20-40 "
    "degrees, each a different way (or give --fov and the flat one alone does). Prints the "
    "--camera-fov / --camera-tilt / --camera-toward options for read, watch and serve. "
    "--write-board OUT.png writes a board to print."
)

# A frame from a live source is kept as another view when the board's outer corners have moved by
# this share of the board's size from every view kept: near-repeats add no angle to measure by.
NEW_VIEW_SHARE = 0.15


def add_arguments(p) -> None:
    p.add_argument("images", nargs="*", metavar="IMAGE",
                   help="photos by the tray camera: the board lying flat in the tray first, then held tilted")
    p.add_argument("--source", metavar="SPEC", default=None,
                   help="take the photos from this source instead (camera:0, /dev/video2, rtsp://..., "
                        "folder:DIR): the first frame the board is found in is the flat one")
    p.add_argument("--board", default="7x5", metavar="COLSxROWS",
                   help="the board's inner corners, where four squares meet (default 7x5: 8 x 6 squares)")
    p.add_argument("--fov", type=float, default=None, metavar="DEG",
                   help="the camera's horizontal field of view, if known: then the flat photo alone gives the tilt")
    p.add_argument("--views", type=int, default=6, metavar="N",
                   help="with --source: stop after this many photos of the board (default 6)")
    p.add_argument("--seconds", type=float, default=60.0, metavar="S",
                   help="with --source: stop looking after this long (default 60)")
    p.add_argument("--json", action="store_true", help="print the measure as JSON")
    p.add_argument("--write-board", metavar="OUT.png", default=None,
                   help="write the board to print (20 mm squares at 300 dpi; print at 100%%) and stop")


def _write_board(board, out: str) -> int:
    import cv2

    try:
        ok = cv2.imwrite(out, board.image())
    except cv2.error as exc:
        raise DiceReaderError(f"cannot write the board to {out}: {str(exc).strip().splitlines()[-1]}") from None
    if not ok:
        raise DiceReaderError(f"cannot write the board to {out} (give a .png path in a folder that exists)")
    cols, rows = board.columns + 1, board.rows + 1
    print(f"wrote {out}: {cols} x {rows} squares of 20 mm ({board.columns}x{board.rows} inner corners); "
          "print it at 100% and lay it flat in the tray")
    return 0


def _from_files(paths: list[str], board, say) -> list:
    from reader.vision.camera_setup import BoardView, find_board

    views = []
    for n, path in enumerate(paths):
        try:
            image = load_image(path)
        except ImageError as exc:
            if n == 0:
                raise DiceReaderError(f"{path}: {exc}") from None
            say(f"{path}: {exc}; left out")
            continue
        corners = find_board(image, board)
        if corners is None:
            if n == 0:
                raise DiceReaderError(f"{path}: no {board.columns}x{board.rows} chessboard found whole in the photo "
                                      "of the board lying flat (is all of it in the picture, and --board its inner "
                                      "corners?)")
            say(f"{path}: no chessboard found whole; left out")
            continue
        views.append(BoardView(path, corners, (image.shape[1], image.shape[0])))
        say(f"{path}: board found{' (lying flat)' if n == 0 else ''}")
    return views


def _outline(corners, board):
    """The board's four outer corners, and its size in pixels."""
    import numpy as np

    c = corners.reshape(board.rows, board.columns, 2)
    quad = np.array([c[0, 0], c[0, -1], c[-1, -1], c[-1, 0]])
    return quad, float(np.linalg.norm(quad[0] - quad[2]))


def _from_source(spec: str, board, views_wanted: int, seconds: float, say) -> list:
    import numpy as np

    from reader.sources import Frame, SourceBack, SourceLost, open_source
    from reader.vision.camera_setup import BoardView, find_board

    views, kept = [], []
    t_end = time.monotonic() + seconds
    say(f"looking for the board in {spec}: lay it flat in the tray first, then hold it tilted a few ways")
    with open_source(spec) as source:
        while len(views) < views_wanted and time.monotonic() < t_end:
            item = source.read()
            if item is None:
                break
            if isinstance(item, SourceLost):
                say(f"source lost: {item.reason}")
                continue
            if isinstance(item, SourceBack) or not isinstance(item, Frame):
                continue
            corners = find_board(item.bgr, board)
            if corners is None:
                continue
            quad, size = _outline(corners, board)
            if any(np.max(np.linalg.norm(quad - q, axis=1)) < NEW_VIEW_SHARE * size for q in kept):
                continue
            kept.append(quad)
            name = item.origin or f"frame {item.index}"
            views.append(BoardView(name, corners, (item.bgr.shape[1], item.bgr.shape[0])))
            say(f"{name}: board found{' (taken as lying flat)' if len(views) == 1 else ''}")
    if not views:
        raise DiceReaderError(f"no {board.columns}x{board.rows} chessboard found whole in {spec}"
                              f"{f' within {seconds:g} s' if seconds else ''}")
    return views


def run(args) -> int:
    from reader.vision.camera_setup import Board, measure
    from reader.vision.viewing import side_of

    board = Board.parse(args.board)
    if args.write_board:
        return _write_board(board, args.write_board)
    if bool(args.images) == bool(args.source):
        raise DiceReaderError("give the photos (the board lying flat first) or --source, not both and not neither")
    say = (lambda msg: print(msg, file=sys.stderr)) if args.json else print
    if args.source:
        views = _from_source(args.source, board, max(1, args.views), args.seconds, say)
    else:
        views = _from_files(args.images, board, say)
    setup = measure(views[0], views[1:], board, args.fov)
    if args.json:
        print(json.dumps(setup.to_json()))
        return 0
    fov = f"{setup.hfov:.1f} deg wide" + (f" (+- {setup.hfov_sd:.1f})" if setup.hfov_sd is not None else " (as given)")
    lean = "straight down" if setup.view().tilt < 1.0 else \
        f"tilted {setup.tilt:.1f} deg off straight down, toward {side_of(setup.toward)} of the picture"
    print(f"camera: {fov}, {lean}; the board's corners within {setup.reprojection_px:.2f} px "
          f"({setup.views} photo{'s' if setup.views > 1 else ''})")
    print(f"describe it to read, watch and serve with: {setup.flags()}")
    return 0
