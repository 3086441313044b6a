"""Train the die reader (type, face, state from one crop) and calibrate its confidence.

    python -m models.train.train_reader --minutes 30 --synth work/synth/crops --out work/reader.pt

Sources, each with its share of every batch: real tray dice (training four-fifths of the trainable
sets), type-only single dice (type-lurig), rendered dice of every type (the only source of D12 and
D20 faces and of cocked dice), and table patches with no die ("none"). A fixed 8% of each source is
kept for calibration (temperatures and the accept threshold), never for training.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from models.train.batches import batch_stream, cpu_state, pick_device, to_input
from models.train.nets import TYPES, DiceReaderNet
from models.train.onnx_weights import start_from
from models.train.real_pack import read_pack
from models.train.reader_data import (SCENE_SOURCE, Patches, detector_false_alarms, lurig_patches, make_crop,
                                      real_tray_patches, synth_crop_patches, synth_crops_of, training_frame_patches)
from models.train.schedule import cosine_lr
from reader.dice import FACES

FACE_COUNT = np.array([FACES.get(t, 0) for t in TYPES])


def source_group(src: str) -> str:
    """A die's source as the batches share it out: "none", "synth" (rendered crops), "scenes" (dice
    of rendered tray frames, --train-scenes: they take --scene-share of each batch from the crops'),
    "types" (type-lurig) or "real"."""
    if src.endswith(":none"):
        return "none"
    if src == "synth":
        return "synth"
    if src == SCENE_SOURCE:
        return "scenes"
    if src == "type-lurig":
        return "types"
    return "real"


SHARES = {"real": 0.35, "synth": 0.40, "types": 0.13, "none": 0.12}
SYNTH_FULL_SHARE_AT = 8000


def load_real(lurig_boxes: Path | None, lurig_faces: Path | None = None) -> Patches:
    """Real dice: tray sets (training four-fifths) with table patches, and single-die photos, typed,
    and valued where `lurig_faces` (lurig_values.json: D8, D10 and D20 from above, read by eye) has them."""
    p = real_tray_patches()
    p.extend(lurig_patches(lurig_boxes, lurig_faces))
    return p


def is_calibration(image_bytes: np.ndarray) -> bool:
    """A fixed 8% of dice, chosen by their pixels, kept for calibration (stable across reloads)."""
    return int(hashlib.sha1(image_bytes[::7, ::7].tobytes()).hexdigest()[:8], 16) % 100 < 8


def prepare(data: Patches, scene_share: float = 0.0):
    imgs, ti, fi, si, src = data.arrays()
    shares = dict(SHARES)
    if scene_share:
        shares["synth"] -= scene_share
        shares["scenes"] = scene_share
    groups = np.array([source_group(s) for s in src])
    calib = np.array([is_calibration(im) for im in imgs])
    train = np.nonzero(~calib)[0]
    w = np.zeros(len(train))
    for g, share in shares.items():
        m = groups[train] == g
        if g == "synth":
            # while few crops are rendered yet, do not show each of them a hundred times
            share *= min(1.0, m.sum() / SYNTH_FULL_SHARE_AT)
        if m.any():
            w[m] = share / m.sum()
    w /= w.sum()
    return imgs, ti, fi, si, src, calib, train, w


def faces_had(face_logits, type_idx):
    """(k, valid): per die the number of faces its type has, and which of the face logits' columns are
    those faces (a D8's 9..20 do not exist). Every face loss compares only these."""
    k = torch.as_tensor(FACE_COUNT, device=face_logits.device)[type_idx]
    return k, torch.arange(face_logits.shape[1], device=face_logits.device)[None] < k[:, None]


def face_log_probs(face_logits, valid, temperature: float = 1.0):
    """Log-probabilities over the faces a die has (`valid`, from faces_had), the rest masked out, the
    logits softened by `temperature` first: what every face loss reads its look's answer as."""
    return torch.log_softmax(face_logits.masked_fill(~valid, -1e4) / temperature, dim=1)


def masked_face_loss(face_logits, face_idx, type_idx, smoothing=0.05):
    """Cross-entropy over the faces the labelled die has (a D8's 9..20 do not exist); the label
    smoothing is spread over those faces only."""
    k, valid = faces_had(face_logits, type_idx)
    logp = face_log_probs(face_logits, valid)
    nll = -logp.gather(1, face_idx[:, None])[:, 0]
    smooth = -(logp * valid).sum(1) / k
    return ((1 - smoothing) * nll + smoothing * smooth).mean()


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--synth", type=Path, action="append", default=[])
    ap.add_argument("--synth-limit", type=int, default=None)
    ap.add_argument("--lurig-boxes", type=Path, default=Path("work/lurig_boxes.json"))
    ap.add_argument("--lurig-faces", type=Path, default=None, metavar="JSON",
                    help="type-lurig's faces read by eye (models/train/lurig_values.json); the committed "
                         "reader was trained without them (models/reader.md says what they did)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", help="cpu, cuda or auto (a GPU when torch sees one)")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes building batches (1 on two cores; a GPU wants most of its machine's cores)")
    ap.add_argument("--real-pack", type=Path, default=None, metavar="NPZ",
                    help="the real dice from models.train.real_pack (trays, type-lurig and, with --hard-negatives, "
                         "the detector's false alarms), for a machine without ../shared")
    ap.add_argument("--out", type=Path, default=Path("work/reader.pt"))
    ap.add_argument("--init", type=Path, default=None,
                    help="weights to start from: a .pt checkpoint or an exported reader (.onnx)")
    ap.add_argument("--hard-negatives", type=Path, default=None, metavar="DETECTOR_ONNX",
                    help="add this detector's false alarms on the training frames as 'none'")
    ap.add_argument("--scenes", type=Path, default=None,
                    help="rendered scenes to mine false alarms from too (with --hard-negatives)")
    ap.add_argument("--train-scenes", type=Path, action="append", default=[], metavar="DIR",
                    help="rendered tray frames (reader.synth.bulk scenes) whose every whole die is trained on "
                         "(render them with seeds apart from the calibration's scenes)")
    ap.add_argument("--scene-share", type=float, default=0.2,
                    help="share of every batch the --train-scenes dice take, from the rendered crops' share")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--blur", type=float, default=0.0, metavar="P",
                    help="share of the crops shown out of focus (augment.defocus; default 0, as the committed "
                         "reader.onnx was taught; the D6's look of reader v12 was taught with 0.1)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--state-weight", type=float, default=1.0,
                    help="weight of the flat/cocked loss (0.5 up to v2; a leaning die must not be read)")
    ap.add_argument("--reload-minutes", type=float, default=4.0,
                    help="pick up crops rendered since the start this often")
    args = ap.parse_args(argv)
    scene_share = args.scene_share if args.train_scenes else 0.0
    if not 0.0 <= scene_share < SHARES["synth"]:
        ap.error(f"--scene-share {scene_share:g}: give 0 to under {SHARES['synth']:g} (it is taken from the crops' share)")
    device = pick_device(args.device)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)

    t_load = time.time()
    if args.real_pack:
        data = read_pack(args.real_pack, ("trays", "lurig") + (("false_alarms",) if args.hard_negatives else ()))
    else:
        data = load_real(args.lurig_boxes, args.lurig_faces)
    synth_seen = {}
    for f, new in zip(args.synth, synth_crops_of(args.synth, args.synth_limit)):
        synth_seen[str(f)] = new.lines_read
        data.extend(new)
    if args.hard_negatives and not args.real_pack:
        data.extend(detector_false_alarms(args.hard_negatives, scenes=args.scenes))
    data.extend(training_frame_patches(args.train_scenes))
    imgs, ti, fi, si, src, calib, train, w = prepare(data, scene_share)
    print(f"loaded {len(imgs)} dice in {time.time()-t_load:.0f}s; "
          f"training {({g: int((np.array([source_group(x) for x in src[train]]) == g).sum()) for g in [*SHARES, 'scenes']})}; "
          f"calibration {int(calib.sum())}", flush=True)

    def stream(arrays, seed):
        """Endless augmented batches of these arrays, built by --workers processes."""
        imgs_, ti_, fi_, si_, train_, w_ = arrays

        def build(rng):
            idx = rng.choice(train_, size=args.batch, p=w_)
            x = np.stack([make_crop(imgs_[i], rng, blur_p=args.blur) for i in idx])
            return (torch.from_numpy(x), torch.from_numpy(ti_[idx]), torch.from_numpy(fi_[idx]),
                    torch.from_numpy(si_[idx]))
        return build, batch_stream(build, seed, args.workers, pin=device.type == "cuda")

    build, batches = stream((imgs, ti, fi, si, train, w), args.seed)
    first = np.random.default_rng([args.seed, 99])
    net = (start_from(args.init, lambda: [to_input(build(first)[0]) for _ in range(8)])
           if args.init else DiceReaderNet())
    net = net.to(device, memory_format=torch.channels_last)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=5e-4)
    budget = args.minutes * 60
    t0 = time.time()
    step = 0
    ema = {}
    last_reload = time.time()
    while True:
        if args.synth and time.time() - last_reload > args.reload_minutes * 60:
            last_reload = time.time()
            added = 0
            for f in args.synth:
                new = synth_crop_patches(f, skip=synth_seen[str(f)])
                synth_seen[str(f)] = max(synth_seen[str(f)], new.lines_read)
                data.extend(new)
                added += len(new)
            if added:
                imgs, ti, fi, si, src, calib, train, w = prepare(data, scene_share)
                build, batches = stream((imgs, ti, fi, si, train, w), args.seed + step)
                print(f"picked up {added} new rendered dice; {len(imgs)} in all", flush=True)
        frac = (time.time() - t0) / budget
        if frac >= 1:
            break
        lr = cosine_lr(args.lr, frac, step)
        for g in opt.param_groups:
            g["lr"] = lr
        x, t_i, f_i, s_i = next(batches)
        t_i, f_i, s_i = t_i.to(device), f_i.to(device), s_i.to(device)
        tl, fl, sl = net(to_input(x, device))
        loss_t = F.cross_entropy(tl, t_i, label_smoothing=0.05)
        fm = (f_i >= 0) & (s_i != 1)
        loss_f = masked_face_loss(fl[fm], f_i[fm], t_i[fm]) if bool(fm.any()) else tl.sum() * 0
        sm = s_i >= 0
        loss_s = F.cross_entropy(sl[sm], s_i[sm]) if bool(sm.any()) else tl.sum() * 0
        loss = loss_t + loss_f + args.state_weight * loss_s
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        if step % 10 == 0:  # reading the losses waits for the GPU; not every step
            for k, v in (("loss", loss), ("type", loss_t), ("face", loss_f), ("state", loss_s)):
                v = v.item()
                ema[k] = v if k not in ema else 0.9 * ema[k] + 0.1 * v
        if step % 200 == 0:
            print(f"step {step} t={time.time()-t0:.0f}s lr={lr:.5f} " +
                  " ".join(f"{k}={v:.3f}" for k, v in ema.items()), flush=True)
        if step % 2000 == 0:
            torch.save(cpu_state(net), args.out)
    torch.save(cpu_state(net), args.out)
    np.savez_compressed(args.out.with_suffix(".calib.npz"), imgs=imgs[calib], ti=ti[calib], fi=fi[calib],
                        si=si[calib], src=src[calib])
    print(f"done: {step} steps in {time.time()-t0:.0f}s -> {args.out}", flush=True)


if __name__ == "__main__":
    main()
