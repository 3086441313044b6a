"""Augmented training batches from worker processes, and their way onto the training device.

On two CPU cores one thread building the next batch while the network trains on the last was
enough: a step of the network cost as much as a batch's augmentation. On a GPU the step costs
next to nothing and that one thread starves it, so the batches come from `workers` processes
(torch's DataLoader, forked: the patch arrays are shared, not copied), each drawing from its own
random stream (seed, worker number), so two workers never build the same batch. Batches travel as
uint8 (a quarter of float32's bytes through shared memory) and become the network's input on the
device (`to_input`).
"""

from __future__ import annotations

from typing import Callable, Iterator

import cv2
import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

Build = Callable[[np.random.Generator], tuple]


class _Batches(IterableDataset):
    def __init__(self, build: Build, seed: int):
        self.build, self.seed = build, seed

    def __iter__(self):
        info = get_worker_info()
        rng = np.random.default_rng([self.seed, info.id if info else 0])
        while True:
            yield self.build(rng)


def batch_stream(build: Build, seed: int, workers: int, pin: bool = False) -> Iterator[tuple]:
    """Endless build(rng) results. workers=0 builds them here, between steps (for tests and
    debugging); 1 is the CPU trainers' old overlap (one batch built while one trains); a GPU
    wants as many as there are cores to spare."""
    if workers <= 0:
        rng = np.random.default_rng([seed, 0])
        while True:
            yield build(rng)
    # Each worker should be one core's worth of OpenCV: the parent sets that before forking and
    # the workers inherit it. Never set it in a worker (a worker_init_fn): cv2.setNumThreads in a
    # forked child waited forever on the parent's pool threads, which the child does not have.
    cv2.setNumThreads(0)
    loader = DataLoader(_Batches(build, seed), batch_size=None, num_workers=workers, pin_memory=pin,
                        prefetch_factor=4)
    yield from loader


def to_input(x_uint8_nhwc: torch.Tensor, device: torch.device | str = "cpu") -> torch.Tensor:
    """A uint8 NHWC batch as the network's input: float32 / 255, NCHW in channels-last memory
    (the depthwise convolutions run about 17% faster so on the CPU)."""
    x = x_uint8_nhwc.to(device, non_blocking=True).permute(0, 3, 1, 2).float().div_(255.0)
    return x.contiguous(memory_format=torch.channels_last)


def pick_device(name: str) -> torch.device:
    """`--device`: 'cpu', 'cuda', or 'auto' (a GPU when torch sees one)."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise SystemExit(f"--device {name}: torch sees no GPU here (use --device cpu)")
    return torch.device(name)


def cpu_state(net: torch.nn.Module) -> dict:
    """The weights as CPU tensors: a checkpoint saved on a GPU loads on the CPU machines that
    export and calibrate it."""
    return {k: v.detach().to("cpu") for k, v in net.state_dict().items()}
