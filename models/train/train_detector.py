"""Train the die detector and export it to models/detector.onnx.

    python -m models.train.train_detector --minutes 20 [--synth work/synth/scenes]
    python -m models.train.train_detector --init models/detector.onnx ...   # taught on from the release
    python -m models.train.train_detector --device cuda --workers 7 --batch 64 --real work/detpack ...

On a GPU machine the patches are the bottleneck (the network has 109k parameters): `--workers` builds
them in that many processes, each drawing its own patches from the same frames (`--workers 0`, the
default, draws them in the trainer, draw for draw as before). `--real` reads the real trays from a
pack (`python -m models.train.detector_data --pack work/detpack`) where ../shared does not travel.

CenterNet-style: a heatmap of die centres, the box size in log space and a sub-cell offset, at
output stride 4. Time-budgeted: the cosine schedule is planned for the given minutes.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from models.train.detector_data import real_frames, sample, synth_frames
from models.train.nets import DiceDetector
from models.train.onnx_weights import detector_from_onnx, refit_batchnorm
from models.train.schedule import cosine_lr


def focal(pred_logit, gt):
    p = torch.sigmoid(pred_logit).clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p ** 2 * (1 - gt) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


def _save(net, out: Path):
    """The weights on the CPU (export and --init read them there), written whole or not at all: a run
    stopped at its time limit leaves its last checkpoint readable."""
    tmp = out.with_suffix(".tmp")
    torch.save({k: v.detach().cpu() for k, v in net.state_dict().items()}, tmp)
    tmp.replace(out)


def network_input(x: torch.Tensor, device="cpu") -> torch.Tensor:
    """A batch's uint8 N x H x W x 3 patches as the detector's input: float N x 3 x H x W in 0..1."""
    return x.to(device, non_blocking=True).permute(0, 3, 1, 2).float() / 255.0


def batch(frames, weights, rng, bs, patch, small=0.0):
    idx = rng.choice(len(frames), size=bs, p=weights)
    imgs, heats, sizes, offs, masks = [], [], [], [], []
    for i in idx:
        img, heat, size, off, mask = sample(frames[i], rng, patch, small=small)
        imgs.append(img)
        heats.append(heat)
        sizes.append(size)
        offs.append(off)
        masks.append(mask)
    # the patches stay uint8 and channels-last here: a builder's time goes to its patches, and the
    # float NCHW the network takes is made where the network is (`network_input`), a quarter the bytes
    x = torch.from_numpy(np.stack(imgs))
    return (x, torch.from_numpy(np.stack(heats))[:, None], torch.from_numpy(np.stack(sizes)),
            torch.from_numpy(np.stack(offs)), torch.from_numpy(np.stack(masks)))


class Patches(torch.utils.data.IterableDataset):
    """Endless batches for the workers of a DataLoader, each worker its own seed. The frames were
    loaded before the workers fork, so they share them, not copy them."""

    def __init__(self, frames, weights, seed, bs, patch, small):
        self.frames, self.weights, self.seed = frames, weights, seed
        self.bs, self.patch, self.small = bs, patch, small

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info else 0])
        torch.set_num_threads(1)  # one core a worker: the workers are as many as the cores
        while True:
            yield batch(self.frames, self.weights, rng, self.bs, self.patch, self.small)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--synth", type=Path, nargs="*", default=[], help="folders of rendered scenes")
    ap.add_argument("--synth-share", type=float, default=0.4)
    ap.add_argument("--real", type=Path, default=None,
                    help="the real trays from a pack (detector_data --pack) instead of ../shared")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--workers", type=int, default=0, help="processes building the patches (0: the trainer)")
    ap.add_argument("--save-seconds", type=float, default=60, help="a checkpoint this often")
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--patch", type=int, default=256)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("work/detector.pt"))
    ap.add_argument("--init", type=Path, default=None)
    ap.add_argument("--small-share", type=float, default=0.0,
                    help="share of patches with dice 8-24 px, as a far camera shows them (detector_data.SMALL)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--size-weight", type=float, default=2.0,
                    help="weight of the box-size loss: the reader's crop is cut from this box")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    if args.workers:
        # OpenCV's thread pool, started in the trainer, does not survive the fork into the workers
        # (session 53's first GPU call hung so); none started, and the workers keep the setting
        cv2.setNumThreads(1)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)

    real = synth_frames(args.real) if args.real else real_frames()
    if args.real and not real:
        raise SystemExit(f"--real {args.real}: no frames (python -m models.train.detector_data --pack {args.real})")
    synth = [f for folder in args.synth for f in synth_frames(folder)]
    frames = real + synth
    w = np.array([1.0 / max(len(real), 1)] * len(real) + [1.0 / max(len(synth), 1)] * len(synth))
    if synth:
        w[: len(real)] *= 1 - args.synth_share
        w[len(real):] *= args.synth_share
    w /= w.sum()
    print(f"frames: {len(real)} real, {len(synth)} rendered", flush=True)

    net = DiceDetector()
    if args.init and args.init.suffix == ".onnx":
        # a committed detector, its checkpoint gone: rebuilt from its folded weights, each BatchNorm
        # refitted to the patches it will be taught on (models.train.onnx_weights)
        net = detector_from_onnx(args.init)
        refit_batchnorm(net, [network_input(batch(frames, w, rng, args.batch, args.patch)[0]) for _ in range(8)])
        net.train()
    elif args.init and args.init.exists():
        net.load_state_dict(torch.load(args.init))
    elif args.init:
        raise SystemExit(f"--init {args.init}: no such file (a .pt checkpoint or a models/*.onnx detector)")
    net.to(args.device)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    if args.workers:
        batches = iter(torch.utils.data.DataLoader(
            Patches(frames, w, args.seed, args.batch, args.patch, args.small_share), batch_size=None,
            num_workers=args.workers, prefetch_factor=4, persistent_workers=True))
    else:
        batches = None
    budget = args.minutes * 60
    t0 = time.time()
    step = 0
    saved = t0
    ema = None
    args.out.parent.mkdir(parents=True, exist_ok=True)
    while True:
        frac = (time.time() - t0) / budget
        if frac >= 1:
            break
        lr = cosine_lr(args.lr, frac, step)
        for g in opt.param_groups:
            g["lr"] = lr
        if batches is None:
            x, heat, size, off, mask = batch(frames, w, rng, args.batch, args.patch, args.small_share)
        else:
            x, heat, size, off, mask = next(batches)
        x = network_input(x, args.device)
        heat, size, off, mask = (t.to(args.device, non_blocking=True) for t in (heat, size, off, mask))
        out = net(x)
        l_heat = focal(out[:, :1], heat)
        m_size = (mask == 1).float()[:, None]
        m_off = (mask > 0).float()[:, None]
        n = m_off.sum().clamp(min=1)
        l_size = (F.smooth_l1_loss(out[:, 1:3], size, reduction="none") * m_size).sum() / m_size.sum().clamp(min=1)
        l_off = (F.l1_loss(torch.sigmoid(out[:, 3:5]), off, reduction="none") * m_off).sum() / n
        loss = l_heat + args.size_weight * l_size + l_off
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema = loss.item() if ema is None else 0.98 * ema + 0.02 * loss.item()
        step += 1
        if step % 50 == 0:
            print(f"step {step} t={time.time()-t0:.0f}s lr={lr:.5f} loss={ema:.3f} "
                  f"heat={l_heat.item():.3f} size={l_size.item():.3f} off={l_off.item():.3f}", flush=True)
        if time.time() - saved >= args.save_seconds:
            _save(net, args.out)
            saved = time.time()
    _save(net, args.out)
    print(f"done: {step} steps in {time.time()-t0:.0f}s -> {args.out}", flush=True)


if __name__ == "__main__":
    main()
