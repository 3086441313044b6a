"""Export trained networks to ONNX with their metadata (classes, normalisation, calibration).

    python -m models.train.export detector work/detector.pt models/detector.onnx
    python -m models.train.export reader work/reader.pt models/reader.onnx --meta work/reader_calib.json
    python -m models.train.export top-face work/reader_top.pt models/reader_top.onnx
    python -m models.train.export top-face work/reader_top_d6.pt models/reader_top_d6.onnx
    python -m models.train.export calibration models/reader.onnx work/reader.onnx --meta work/reader_calib.json
    python -m models.train.export lean work/lean.pt models/reader_lean.onnx
    python -m models.train.export lean-split models/reader_lean.onnx models/reader_lean.onnx

`lean` also writes the lean look's head beside it (`lean-split`: NAME_head.onnx beside NAME.onnx, the
two layers told the angle) and gives the look a second output, its features: a camera guess asks the look
under 87 set-ups, and with the head apart a crop turned one way is run once, however many set-ups
turn it so (reader.vision.lean.LeanLook.p_leaning_under). `lean-split` does that to an exported
look (the weights untouched, its logits the same bit for bit) and writes the result to OUT.

`calibration` keeps an exported reader's network as it is and gives it new calibration metadata
(the torch weights need not exist: work/ does not survive a fresh machine).

A second look's die types and cuts come from the weights' .meta.json (train_top_face writes it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import onnx
import torch

from models.train.nets import STATES, TYPES, DiceDetector, DiceReaderNet, LeanNet, load_reader_state
from models.train.train_top_face import TOP_PER_SIDE
from reader.vision.crops import CROP, CROP_PER_SIDE

NORMALISATION = "BGR uint8 / 255 -> float32, NCHW; no mean/std"
# The lean look's second output: the flattened 6x6 x 16 map its head takes with the slant (the one
# Flatten node of its graph).
LEAN_FEATURES = "lean_features"


def head_path(lean: Path) -> Path:
    """Where a lean look's head goes: beside it, `_head` before the suffix (models/reader_lean_head.onnx)."""
    return lean.with_name(lean.stem + "_head.onnx")


def split_lean(lean: Path, out: Path) -> Path:
    """Write the lean look at `lean` to `out` with its features as a second output (LEAN_FEATURES),
    and its head (features N x 576, slant N x 1 -> lean_logits) to head_path(out), the head's weights
    the look's own; the head's path. Idempotent: a look that has the output already keeps it."""
    from onnx import helper, utils

    model = onnx.load(str(lean))
    graph = model.graph
    outputs = [o.name for o in graph.output]
    if LEAN_FEATURES not in outputs:
        flatten = [n for n in graph.node if n.op_type == "Flatten"]
        if len(flatten) != 1:
            raise SystemExit(f"{lean}: expected one Flatten node before the lean look's head, found {len(flatten)}")
        source = flatten[0].output[0]
        graph.node.append(helper.make_node("Identity", [source], [LEAN_FEATURES], name="lean_features"))
        graph.output.append(helper.make_tensor_value_info(LEAN_FEATURES, onnx.TensorProto.FLOAT, ["n", 576]))
    source = next(n.input[0] for n in graph.node if n.output[0] == LEAN_FEATURES)
    meta = {p.key: json.loads(p.value) for p in model.metadata_props}
    meta["features_output"] = LEAN_FEATURES
    save_with_metadata(model, out, meta)
    head = head_path(out)
    utils.extract_model(str(out), str(head), [source, "slant"], ["lean_logits"], check_model=True)
    part = onnx.load(str(head))
    part.graph.input[0].name = LEAN_FEATURES  # the name the look's output has: one name for one tensor
    for node in part.graph.node:
        node.input[:] = [LEAN_FEATURES if i == source else i for i in node.input]
    save_with_metadata(part, head, {"normalisation": "none: the lean look's lean_features output, float32",
                                    "role": "the lean look's head (reader.vision.lean): its features and the "
                                            "slant (degrees off vertical, N x 1) in, lean_logits out",
                                    "head_of": out.name, "version": meta.get("version")})
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) and {head} ({head.stat().st_size / 1e6:.2f} MB)")
    return head


def export_lean(weights: Path, out: Path, meta: dict) -> None:
    """The lean look (reader.vision.lean): a crop turned so the camera's foot is below it, and the
    angle the camera sees it at, in; leaning logits (flat, leaning) out."""
    if "lean_threshold" not in meta:
        raise SystemExit("export lean: no lean_threshold (train_lean writes it beside the weights, OUT.meta.json)")
    net = LeanNet()
    net.load_state_dict(torch.load(weights, map_location="cpu"))
    net.eval()
    x, a = torch.zeros(4, 3, CROP, CROP), torch.zeros(4, 1)
    torch.onnx.export(net, (x, a), str(out), input_names=["image", "slant"], output_names=["lean_logits"],
                      dynamic_axes={"image": {0: "n"}, "slant": {0: "n"}, "lean_logits": {0: "n"}},
                      opset_version=17, dynamo=False)
    base = {"crop": CROP, "crop_per_side": CROP_PER_SIDE, "states": ["flat", "leaning"],
            "role": "the lean look (reader.vision.lean): the reader's crop turned so the camera's foot is "
                    "below the die; slant: degrees off vertical the camera sees it at, N x 1"}
    save_with_metadata(onnx.load(str(out)), out, {"normalisation": NORMALISATION, **base, **meta})
    split_lean(out, out)


def export(kind: str, weights: Path, out: Path, meta: dict) -> None:
    net = DiceDetector() if kind == "detector" else DiceReaderNet()
    state = torch.load(weights, map_location="cpu")
    if kind == "detector":
        net.load_state_dict(state)
    else:
        load_reader_state(net, state)
    net.eval()
    if kind == "detector":
        x = torch.zeros(1, 3, 352, 640)
        names = ["heads"]
        dyn = {"image": {0: "n", 2: "h", 3: "w"}, "heads": {0: "n", 2: "h4", 3: "w4"}}
        base = {"stride": 4, "input_long_side": 640, "threshold": 0.3,
                "outputs": "heads[:,0]=centre logit, [1:3]=log(w/4),log(h/4), [3:5]=offset logit"}
    else:
        x = torch.zeros(4, 3, CROP, CROP)
        names = ["type_logits", "face_logits", "state_logits"]
        dyn = {"image": {0: "n"}, "type_logits": {0: "n"}, "face_logits": {0: "n"}, "state_logits": {0: "n"}}
        base = {"types": list(TYPES), "states": list(STATES), "crop": CROP, "crop_per_side": CROP_PER_SIDE,
                "faces": "face_logits[:, v-1] for value v; only the first faces(die) are meaningful"}
        if kind == "top-face":  # the reader's network taught the face alone on the die's middle
            base.update({"crop_per_side": TOP_PER_SIDE, "role": "a second look (reader.vision.topface) at the "
                         "die types in 'dice' (when absent: a numeral die's top face, d8-d20), cut to 'cut_by_die' "
                         "or crop_per_side x the box; only face_logits are trained"})
            if "seen" in meta:  # train_top_face --seen: the whole die, turned to the camera's foot
                base.update({"crop_per_side": meta["seen"]["per_side"], "role": "the seen look (reader.vision.seen) "
                             "at the die types in 'dice': the die cut crop_per_side x its box, turned so that the "
                             "camera's foot is below it; only face_logits are trained"})
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, x, str(out), input_names=["image"], output_names=names, dynamic_axes=dyn,
                      opset_version=17, dynamo=False)
    save_with_metadata(onnx.load(str(out)), out, {"normalisation": NORMALISATION, **base, **meta})
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")


def save_with_metadata(model, out: Path, meta: dict) -> None:
    """Replace the model's metadata by `meta` (each value JSON) and save it to `out`."""
    del model.metadata_props[:]
    for k, v in meta.items():
        p = model.metadata_props.add()
        p.key = k
        p.value = json.dumps(v)
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))


def restamp(model_path: Path, out: Path, meta: dict) -> None:
    """The same network with its metadata updated by `meta` (a new calibration, a new version)."""
    model = onnx.load(str(model_path))
    save_with_metadata(model, out, {**{p.key: json.loads(p.value) for p in model.metadata_props}, **meta})
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB), the network of {model_path}")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["detector", "reader", "top-face", "calibration", "lean", "lean-split"])
    ap.add_argument("weights", type=Path, help="torch weights (.pt); for calibration, the exported reader (.onnx); "
                    "for lean-split, the exported lean look (.onnx)")
    ap.add_argument("out", type=Path)
    ap.add_argument("--meta", type=Path, default=None, help="JSON file of extra metadata (calibration)")
    ap.add_argument("--version", default="dev")
    args = ap.parse_args(argv)
    if args.kind == "lean-split":
        split_lean(args.weights, args.out)
        return
    meta = {}
    trained = args.weights.with_suffix(".meta.json")  # what train_top_face says of its cuts, train_lean of its threshold
    if args.kind in ("top-face", "lean") and trained.is_file():
        meta.update(json.loads(trained.read_text()))
    meta.update(json.loads(args.meta.read_text()) if args.meta else {})
    if args.kind == "calibration":
        if args.version != "dev":
            meta["version"] = args.version
        restamp(args.weights, args.out, meta)
        return
    meta.setdefault("version", args.version)
    if args.kind == "lean":
        export_lean(args.weights, args.out, meta)
        return
    export(args.kind, args.weights, args.out, meta)


if __name__ == "__main__":
    main()
