"""Train the second look at a numeral die's top face (reader.vision.topface).

    python -m models.train.train_top_face --minutes 70 --init work/reader.pt --out work/reader_top.pt \
        --synth work/synth/crops --synth work/synth/numerals

The network is the reader's own (models.train.nets.DiceReaderNet), started from the reader's
weights, and taught the face alone on cuts of the die's middle: a square of TOP_PER_SIDE x the
die's box side, turned, scaled and moved as the detector's boxes are, with the reader's photometric
noise. Its dice are the valued flat dice of the real trays (training four-fifths) and the renders
(with --lurig-faces, type-lurig's D8, D10 and D20 seen from above too, their faces read by eye),
drawn by type so that the D20 (read worst) is a third of every batch. The calibration dice of the
reader (the same 8%, chosen by their pixels) are never trained on, so one calibration serves both.
With --cut DIE=SIDE a die type is cut to another side; OUT.meta.json says so beside the weights,
and `export top-face` puts it in the network's metadata, so the reader cuts it that way too.
With --dice the look is taught only those types (drawn in TYPE_SHARE's proportions), and says so
the same way. A D6's pips get a look of their own (--dice d6 --cut d6=1.15: the whole die, cut
close), because the numeral dice' look, taught a D6 a tenth of the time, read pips worse than the
whole look did (models/reader.md). With --hold W a look taught on from a committed one is also held
to that one's face probabilities on every draw (held_loss), so it learns new digits without
drifting where it was right (models/reader.md, "Session 63"). With --steady W every draw is cut
twice, a frame pixel apart, and the two readings pulled together (steady_loss), so that a reading
holds when the frame moves a pixel (models/reader.md, "Session 70"). With --faults P a share P of
the draws is seen through a camera fault (augment.camera_fault), and with --hold the frozen look is
asked on the same cut without it, so the look learns to read through the fault what the release
reads without it (models/reader.md, "Session 79").
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np
import torch

from models.train.augment import SMALL_CAMERA_QUALITY, camera_fault, defocus, photometric, recolour, small_camera
from models.train.batches import batch_stream, cpu_state, pick_device, to_input
from models.train.nets import TYPES, DiceReaderNet
from models.train.onnx_weights import start_from
from models.train.die_values import die_value
from models.train.real_pack import read_pack
from models.train.reader_data import (BOX_IN_CTX, CTX, cut, lurig_patches, real_tray_patches, synth_crops_of,
                                      training_frame_patches)
from models.train.schedule import cosine_lr
from models.train.train_reader import face_log_probs, faces_had, is_calibration, masked_face_loss, source_group
from reader.vision.crops import CROP_PER_SIDE

TOP_PER_SIDE = 0.7  # cut side / die box side: the top face of a D20 seen up to 35 degrees off vertical
# The seen look's crops are turned at most this far either way: far enough that a few degrees off
# in the camera's description cost nothing, not so far that the foot's side is lost.
SEEN_TURN = 8.0
TYPE_SHARE = {"d6": 0.10, "d8": 0.15, "d10": 0.20, "d12": 0.20, "d20": 0.35}
# Of a type's draws, when real dice of that type exist (bartek's D6, D8, D10; lurig's D8, D10, D20).
# The D20 less: its real dice are 11 faces of 7 dice, and the renders hold every face of many.
REAL_SHARE = {"d20": 0.2}
REAL_SHARE_DEFAULT = 0.3
# --hold: the temperature both looks' face logits are softened by before they are compared (held_loss)
HOLD_TEMPERATURE = 2.0
# --steady: the frame's die sizes (box side, pixels) one frame pixel is drawn for, and the spread of the
# box's size between two detections of one die moved a pixel (log-normal sd)
STEADY_DIE_PX = (24.0, 72.0)
STEADY_SCALE_SD = 0.03


def top_crop(patch: np.ndarray, rng: np.random.Generator | None, augment: bool = True,
             per_side: float = TOP_PER_SIDE, recolour_p: float = 0.0, blur_p: float = 0.0,
             small_p: float = 0.0, small_quality: tuple[int, int] = SMALL_CAMERA_QUALITY,
             turn: float | None = None, nudge: tuple[float, float, float] | None = None) -> np.ndarray:
    """A CROP x CROP cut of the middle of the die in a context patch (reader_data's convention);
    `recolour_p` of them in other colours (augment.recolour), `blur_p` out of focus (augment.defocus),
    `small_p` as a small die in a cheap camera's JPEG (augment.small_camera). `turn`: turned at most
    this many degrees either way (the seen look, whose crops keep the camera's foot below), else
    any way. `nudge` (dx, dy, scale): the cut moved by dx, dy patch pixels and scaled, after every
    random draw, so that a second cut from a copy of `rng` differs from the first by that alone (--steady)."""
    box_side = CTX * BOX_IN_CTX
    side = box_side * per_side
    angle, jx, jy = 0.0, 0.0, 0.0
    if augment:
        # the detector's box is 0.6-1.4x the die and a little off centre (as in reader_data.make_crop)
        side *= float(np.exp(rng.uniform(np.log(0.6), np.log(1.4))))
        angle = rng.uniform(0, 360) if turn is None else rng.uniform(-turn, turn)
        jx, jy = rng.normal(0, 0.06, 2) * box_side
    if nudge is not None:
        jx, jy, side = jx + nudge[0], jy + nudge[1], side * nudge[2]
    out = cut(patch, side, angle, jx, jy)
    if augment and recolour_p > 0 and rng.random() < recolour_p:
        out = recolour(out, rng)
    if augment and blur_p > 0 and rng.random() < blur_p:
        out = defocus(out, rng)
    strength = 1.0
    if augment and small_p > 0 and rng.random() < small_p:
        out, strength = small_camera(out, rng, per_side, small_quality), 0.5  # already a camera's
    return photometric(out, rng, strength) if augment else out


def seen_through_faults(cuts: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """--faults: the batch's cuts as the look is shown them, each with probability `share` through a
    camera fault (augment.camera_fault), the others as cut. The cuts themselves are left as they are:
    they are what --hold's frozen look is asked, so the look is pulled to read through the fault what
    the release reads without it."""
    return np.stack([camera_fault(c, rng) if rng.random() < share else c for c in cuts])


def load(synth: list[Path], lurig_boxes: Path | None = None, lurig_faces: Path | None = None,
         lurig_dice: tuple[str, ...] | None = None, dice: tuple[str, ...] = tuple(TYPE_SHARE),
         real_pack: Path | None = None, scenes: list[Path] = (), unsure: list[Path] = (),
         cocked_unsure: bool = False):
    """Valued flat dice of the types `dice`, which of them are calibration dice, and which are to be
    taught no face: every die of the `unsure` folders and, with `cocked_unsure`, every cocked die.
    The real tray dice come from ../shared, or from `real_pack` (models.train.real_pack) where it is
    absent; `scenes`: rendered tray frames whose every whole die is taken (train_reader --train-scenes)."""
    p = read_pack(real_pack, ("trays",)) if real_pack else real_tray_patches()
    if lurig_faces:
        p.extend(lurig_patches(lurig_boxes, lurig_faces, lurig_dice))
    for q in synth_crops_of(synth):
        p.extend(q)
    p.extend(training_frame_patches(scenes))
    first_unsure = len(p)
    for q in synth_crops_of(list(unsure)):
        p.extend(q)
    imgs, ti, fi, si, src = p.arrays()
    uns = (np.arange(len(ti)) >= first_unsure) | ((si == 1) if cocked_unsure else False)
    keep = (((fi >= 0) & (si != 1)) | uns) & np.isin(ti, [TYPES.index(t) for t in dice])
    imgs, ti, fi, src, uns = imgs[keep], ti[keep], fi[keep], src[keep], uns[keep]
    calib = np.array([is_calibration(im) for im in imgs], dtype=bool)
    return imgs, ti, fi, src, calib, uns


def draw_weights(ti: np.ndarray, src: np.ndarray, idx: np.ndarray, dice: tuple[str, ...] = tuple(TYPE_SHARE),
                 real_share: float | None = None, scene_share: float = 0.0,
                 lurig_share: float | None = None) -> np.ndarray:
    """Draw probabilities: each type of `dice` its TYPE_SHARE, of that a real_share (default per
    type: REAL_SHARE) from real dice where there are any; of the rendered rest, `scene_share` from
    dice cut out of rendered tray frames where there are any, the others from crops. Rendered or
    real is train_reader.source_group's say: a die of the frames is never counted as real.
    `lurig_share`: of a type's real draws, this share from type-lurig's valued dice where it has any
    (None: by their count). Why: a few hundred photos of one maker's dice by other cameras beside
    thousands of tray dice are otherwise drawn a few times in a hundred real draws."""
    w = np.zeros(len(idx))
    groups = np.array([source_group(s) for s in src[idx]])
    for t in dice:
        share = TYPE_SHARE[t]
        m = ti[idx] == TYPES.index(t)
        scenes, synth = m & (groups == "scenes"), m & (groups == "synth")
        real = m & ~scenes & ~synth
        rs = (REAL_SHARE.get(t, REAL_SHARE_DEFAULT) if real_share is None else real_share) if real.any() else 0.0
        lurig = real & (groups == "types") & (lurig_share is not None)  # source_group's name for type-lurig
        others = real & ~lurig
        if lurig.any() and others.any():
            w[lurig] = share * rs * lurig_share / lurig.sum()
            w[others] = share * rs * (1 - lurig_share) / others.sum()
        elif real.any():
            w[real] = share * rs / real.sum()
        ss = (scene_share if synth.any() else 1.0) if scenes.any() else 0.0
        if synth.any():
            w[synth] = share * (1 - rs) * (1 - ss) / synth.sum()
        if scenes.any():
            w[scenes] = share * (1 - rs) * ss / scenes.sum()
    return w / w.sum()


def face_loss(face_logits, face_idx, type_idx, unsure):
    """masked_face_loss for the dice whose face the look is to read; for the `unsure` ones (seen too
    steeply for the cut to hold their top face: --unsure) cross-entropy against no face at all, the
    same share of every face the die has, so the look learns to claim nothing there."""
    if not bool(unsure.any()):
        return masked_face_loss(face_logits, face_idx, type_idx)
    k, valid = faces_had(face_logits, type_idx[unsure])
    logp = face_log_probs(face_logits[unsure], valid)
    no_face = (-(logp * valid).sum(1) / k).sum()
    sure = ~unsure
    read = masked_face_loss(face_logits[sure], face_idx[sure], type_idx[sure]) * sure.sum() if sure.any() else 0.0
    return (read + no_face) / len(unsure)


def frame_pixel_nudge(rng: np.random.Generator) -> tuple[float, float, float]:
    """(dx, dy, scale) for --steady: about one pixel of the frame, in the patch's pixels, in any
    direction (a die's box is STEADY_DIE_PX pixels wide in a frame, so one frame pixel is
    CTX * BOX_IN_CTX / that), and the box a few percent larger or smaller, as the detector boxes one
    die moved a pixel."""
    px = CTX * BOX_IN_CTX / rng.uniform(*STEADY_DIE_PX)
    a = rng.uniform(0, 2 * np.pi)
    return px * float(np.cos(a)), px * float(np.sin(a)), float(np.exp(rng.normal(0, STEADY_SCALE_SD)))


def steady_loss(a_logits, b_logits, type_idx):
    """How differently the look reads one die cut twice a frame pixel apart (frame_pixel_nudge): the
    symmetric KL divergence of the two face probabilities over the faces the die has, averaged over
    the batch.

    Why: the reader's figures move by a few dice when a frame moves one pixel (models/reader.md,
    "Session 53"), and every look taught on the CPU since session 61 was refused for one die read
    wrong at one or two of the four placements `candidate --moved` judges. A look whose answer holds
    a pixel to the side is one whose sure answers are sure wherever the pixels fall."""
    _, valid = faces_had(a_logits, type_idx)
    a = face_log_probs(a_logits, valid)
    b = face_log_probs(b_logits, valid)
    return (0.5 * (face_kl(a, b, valid) + face_kl(b, a, valid))).mean()


def face_kl(p_log, q_log, valid):
    """KL(p || q) per die over the faces it has (`valid`), from log-probabilities (face_log_probs):
    what held_loss and steady_loss both measure."""
    return (p_log.exp() * (p_log - q_log)).masked_fill(~valid, 0.0).sum(1)


def held_loss(face_logits, start_logits, type_idx, temperature: float = HOLD_TEMPERATURE):
    """How far the look's face probabilities have moved from those of the weights it started from, on
    the same crops: KL(start || now) over the faces each die has, both softened by `temperature`
    (times its square, so the pull does not fade as the temperature rises), averaged over the batch.

    Why: a look taught on the CPU for half an hour on new digits (thin fonts, makers' forms) reads them
    better, but drifts elsewhere: sessions 61 and 62 each tipped a real numeral D6 it had never seen
    (type-lurig's curly 2 read 3) and gave rendered cocked dice a value, and the rule that ships a
    look refuses any set that lets one more through. Held to its start on every draw, the look learns
    what the labels of the new renders say and stays nearer its old answers elsewhere (learning
    without forgetting). It narrows the drift, it does not end it: session 63's held D6 look kept the
    rendered cocked dice as the release, but still tipped the curly 2 at one placement of four.
    Training asks it through held_where_read, which leaves the no-face draws out."""
    _, valid = faces_had(face_logits, type_idx)
    start = face_log_probs(start_logits, valid, temperature)
    now = face_log_probs(face_logits, valid, temperature)
    return face_kl(start, now, valid).mean() * temperature ** 2


def held_where_read(face_logits, start_logits, type_idx, unsure):
    """held_loss over the draws the look is to read, the no-face ones (`unsure`, --unsure) left out:
    there the face the start named is what the look is to unlearn (a maker's logo read as a number,
    session 75). Zero, still part of the graph, for a batch of no-face draws alone."""
    sure = ~unsure
    if not bool(sure.any()):
        return face_logits.sum() * 0.0
    return held_loss(face_logits[sure], start_logits[sure], type_idx[sure])


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=70)
    ap.add_argument("--out", type=Path, default=Path("work/reader_top.pt"))
    ap.add_argument("--init", type=Path, default=Path("work/reader.pt"),
                    help="the weights to start from: a .pt checkpoint, or an exported reader or look "
                         "(.onnx, e.g. models/reader_top.onnx) when the checkpoints are gone")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--synth", type=Path, action="append", default=[])
    ap.add_argument("--lurig-faces", type=Path, default=None, metavar="JSON",
                    help="add type-lurig's faces read by eye (models/train/lurig_values.json); the committed "
                         "second look was trained without them (models/reader.md says what they did)")
    ap.add_argument("--lurig-dice", nargs="*", default=None, metavar="DIE",
                    help="with --lurig-faces, the die types whose faces to learn (default: every type in the file)")
    ap.add_argument("--lurig-share", type=float, default=None, metavar="S",
                    help="with --lurig-faces, of each type's real draws this share from type-lurig's valued dice "
                         "(default: by their count among the real dice)")
    ap.add_argument("--lurig-boxes", type=Path, default=Path("work/lurig_boxes.json"),
                    help="the detector's boxes on type-lurig (models.train.single_boxes), with --lurig-faces")
    ap.add_argument("--cut", nargs="*", default=[], metavar="DIE=CUT", type=die_value(TYPE_SHARE),
                    help=f"cut side / box side for these die types (default {TOP_PER_SIDE} for every type)")
    ap.add_argument("--dice", nargs="+", default=list(TYPE_SHARE), choices=list(TYPE_SHARE),
                    help="the die types this look reads (default: the numeral dice and the D6)")
    ap.add_argument("--real-share", type=float, default=None,
                    help="of each type's draws, the real dice (default: 0.2 for the D20, 0.3 for the rest)")
    ap.add_argument("--recolour", type=float, default=0.0, metavar="P",
                    help="share of the crops shown in other colours (augment.recolour; default 0, as the "
                         "committed looks were taught)")
    ap.add_argument("--blur", type=float, default=0.0, metavar="P",
                    help="share of the crops shown out of focus, far blurrier than photometric's (augment.defocus; "
                         "default 0, as the committed looks were taught)")
    ap.add_argument("--small-camera", type=float, default=0.0, metavar="P",
                    help="share of the crops shown as a 24-72 px die in a webcam's JPEG (augment.small_camera; "
                         "default 0, as the committed looks were taught)")
    ap.add_argument("--small-camera-quality", type=int, nargs=2, default=list(SMALL_CAMERA_QUALITY),
                    metavar=("LO", "HI"), help="the JPEG qualities --small-camera draws from (default %(default)s)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", help="cpu, cuda or auto (a GPU when torch sees one)")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes building batches (1 on two cores; a GPU wants most of its machine's cores)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--real-pack", type=Path, default=None, metavar="NPZ",
                    help="the real tray dice from models.train.real_pack, for a machine without ../shared")
    ap.add_argument("--train-scenes", type=Path, action="append", default=[], metavar="DIR",
                    help="rendered tray frames (reader.synth.bulk scenes) whose every whole valued flat die is "
                         "taught: small and seen at an angle, as the detector hands dice over (seeds apart from "
                         "the calibration's frames)")
    ap.add_argument("--scene-share", type=float, default=0.3,
                    help="of each type's rendered draws, the share of --train-scenes dice (default %(default)s)")
    ap.add_argument("--seen", action="store_true",
                    help="teach the seen look (reader.vision.seen): the whole die cut as the reader cuts it "
                         f"({CROP_PER_SIDE}x its box unless --cut says otherwise), a rendered crop turned at most "
                         f"{SEEN_TURN:g} degrees either way, so the camera's foot stays below it as every rendered crop "
                         "has it; real dice only with --real-share (their camera's foot is not known: they are turned "
                         "any way, as dice seen from about straight above)")
    ap.add_argument("--unsure", type=Path, action="append", default=[], metavar="DIR",
                    help="rendered crops of dice seen too steeply for the cut to hold their top face "
                         "(models.train.slant_split's steep folders), taught as no face: the same share of "
                         "each, so the look is sure only where the face is there to see")
    ap.add_argument("--cocked-unsure", action="store_true",
                    help="the cocked dice of every source taught as no face too (a cocked D20 seen from above "
                         "shows an edge where a top face would be)")
    ap.add_argument("--unsure-share", type=float, default=0.25,
                    help="of all draws, the share of --unsure crops (default %(default)s)")
    ap.add_argument("--hold", type=float, default=0.0, metavar="W",
                    help="weight of the pull toward the face probabilities of the weights the look started from "
                         "(--init, kept frozen), on every draw (held_loss; default 0: taught by the labels alone, "
                         "as the committed looks were)")
    ap.add_argument("--steady", type=float, default=0.0, metavar="W",
                    help="weight of the pull between two cuts of each draw a frame pixel apart (steady_loss; "
                         "every draw is then cut twice, a step about twice as long; default 0, as the "
                         "committed looks were taught)")
    ap.add_argument("--faults", type=float, default=0.0, metavar="P",
                    help="share of draws the look sees through a camera fault it was never taught "
                         "(augment.camera_fault: coloured light, oversharpened, hazy, glare); with --hold the "
                         "frozen look is asked on the same cut without the fault (default 0)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not 0.0 <= args.faults <= 1.0:
        ap.error(f"--faults {args.faults:g}: give a share from 0 to 1")
    if args.steady < 0:
        ap.error(f"--steady {args.steady:g}: give a weight of 0 or more")
    if args.hold < 0:
        ap.error(f"--hold {args.hold:g}: give a weight of 0 or more")
    if args.hold and not args.init.is_file():
        ap.error(f"--hold pulls toward the weights the look starts from, and --init {args.init} is no file")
    if args.seen and args.train_scenes:
        ap.error("--seen learns from rendered crops (--synth), whose camera's foot is below them, not frames")
    if not 0.0 <= args.unsure_share < 1.0:
        ap.error(f"--unsure-share {args.unsure_share:g}: give a share from 0 to under 1")
    if args.lurig_share is not None and not 0.0 <= args.lurig_share <= 1.0:
        ap.error(f"--lurig-share {args.lurig_share:g}: give a share from 0 to 1")
    if not 0.0 <= args.scene_share <= 1.0:
        ap.error(f"--scene-share {args.scene_share:g}: give a share from 0 to 1")
    device = pick_device(args.device)
    cuts = dict(args.cut)
    base_cut = CROP_PER_SIDE if args.seen else TOP_PER_SIDE
    cut_of = np.array([cuts.get(t, base_cut) for t in TYPES])
    # the cuts travel with the weights (export reads them), so they are never stated twice
    dice = tuple(args.dice)
    said = {"cut_by_die": cuts} if cuts else {}
    if args.seen:
        said["seen"] = {"per_side": CROP_PER_SIDE}
    if set(dice) != set(TYPE_SHARE):
        said["dice"] = sorted(dice)
    args.out.with_suffix(".meta.json").write_text(json.dumps(said) + "\n")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t_load = time.time()
    imgs, ti, fi, src, calib, uns = load(args.synth, args.lurig_boxes, args.lurig_faces,
                                         tuple(args.lurig_dice) if args.lurig_dice else None, dice, args.real_pack,
                                         args.train_scenes, args.unsure, args.cocked_unsure)
    train = np.nonzero(~calib & ~uns)[0]
    real_share = 0.0 if args.seen and args.real_share is None else args.real_share
    w = draw_weights(ti, src, train, dice, real_share, args.scene_share if args.train_scenes else 0.0,
                     args.lurig_share)
    steep = np.nonzero(~calib & uns)[0]
    if len(steep):  # the unsure dice take their share of the draws, by type and source as the rest
        w = np.concatenate([(1 - args.unsure_share) * w,
                            args.unsure_share * draw_weights(ti, src, steep, dice, real_share)])
        train = np.concatenate([train, steep])
    # the seen look turns a rendered crop only a little (its camera's foot below); a real one any way
    turn_of = np.array([SEEN_TURN if args.seen and source_group(x) == "synth" else np.nan for x in src])
    print(f"loaded {len(imgs)} dice in {time.time() - t_load:.0f}s; calibration {int(calib.sum())}"
          f"{f'; taught no face {len(steep)}' if len(steep) else ''}", flush=True)

    def crop(i, rng, nudge=None):
        return top_crop(imgs[i], rng, per_side=cut_of[ti[i]], recolour_p=args.recolour, blur_p=args.blur,
                        small_p=args.small_camera, small_quality=tuple(args.small_camera_quality),
                        turn=None if np.isnan(turn_of[i]) else float(turn_of[i]), nudge=nudge)

    def build(rng):
        idx = rng.choice(train, size=args.batch, p=w)
        if args.steady:  # each draw cut twice, the second a frame pixel over: the batch's second half
            cuts, nudged = [], []
            for i in idx:
                again = copy.deepcopy(rng)  # the second cut replays the first's draws
                cuts.append(crop(i, rng))
                nudged.append(crop(i, again, frame_pixel_nudge(rng)))
            x = np.stack(cuts + nudged)
            idx = np.concatenate([idx, idx])
        else:
            x = np.stack([crop(i, rng) for i in idx])
        seen = seen_through_faults(x, rng, args.faults) if args.faults else x  # --hold's frozen look: x
        batch = (torch.from_numpy(seen), torch.from_numpy(ti[idx]), torch.from_numpy(fi[idx]),
                 torch.from_numpy(uns[idx]))
        return (*batch, torch.from_numpy(x)) if args.faults else batch

    first = np.random.default_rng([args.seed, 99])
    net = (start_from(args.init, lambda: [to_input(build(first)[0]) for _ in range(8)]) if args.init
           else DiceReaderNet())
    net = net.to(device, memory_format=torch.channels_last)
    start = None
    if args.hold:  # the look as it started, frozen, in eval mode: the release's own answers
        start = copy.deepcopy(net).eval()
        for p in start.parameters():
            p.requires_grad_(False)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)

    batches = batch_stream(build, args.seed, args.workers, pin=device.type == "cuda")
    budget, t0, step, ema, held_ema, steady_ema = args.minutes * 60, time.time(), 0, None, None, None
    half = args.batch
    while (frac := (time.time() - t0) / budget) < 1:
        lr = cosine_lr(args.lr, frac, step)
        for g in opt.param_groups:
            g["lr"] = lr
        x, t_i, f_i, u_i, *clean = next(batches)
        x = to_input(x, device)
        _, face_logits, _ = net(x)
        t_i = t_i.to(device)
        read = face_loss(face_logits, f_i.to(device), t_i, u_i.to(device))
        loss = read
        if start is not None:  # held on the draws as cut first (with --steady the batch's first half)
            as_cut = to_input(clean[0], device) if clean else x
            as_cut = as_cut[:half] if args.steady else as_cut
            with torch.no_grad():
                start_logits = start(as_cut)[1]
            held = held_where_read(face_logits[:len(as_cut)], start_logits, t_i[:len(as_cut)],
                                   u_i[:len(as_cut)].to(device))
            loss = loss + args.hold * held
        if args.steady:
            steady = steady_loss(face_logits[:half], face_logits[half:], t_i[:half])
            loss = loss + args.steady * steady
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 20 == 0:  # reading the loss waits for the GPU; not every step
            ema = read.item() if ema is None else 0.9 * ema + 0.1 * read.item()
            if start is not None:
                held_ema = held.item() if held_ema is None else 0.9 * held_ema + 0.1 * held.item()
            if args.steady:
                steady_ema = steady.item() if steady_ema is None else 0.9 * steady_ema + 0.1 * steady.item()
        if step % 200 == 0:
            print(f"step {step} t={time.time() - t0:.0f}s lr={lr:.5f} face={ema:.3f}"
                  + (f" held={held_ema:.4f}" if held_ema is not None else "")
                + (f" steady={steady_ema:.4f}" if steady_ema is not None else ""), flush=True)
        if step % 2000 == 0:
            torch.save(cpu_state(net), args.out)
    torch.save(cpu_state(net), args.out)
    print(f"done: {step} steps in {time.time() - t0:.0f}s -> {args.out}", flush=True)


if __name__ == "__main__":
    main()
