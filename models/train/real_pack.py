"""The real training dice in one file, for a training machine that has no ../shared (the GPU).

The trainers read the real photos from ../shared/realdata, which never travels with the
repository. `write` gathers the real dice exactly as the trainers would (reader_data: the tray
sets' training four-fifths with table patches, type-lurig in the detector's boxes, and the
detector's false alarms on the training frames), leaves out every calibration die (chosen by
its pixels before any compression, train_reader.is_calibration), and stores each 144 px context
patch as a JPEG (quality 85, no rougher than the JPEG the training applies anyway: about 4 KB, so
the whole real set travels with a call's 64 MiB). `read` gives them back as the trainers' Patches,
by part. The trainers take their calibration dice out again by the pixels they read, and a
decoded JPEG has other pixels: so a patch whose decoded pixels would be taken for a calibration
die is encoded again a quality step lower until they are not, and a trainer on the pack trains on
every die in it, as many as on ../shared.

    python -m models.train.real_pack --out work/real_pack.npz

The pack lives in work/ (ignored): it is the real photos' pixels, never committed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from models.train.reader_data import Patches, detector_false_alarms, lurig_patches, real_tray_patches
from models.train.nets import STATES, TYPES

PARTS = ("trays", "lurig", "false_alarms")
QUALITY = 85


def gather(lurig_boxes: Path | None, detector: Path | None) -> dict[str, Patches]:
    """The real dice as the trainers gather them from ../shared, by part."""
    parts = {"trays": real_tray_patches(), "lurig": lurig_patches(lurig_boxes)}
    if detector:
        parts["false_alarms"] = detector_false_alarms(detector)
    return parts


def write(out: Path, parts: dict[str, Patches]) -> dict[str, int]:
    """Write the pack of `parts` less their calibration dice; how many dice each part keeps."""
    from models.train.train_reader import is_calibration

    blobs, ti, fi, si, src, part = [], [], [], [], [], []
    for name, p in parts.items():
        if name not in PARTS:
            raise ValueError(f"unknown part {name!r} (one of {', '.join(PARTS)})")
        for img, t, f, s, so in zip(p.images, p.type_idx, p.face_idx, p.state_idx, p.source):
            if is_calibration(img):
                continue
            blobs.append(_encode_as_training(img, is_calibration))
            ti.append(t), fi.append(f), si.append(s), src.append(so), part.append(name)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, jpeg=np.frombuffer(b"".join(blobs), np.uint8), lengths=np.array([len(b) for b in blobs], np.int64),
             type_idx=np.array(ti, np.int64), face_idx=np.array(fi, np.int64), state_idx=np.array(si, np.int64),
             source=np.array(src, dtype=str), part=np.array(part, dtype=str))
    return {name: part.count(name) for name in parts}


def _encode_as_training(img: np.ndarray, is_calibration) -> bytes:
    """JPEG bytes of `img` whose decoded pixels a trainer keeps for training (see the docstring)."""
    for quality in range(QUALITY, QUALITY - 30, -1):
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if not ok:
            raise RuntimeError("could not encode a patch as JPEG")
        if not is_calibration(cv2.imdecode(buf, cv2.IMREAD_COLOR)):
            return buf.tobytes()
    raise RuntimeError("no JPEG quality gives this patch training pixels")  # 0.08 ** 30: never


def read_pack(path: Path, parts: tuple[str, ...] = PARTS) -> Patches:
    """The pack's dice of `parts` as Patches (the same sources, types, faces and states)."""
    z = np.load(path)
    ends = np.cumsum(z["lengths"])
    starts = ends - z["lengths"]
    out = Patches()
    data = z["jpeg"]
    for i in np.nonzero(np.isin(z["part"], parts))[0]:
        img = cv2.imdecode(data[starts[i]:ends[i]], cv2.IMREAD_COLOR)
        t, f, s = int(z["type_idx"][i]), int(z["face_idx"][i]), int(z["state_idx"][i])
        out.add(img, TYPES[t], None if f < 0 else f + 1, None if s < 0 else STATES[s], str(z["source"][i]))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("work/real_pack.npz"))
    ap.add_argument("--lurig-boxes", type=Path, default=Path("work/lurig_boxes.json"),
                    help="the detector's boxes on type-lurig (models.train.single_boxes)")
    ap.add_argument("--detector", type=Path, default=Path("models/detector.onnx"),
                    help="whose false alarms on the training frames to pack as 'none'")
    args = ap.parse_args(argv)
    counts = write(args.out, gather(args.lurig_boxes, args.detector))
    print(f"{args.out}: {counts}, {args.out.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
