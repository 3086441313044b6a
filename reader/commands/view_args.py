"""The camera set-up options shared by the commands that read tray frames (read, watch, serve).

A fixed tray camera's field of view and lean tell how steeply it sees each die
(reader.vision.viewing); without them every die is read as if seen from straight above.
"""

from __future__ import annotations

from reader.errors import DiceReaderError

def side_or_degrees(text: str) -> float:
    """--camera-toward's value: a side of the picture or degrees clockwise from the top."""
    import argparse

    from reader.vision.viewing import SIDES

    word = text.strip().lower()
    if word in SIDES:
        return SIDES[word]
    try:
        return float(word)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give top, right, bottom, left or degrees clockwise "
                                         "from the top") from None


def add_arguments(p) -> None:
    p.add_argument("--camera-fov", type=float, metavar="DEG", default=None,
                   help="the camera's horizontal field of view in degrees: with it, dice seen too "
                        "steeply (near the corners of a wide view) are refused instead of misread")
    p.add_argument("--camera-tilt", type=float, metavar="DEG", default=0.0,
                   help="how far the camera leans off straight down, toward the top of the picture unless "
                        "--camera-toward says otherwise (default 0: straight down); needs --camera-fov. `dice-reader camera` measures both "
                        "from photos of a printed chessboard in the tray")
    p.add_argument("--camera-toward", type=side_or_degrees, metavar="SIDE", default=0.0,
                   help="which way the camera leans: top (default: the picture's top is the tray's far side), "
                        "right, bottom, left, or degrees clockwise from the top; needs --camera-tilt")
    p.add_argument("--lean-look", action="store_true",
                   help="with --camera-fov: a read die that the lean look (models/reader_lean.onnx) finds leaning "
                        "is called cocked, roll again, and a die the reader took for cocked that it finds flat "
                        "is read; and the seen look (models/reader_seen.onnx, when present) reads the numeral dice "
                        "seen obliquely from the camera's side; and the numeral dice are cut where the camera sees "
                        "their top face, the D20 read by models/reader_near_d20.onnx (reader v18). On the renders "
                        "they keep cocked dice from a value and read D20 the steep limits refuse; on real trays the "
                        "lean look (v2) refuses some flat ones (described straight down, one set's 496 right readings "
                        "become 490, a webcam's 257 become 232), and a camera described wrong misreads a D20 as the face "
                        "looking at the camera (models/reader_lean.md, models/reader_seen.md, models/reader.md)")


def add_guess_argument(p, rolls: bool = False) -> None:
    """--guess-camera: for the commands that read independent frames (read, evaluate, bench), a
    frame's set-up guessed from its own dice where it leaves a die refused; with `rolls` (watch, serve),
    from the dice of every roll so far (reader.guessed_camera), each roll's manifest recording the set-up
    it was read with."""
    if rolls:
        p.add_argument("--guess-camera", action="store_true",
                       help="no camera described: guess its set-up from the dice of every roll so far (the one "
                            "under which the lean look finds them likeliest to lie flat) and read each roll with "
                            "it and the lean look once three dice have been seen; the roll's recording keeps the "
                            "set-up, so replay reads it again so. A camera lost starts the guess again. A measured "
                            "set-up (`dice-reader camera`) is better")
        return
    p.add_argument("--guess-camera", action="store_true",
                   help="no camera described: where a frame read as if seen from above leaves a die refused, "
                        "guess its set-up from its dice (three or more: the one under which the lean look finds "
                        "them likeliest to lie flat) and read it again with it and the lean look "
                        "(reader.vision.camera_guess), a D6 keeping a value only where both readings give it "
                        "(reader.vision.reread). On the installed camera's 1280x720 renders 769 of 1,444 dice "
                        "read right become 904 (914 with each frame's own camera); on real trays no more are "
                        "read and a few more are refused (nell and bartek with real D20 pasted in: 915 -> 892). "
                        "A measured set-up (`dice-reader camera`) is better")


def guess_from_args(args) -> bool:
    """Whether to guess the camera; a described one leaves nothing to guess."""
    guess = getattr(args, "guess_camera", False)
    if guess and args.camera_fov is not None:
        raise DiceReaderError("give --camera-fov or --guess-camera, not both")
    return guess


def view_from_args(args):
    """A CameraView from the options, or None when no field of view was given."""
    from reader.vision.viewing import CameraView

    lean = getattr(args, "lean_look", False)
    toward = getattr(args, "camera_toward", 0.0)
    if toward and not args.camera_tilt:
        raise DiceReaderError("--camera-toward needs --camera-tilt (how far the camera leans)")
    if args.camera_fov is None:
        if args.camera_tilt:
            raise DiceReaderError("--camera-tilt needs --camera-fov (the camera's horizontal field of view)")
        if lean:
            raise DiceReaderError("--lean-look needs --camera-fov: it reads a die by where the camera sees it from")
        return None
    return CameraView(args.camera_fov, args.camera_tilt, lean, toward)


def cocked_note(args, view) -> str | None:
    """What watch and serve tell the table, before the first roll, where the camera (`view`) is not
    described with the lean look and not guessed from the rolls (`args`: their options); None otherwise.

    Why: a die cocked against the tray's wall or another die can show a face squarely to the camera
    and pass for flat, and a value given to it names a card that the rules say must be rolled for
    again. A banish roll is one die and a first-player roll two, so the lean guard, which needs three
    valued dice in a frame (reader.vision.lean_guard), does not see it. Measured on rendered rolls of
    1-3 dice (24 cameras 0-30 degrees off vertical, 14 rolls each, 635 dice, 112 of them cocked;
    models/reader.md, "Session 74"): with no camera described 249 read right, 7 wrong, 14 cocked dice
    given a value; each camera described without the lean look 239 / 3 / 9; described with it 332 / 1 /
    1. With --guess-camera the loop guesses the camera from the rolls' dice and asks the lean look
    under it (those rolls 311 / 3 / 5): a table that chose it is not told again."""
    if getattr(args, "guess_camera", False) or (view is not None and view.lean):
        return None
    if view is None:
        return ("note: the tray camera is not described, so each die is read as if seen from straight above, "
                "and a die cocked against the wall or another die can pass for flat and be given a value. "
                "Measure the camera once (`dice-reader camera`) and add its --camera-fov and --camera-tilt "
                "with --lean-look: on rendered rolls of 1-3 dice that took the cocked dice given a value from "
                "14 to 1 of 112, the wrong values from 7 to 1, and the dice read right from 249 to 332 of 635")
    return ("note: without --lean-look a die cocked against the wall or another die can pass for flat and be "
            "given a value: on rendered rolls of 1-3 dice with the camera described, 9 of 112 cocked dice "
            "were given a value without it, 1 with it (and the dice read right 239 and 332 of 635)")


def d20_note(args, view) -> str | None:
    """What watch and serve tell the table, before the first roll, when a banish (`args`, their
    options) is rolled with a D20 and the camera (`view`) is not described with the lean look; None
    otherwise.

    Why: without them the reader seldom gives a real D20 a value (reader v21, its own D20 look:
    crops-fickett's D20 photographed from above 5 of 2,720, type-lurig's faces 33 of 263, none wrong;
    the rest would be "roll again"), and described straight
    down with the lean look it reads about a fifth (256 of 1,360 of fickett's blue D20, none wrong;
    models/reader.md, "Session 35"). The rules never need a D20: a memory of at most 10 cards can
    be banished with a D10, which the reader reads far more surely, and without the lean look,
    which still refuses some real flat dice (models/reader_lean.md, "Session 37")."""
    die = getattr(args, "die", None) if getattr(args, "banish", False) else None
    if (die or "").lower() != "d20" or (view is not None and view.lean):
        return None
    if getattr(args, "guess_camera", False):
        return ("note: the camera is guessed from the rolls' dice: until three dice have been seen, a D20 is "
                "seldom read, and each unread roll is rolled again; `dice-reader camera` measures the set-up")
    return ("note: a D20 is seldom read without the tray camera described (--camera-fov, --camera-tilt, "
            "--lean-look; `dice-reader camera` measures it), and each unread roll is rolled again; "
            "a D10 or smaller does for any memory of up to 10 cards, and is read far more often without them")


def start_notes(args, view) -> list[str]:
    """The notes watch and serve print before the first roll (cocked_note, d20_note), those that apply."""
    return [n for n in (cocked_note(args, view), d20_note(args, view)) if n]
