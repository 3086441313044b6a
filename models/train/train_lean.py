"""Train the lean look (reader.vision.lean): is a die leaning, told from its crop turned so that
the camera's foot is below it and the angle the camera sees it at.

    python -m reader.synth.bulk crops --lean --seed 101 --count 14000 --out work/synth/lean101
    python -m models.train.train_lean --synth work/synth/lean101 --replay work/synth/tr71=71 \
        --minutes 35 --out work/lean.pt
    python -m models.train.export lean work/lean.pt models/reader_lean.onnx

Taught on from the committed look (its checkpoint is gone) with the real trays' flat dice: lean look
v2 was made so from v1 (models/reader_lean.md; the recipe's --lean-look-trays-minutes):

    python -m models.train.train_lean --resume models/reader_lean.onnx --synth work/synth/lean601 \
        --synth work/synth/lean602 --real tray-d6-nell=70 --real tray-mixed-bartek=70 \
        --real desk-d6-matteo=70 --minutes 12 --lr 2e-4 --out work/lean2.pt
    python -m models.train.export lean work/lean2.pt models/reader_lean.onnx --version 2

Its dice are rendered crops whose camera angle is known: `bulk crops --lean` writes it in each
row; a folder rendered without it (`--replay DIR=SEED`, mix "all") has it replayed from the seed
(layouts.crop_scene draws the scene before any pixel, so the replay is exact; every box is checked
against the labels). A rendered crop's camera stands on the side of the crop's bottom edge, as a
tray camera's foot is below a die in its picture. The crops are cut as the reader cuts its own
(reader.vision.crops), never turned more than a few degrees, and mirrored left to right (a mirror
keeps the camera's foot below). A fixed tenth of the crops, by index, is held out: the threshold is
set on them (threshold_from) and written beside the weights (OUT.meta.json), where export finds it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from models.train.augment import photometric
from models.train.batches import batch_stream, cpu_state, to_input
from models.train.nets import LeanNet
from models.train.onnx_weights import lean_from_onnx, refit_batchnorm, start_from
from models.train.reader_data import BOX_IN_CTX, CTX, context_patch, cut
from models.train.schedule import cosine_lr
from reader.vision.crops import CROP_PER_SIDE

COCKED_SHARE = 0.4  # of each batch
REAL_SHARE = 0.2  # of each batch, with --real: real flat dice
HELD_OUT_EVERY = 10  # every tenth crop, by index: the threshold's dice
# The threshold calls this share of the held-out flat dice leaning: each is a "roll again" at the
# table, where a cocked die given a value is a wrong reading.
FLAT_CALLED_LEANING = 0.01


def threshold_from(p: np.ndarray, cocked: np.ndarray, slant: np.ndarray) -> dict:
    """The lean threshold from the held-out dice's p(leaning), and what it does to them."""
    flat = cocked == 0
    thr = float(np.quantile(p[flat], 1 - FLAT_CALLED_LEANING))
    out = {"lean_threshold": round(thr, 4), "held_out": {
        "flat": int(flat.sum()), "cocked": int((~flat).sum()),
        "flat_called_leaning": round(float((p[flat] >= thr).mean()), 4),
        "cocked_found": round(float((p[~flat] >= thr).mean()), 4)}}
    for lo, hi in ((0, 15), (15, 30), (30, 45), (45, 90)):
        m = (slant >= lo) & (slant < hi)
        out["held_out"][f"cocked_found_{lo}_{hi}_deg"] = round(float((p[m & ~flat] >= thr).mean()), 4) if (m & ~flat).any() else None
        out["held_out"][f"flat_called_leaning_{lo}_{hi}_deg"] = round(float((p[m & flat] >= thr).mean()), 4) if (m & flat).any() else None
    return out


def replayed_angles(folder: Path, seed: int, mix: str = "all", size: int = 128) -> dict[str, float]:
    """{image: camera degrees off vertical} for a folder of `bulk crops` rendered without --lean,
    from the scenes replayed (no rendering); SystemExit when a replayed box is not the label's."""
    from reader.synth.layouts import MIXES, crop_scene

    out = {}
    for line in (folder / "labels.jsonl").read_text().splitlines():
        if not line.strip():
            continue
        rec = json.loads(line)
        i = int(Path(rec["image"]).stem)
        scene = crop_scene(np.random.default_rng([seed, i, 1]), size=size, classes=MIXES[mix])
        if not rec["dice"] or scene["labels"][0]["box"] != rec["dice"][0]["box"]:
            raise SystemExit(f"--replay {folder}={seed}: image {rec['image']} is not that seed's scene")
        out[rec["image"]] = float(scene["camera"]["off_vertical_deg"])
    return out


def angles_of(folder: Path, replay: str | None) -> dict[str, float] | None:
    """replayed_angles for a folder named DIR=SEED:MIX on a command line (`replay` its SEED:MIX part,
    MIX "all" when left out); None without one (rows of --lean crops carry their own angle)."""
    if not replay:
        return None
    seed, _, mix = replay.partition(":")
    return replayed_angles(folder, int(seed), mix or "all")


def load(folder: Path, angles: dict[str, float] | None = None):
    """(context patches, cocked 0/1, angle, held out) of the main dice (not D4) of a crop folder."""
    pats, cocked, slant, held = [], [], [], []
    for line in (folder / "labels.jsonl").read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:  # blank, or a line being written right now
            continue
        if not rec.get("dice") or rec["dice"][0]["die"] == "d4":
            continue
        a = angles.get(rec["image"]) if angles is not None else rec.get("camera", {}).get("off_vertical_deg")
        img = cv2.imread(str(folder / rec["image"]))
        if a is None or img is None:
            continue
        d = rec["dice"][0]
        pats.append(context_patch(img, d["box"]))
        cocked.append(int(d.get("state") == "cocked"))
        slant.append(float(a))
        held.append(int(Path(rec["image"]).stem) % HELD_OUT_EVERY == 0)
    return pats, cocked, slant, held


def real_flat_dice(name: str, hfov: float):
    """(patches turned so the camera's foot is below, angles) of the valued dice of a real tray
    set's training four-fifths, its photos taken as if by a camera straight down with `hfov`
    (degrees): real dice are all flat, and the renders alone taught the look that real dice lean."""
    from models.train.reader_data import tray_images
    from reader.vision.viewing import CameraView

    view = CameraView(hfov)
    pats, slant = [], []
    for _, li in tray_images([name]):
        img = cv2.imread(str(li.path))
        if img is None:
            continue
        h, w = img.shape[:2]
        for d in li.dice:
            if d.box is None or d.value is None:
                continue
            cx, cy = (d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2
            pats.append(context_patch(img, d.box, angle=view.turn_to_foot(cx, cy, w, h)))
            slant.append(view.slant(cx, cy, w, h))
    return pats, slant


# type-lurig's photos by how they were taken (their file names): from straight above, and from about 45
# degrees with the camera's foot below (a die's front faces at the photo's bottom). Its "_wood" photos
# are left out: taken from the side at angles no name tells.
LURIG_VIEWS = {"_top": 0.0, "_color": 0.0, "_off-angle": 45.0, "_45angle": 45.0}


def lurig_view(name: str) -> float | None:
    """The degrees off vertical a type-lurig photo was taken at, by its file name; None: not known."""
    return next((a for k, a in LURIG_VIEWS.items() if k in name), None)


def lurig_dice(boxes_file: Path | None):
    """(patches, angles, leaning 0/1) of type-lurig's training four-fifths (no D4: the lean look was taught
    none) whose view its file name tells (LURIG_VIEWS). Each die lies flat on a turntable, so each photo is
    taught twice: at its own angle, flat; and at the other angle (45 degrees for a photo from above, 0 for
    one from 45 degrees), leaning: a die that shows a view from above to a camera 45 degrees off vertical,
    or a view from 45 degrees to a camera straight above, is tipped by about that much. Why: the lean look
    was taught real dice only from the three trays, none of them a D20, and told "straight down" it
    doubted real D20 seen from above (session 59: 18 of the 20 sure real D20 pasted into trays failed
    reader.vision.above's gate); taught them flat at their own angle only, it also took lurig's D20 seen
    from 45 degrees, told "straight down", for flat ones, and above.py read 7 of them wrong (session 60).
    `boxes_file`: the detector's box per photo (models.train.single_boxes), else the middle 55% of the
    photo."""
    from models.train.reader_data import load_set, realdata_root, single_die_box

    boxes = json.loads(boxes_file.read_text()) if boxes_file and boxes_file.exists() else {}
    pats, slant, leaning = [], [], []
    other = {0.0: 45.0, 45.0: 0.0}
    for li in load_set(realdata_root() / "type-lurig"):
        a = lurig_view(li.name)
        if li.holdout or a is None or not li.dice or li.dice[0].die == "d4":
            continue
        img = cv2.imread(str(li.path))
        if img is None:
            continue
        patch = context_patch(img, single_die_box(boxes, li.name, img))
        pats += [patch, patch]
        slant += [a, other[a]]
        leaning += [0, 1]
    return pats, slant, leaning


def lean_crop(patch: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
    """The reader's crop of the die in a context patch; with rng, as a detector's box gives it
    (0.75-1.35x, off centre), turned a few degrees (the camera's foot is known only roughly),
    mirrored half the time, with the reader's photometric noise."""
    side = CTX * BOX_IN_CTX * CROP_PER_SIDE
    if rng is None:
        return cut(patch, side, 0.0, 0.0, 0.0)
    side *= float(np.exp(rng.uniform(np.log(0.75), np.log(1.35))))
    jx, jy = rng.normal(0, 0.05, 2) * side
    out = cut(patch, side, float(rng.normal(0, 8)), jx, jy)
    if rng.random() < 0.5:
        out = out[:, ::-1]
    return photometric(np.ascontiguousarray(out), rng, strength=1.0)


def held_out_threshold(net: LeanNet, pats, cocked, slant, val_out: Path | None = None) -> dict:
    """threshold_from the held-out dice, read as the reader cuts them (export reads it from
    OUT.meta.json); `val_out` keeps their p(leaning), state and angle (npz)."""
    net.eval()
    ps = []
    with torch.no_grad():
        for k in range(0, len(pats), 256):
            x = torch.from_numpy(np.stack([lean_crop(q, None) for q in pats[k:k + 256]]))
            ps.append(F.softmax(net(to_input(x), torch.from_numpy(slant[k:k + 256])), 1)[:, 1].numpy())
    p = np.concatenate(ps)
    if val_out:
        np.savez(val_out, p=p, cocked=cocked, slant=slant)
    return threshold_from(p, cocked, slant)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--synth", type=Path, action="append", default=[], help="crops rendered with bulk --lean")
    ap.add_argument("--replay", action="append", default=[], metavar="DIR=SEED",
                    help="crops rendered without --lean (mix all, 128 px): their angles replayed from the seed")
    ap.add_argument("--real", action="append", default=[], metavar="SET=HFOV",
                    help="a real tray set photographed from straight above (e.g. tray-d6-nell=70): its training "
                         f"dice as flat dice, {REAL_SHARE * 100:.0f}%% of each batch")
    ap.add_argument("--lurig", type=Path, default=None, metavar="BOXES.json",
                    help="type-lurig's training photos from above and from 45 degrees in the real draws, flat at their own "
                         "angle and leaning at the other (lurig_dice), each in its box from this file (models.train.single_boxes)")
    ap.add_argument("--real-share", type=float, default=REAL_SHARE, help="of each batch, the real dice")
    ap.add_argument("--init", type=Path, default=Path("models/reader.onnx"),
                    help="the reader whose features to start from (an exported reader, or a .pt)")
    ap.add_argument("--resume", type=Path, default=None,
                    help="a lean look's own weights to teach on: a .pt, or an exported lean look (models/reader_lean.onnx; "
                         "its checkpoint is gone) rebuilt with its BatchNorms refitted on the first batches")
    ap.add_argument("--minutes", type=float, default=35)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("work/lean.pt"))
    ap.add_argument("--val-out", type=Path, default=None,
                    help="also write the held-out crops' p(leaning), state and angle here (npz)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    t_load = time.time()
    pats, cocked, slant, held = [], [], [], []
    sources = [(f, None) for f in args.synth]
    for item in args.replay:
        folder, _, seed = item.partition("=")
        sources.append((Path(folder), angles_of(Path(folder), seed)))
    for folder, angles in sources:
        p, c, s, h = load(folder, angles)
        pats += p; cocked += c; slant += s; held += h
    if not pats:
        raise SystemExit("no crops with a known camera angle: give --synth or --replay")
    real = np.zeros(len(pats), bool)
    reals = [(*real_flat_dice(name, float(hfov or 70)), None) for name, _, hfov in (r.partition("=") for r in args.real)]
    if args.lurig:
        reals.append(lurig_dice(args.lurig))
    for p, s, lean in reals:
        pats += p; slant += s; cocked += lean or [0] * len(p); held += [False] * len(p)
        real = np.concatenate([real, np.ones(len(p), bool)])
    pats, cocked = np.stack(pats), np.array(cocked)
    slant, held = np.array(slant, np.float32), np.array(held, bool)
    train = np.nonzero(~held)[0]
    r = real[train]
    rs = args.real_share if r.any() else 0.0
    flat_synth = (cocked[train] == 0) & ~r
    cocked_synth = (cocked[train] == 1) & ~r
    w = np.where(r, rs / max(1, r.sum()), np.where(cocked_synth, COCKED_SHARE / max(1, cocked_synth.sum()),
                                                   (1 - COCKED_SHARE - rs) / max(1, flat_synth.sum())))
    w /= w.sum()
    print(f"loaded {len(pats)} dice ({int(cocked.sum())} cocked, {int(real.sum())} real) in "
          f"{time.time() - t_load:.0f}s; held out {int(held.sum())}", flush=True)

    def build(rng):
        idx = rng.choice(train, size=args.batch, p=w)
        x = np.stack([lean_crop(pats[i], rng) for i in idx])
        a = np.clip(slant[idx] + rng.normal(0, 2.0, len(idx)), 0, 80).astype(np.float32)
        return torch.from_numpy(x), torch.from_numpy(a), torch.from_numpy(cocked[idx])

    net = LeanNet()
    if args.resume and args.resume.suffix == ".onnx":
        net = lean_from_onnx(args.resume)
        first = np.random.default_rng([args.seed, 99])
        refit_batchnorm(net, [(to_input(x), a) for x, a, _ in (build(first) for _ in range(8))])
        net.train()
    elif args.resume:
        net.load_state_dict(torch.load(args.resume, map_location="cpu"))
    else:
        first = np.random.default_rng([args.seed, 99])
        net.features = start_from(args.init, lambda: [to_input(build(first)[0]) for _ in range(8)]).features
    net = net.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    batches = batch_stream(build, args.seed, 1)
    budget, t0, step, ema = args.minutes * 60, time.time(), 0, None
    while (frac := (time.time() - t0) / budget) < 1:
        for g in opt.param_groups:
            g["lr"] = cosine_lr(args.lr, frac, step)
        x, a, y = next(batches)
        loss = F.cross_entropy(net(to_input(x), a), y.long())
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        if step % 200 == 0:
            print(f"step {step} t={time.time() - t0:.0f}s loss={ema:.3f}", flush=True)
        if step % 2000 == 0:
            torch.save(cpu_state(net), args.out)
    torch.save(cpu_state(net), args.out)
    print(f"done: {step} steps in {time.time() - t0:.0f}s -> {args.out}", flush=True)
    said = held_out_threshold(net, pats[held], cocked[held], slant[held], args.val_out)
    args.out.with_suffix(".meta.json").write_text(json.dumps(said, indent=1) + "\n")
    print(f"held out: {int(held.sum())} dice; {json.dumps(said)}", flush=True)

if __name__ == "__main__":
    main()
