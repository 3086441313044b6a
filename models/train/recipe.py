"""The one command that makes models/detector.onnx, reader.onnx and its second looks again, from scratch.

    pip install torch==2.13.0 onnx moderngl pillow     # training extras (CPU build)
    python -m reader.synth.bulk crops  --out work/synth/crops  --count 30000 --seed 1
    python -m reader.synth.bulk crops  --out work/synth/numerals --count 30000 --seed 11 --mix numerals
    python -m reader.synth.bulk crops  --out work/synth/d10 --count 4902 --seed 31 --mix d10
    python -m reader.synth.bulk crops  --out work/synth/d6_33 --count 2600 --seed 33 --mix d6
    python -m reader.synth.bulk crops  --out work/synth/d6_34 --count 2600 --seed 34 --mix d6
    python -m reader.synth.bulk crops  --out work/synth/d6n_36 --count 1500 --seed 36 --mix d6-numerals
    python -m reader.synth.bulk crops  --out work/synth/d6n_37 --count 1500 --seed 37 --mix d6-numerals
    python -m reader.synth.bulk scenes --out work/synth/scenes --count 1500 --seed 2
    # tray frames whose dice the looks are taught on last (reader v15)
    python -m reader.synth.bulk scenes --out work/synth/frames61 --count 1200 --seed 61
    python -m reader.synth.bulk scenes --out work/synth/frames62s --count 1500 --seed 62 --width 640 --height 360
    # and two more, for the whole look taught on frames (--frames-minutes, session 28)
    python -m reader.synth.bulk scenes --out work/synth/frames63 --count 800 --seed 63
    python -m reader.synth.bulk scenes --out work/synth/frames64s --count 1000 --seed 64 --width 640 --height 360
    # rendered for calibration alone (models/train/calib_set.py)
    python -m reader.synth.bulk crops  --out work/synth/calib_all --count 2400 --seed 41
    python -m reader.synth.bulk crops  --out work/synth/calib_num --count 2300 --seed 42 --mix numerals
    python -m reader.synth.bulk scenes --out work/synth/calib_scenes51 --count 150 --seed 51
    python -m reader.synth.bulk scenes --out work/synth/calib_scenes52 --count 150 --seed 52
    # reader v9's temperatures were also fitted on crops seeds 43 (all) and 44 (numerals), frames 53, 54;
    # the lean thresholds (calibrate_lean_thresholds, reader v17) are set on all eight
    python -m reader.synth.bulk crops  --out work/synth/calib_all43 --count 2400 --seed 43
    python -m reader.synth.bulk crops  --out work/synth/calib_num44 --count 2300 --seed 44 --mix numerals
    python -m reader.synth.bulk scenes --out work/synth/calib_scenes53 --count 150 --seed 53
    python -m reader.synth.bulk scenes --out work/synth/calib_scenes54 --count 150 --seed 54
    # at the product's size (session 35), and for the detector v4 candidate (--detector-tune-scenes, session 38)
    python -m reader.synth.bulk scenes --out work/synth/calib_scenes55 --count 150 --seed 55 --width 1280 --height 720
    python -m reader.synth.bulk scenes --out work/synth/calib_scenes56 --count 150 --seed 56 --width 1280 --height 720
    python -m reader.synth.bulk scenes --out work/synth/calib_scenes57 --count 150 --seed 57 --width 1280 --height 720
    python -m reader.synth.bulk scenes --out work/synth/calib_scenes58 --count 150 --seed 58 --width 1280 --height 720
    # for the lean look (reader_lean.onnx): crops whose camera angle is known
    python -m reader.synth.bulk crops  --out work/synth/lean101 --count 3091 --seed 101 --lean
    python -m reader.synth.bulk crops  --out work/synth/lean102 --count 4956 --seed 102 --lean
    python -m reader.synth.bulk crops  --out work/synth/lean103 --count 284 --seed 103 --lean
    python -m reader.synth.bulk crops  --out work/synth/tr71 --count 40000 --seed 71
    # ... and for its third stage, with the real trays (lean look v2, sessions 36-37)
    python -m reader.synth.bulk crops  --out work/synth/lean601 --count 2000 --seed 601 --lean
    python -m reader.synth.bulk crops  --out work/synth/lean602 --count 2000 --seed 602 --lean
    # ... and for the above look (reader_above.onnx, lean look v3, session 60)
    python -m reader.synth.bulk crops  --out work/synth/lean6001 --count 1500 --seed 6001 --lean
    python -m reader.synth.bulk crops  --out work/synth/lean6002 --count 1500 --seed 6002 --lean
    # for the seen look (reader_seen.onnx): numeral dice whose camera angle is known, to learn from ...
    python -m reader.synth.bulk crops  --out work/synth/lean20_111 --count 4000 --seed 111 --lean --mix d20
    python -m reader.synth.bulk crops  --out work/synth/lean20_114 --count 4000 --seed 114 --lean --mix d20
    python -m reader.synth.bulk crops  --out work/synth/leanN_113 --count 4000 --seed 113 --lean --mix numerals
    python -m reader.synth.bulk crops  --out work/synth/leanN_117 --count 1704 --seed 117 --lean --mix numerals
    # ... and to calibrate it on
    python -m reader.synth.bulk crops  --out work/synth/lean20_112 --count 4000 --seed 112 --lean --mix d20
    python -m reader.synth.bulk crops  --out work/synth/leanN_116 --count 3000 --seed 116 --lean --mix numerals
    python -m reader.synth.bulk crops  --out work/synth/leanN_118 --count 1600 --seed 118 --lean --mix numerals
    python -m reader.synth.bulk crops  --out work/synth/leanN_119 --count 1600 --seed 119 --lean --mix numerals
    # frames of printed marks, no die (reader v16's print check)
    python -m reader.synth.prints --out work/synth/prints81 --count 400 --seed 81
    python -m reader.synth.prints --out work/synth/prints82s --count 300 --seed 82 --width 640 --height 360
    python -m reader.synth.prints --out work/synth/prints83 --count 500 --seed 83
    python -m reader.synth.prints --out work/synth/prints84s --count 400 --seed 84 --width 640 --height 360
    # percentile D10 and the dice they are told from (reader v25's percentile check)
    python -m reader.synth.bulk crops  --out work/synth/tens_7810 --count 2500 --seed 7810 --mix d10 --tens --numbers varied --glyphs varied
    python -m reader.synth.bulk crops  --out work/synth/plain_7810 --count 2500 --seed 7810 --mix d10 --numbers varied --glyphs varied
    python -m reader.synth.bulk crops  --out work/synth/num_7811 --count 2500 --seed 7811 --mix numerals --numbers varied --glyphs varied
    python -m reader.synth.bulk crops  --out work/synth/d12_7814 --count 1500 --seed 7814 --mix d12 --numbers varied --glyphs varied
    python -m reader.synth.bulk crops  --out work/synth/d20_7815 --count 1500 --seed 7815 --mix d20 --numbers varied --glyphs varied
    python -m models.train.recipe [--detector-minutes 127] [--reader-minutes 356] [--top-face-minutes 70] \
        [--pips-look-minutes 70] [--pips-look-again-minutes 40] [--pips-look-blurred-minutes 30] \
        [--d10-look-minutes 40] [--d10-look-again-minutes 50] [--lean-look-minutes 30] \
        [--lean-look-real-minutes 20] [--seen-look-minutes 20 45 42] [--lean-look-trays-minutes 12] \
        [--above-look-minutes 12] \
        [--frames-minutes 0 0] [--detector-tune-minutes 0] \
        [--print-check-sure 0.97] [--percentile-check-sure 0.92] [--lean-threshold-crops DIR=SEED:MIX ...]

Steps: train the detector on real tray frames (training four-fifths) and rendered scenes; export
it; find the die in each single-die photo with it; train the reader on real dice, rendered dice,
type-only photos, table patches and the detector's own false alarms ("none"); export; start the
second look at the top face from the reader's weights and train it (train_top_face), then again on
the dice of rendered tray frames too (--train-scenes: small, oblique dice, reader v15); export it;
the same for the D6's own look (train_top_face --dice d6 --cut d6=1.15, reader_top_d6.onnx; then
again from its own weights, half its draws real D6: reader v11; then a third time, a tenth of its
crops out of focus, with numeral D6 rendered alone: reader v12) and,
from the numeral look's weights, the D10's (--dice d10, reader_top_d10.onnx), then the D10's look
again from its own weights, half its draws real D10 (reader v10); gather the calibration
dice (calib_set: the held-back 8% of every training source, crops and tray frames rendered for
calibration alone, type-lurig's faces read by eye) and calibrate the four together on them; export
the reader again with the calibration in the ONNX metadata (the D6's look weighted 0.75 against
the whole look: reader v12); the lean look from the reader's features (train_lean), taught
on with tray-d6-nell's dice as flat ones, exported with its threshold; the seen look from the
reader's weights (train_top_face --seen), in three stages (the D20 alone, then every numeral die, then
with the real trays' D8 and D10 too), calibrated behind the lean look (calibrate_seen); the lean look
taught on a third time, its real draws the three real trays' training dice as flat ones (lean look v2;
after the seen look, as the committed models were made: the seen look was calibrated behind v1); v2 taught
on again with type-lurig's photos from above and from 45 degrees too, each flat at its own angle and
leaning at the other (lean look v3, the above look: reader_above.onnx, which reader.vision.above asks
about a D20 read with no camera described; session 60); last, if asked
(--frames-minutes), the whole look taught on from its weights with the dice of rendered tray frames
too, in two stages (the first two frame sets, then all four), calibrated keeping the reader's
thresholds (raised where it would accept more wrong calibration dice of a type), the whole look it
was taught from kept beside it as its state check (reader_state.onnx); and last of all the print check
(train_print_check, reader v16): a small network on the whole look's features that tells the
detector's finds on frames of printed marks from dice, added to reader.onnx as a fourth output; a
find it is sure of is refused as print; then the percentile check (train_percentile_check, reader v25), five
such small networks that tell a percentile D10 ("00" to "90") from other dice, their mean a fifth output;
then (reader v20) the D20's own look without a camera, taken from
the models folder when it is there (--d20-look), calibrated for the D20 alone with the rest kept; then
(reader v17) the thresholds for a numeral die refused for low confidence, decided again with the lean look's p(leaning) where a described camera sees it
within its type's angle (calibrate_lean_thresholds), into reader.onnx's metadata; and, if asked
(--detector-tune-minutes), at the very end the detector taught on from its own weights with oblique
1280x720 frames (session 38's v4 candidate, not committed). Timings are for
two CPU cores. The committed models were trained in stages of the same recipe (models/*.md say which; a stage may
start from a committed ONNX model, --init models/X.onnx, when the checkpoints are gone); one run of
the summed minutes stands in for them, close but not bit-identical.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from models.train import (calib_set, calibrate, calibrate_lean_thresholds, calibrate_seen, candidate, export,
                          single_boxes, train_detector, train_lean, train_percentile_check, train_print_check, train_reader,
                          train_top_face)
from reader.vision.onnx_model import OnnxModel


def again(weights: Path, minutes: float, seed: int, flags: list[str], synth: list[Path],
          suffix: str = "_again", real_share: str | None = "0.5") -> Path:
    """A look taught again from its own weights, half its draws real dice, at a lower learning
    rate: its first stage learnt the faces mostly from renders, this one leans on real dice
    (readers v10 and v11; v12's D6 look a third time, out of focus). `flags`: the look's own
    (--dice, --cut, --blur). `real_share` None: the trainer's own shares. Returns the new weights,
    beside the old as NAME`suffix`.pt."""
    out = weights.with_name(weights.stem + suffix + ".pt")
    train_top_face.main(["--minutes", str(minutes), "--init", str(weights), "--lr", "3e-4",
                         *(["--real-share", real_share] if real_share else []),
                         "--out", str(out), "--seed", str(seed)] + flags +
                        [a for c in synth if c.is_dir() for a in ("--synth", str(c))])
    return out


def on_frames(frames: list[Path], share: float = 0.5) -> list[str]:
    """train_top_face's flags for a look taught on the dice of rendered tray frames, `share` of its
    rendered draws (reader v15: small dice seen at an angle, as the detector hands them over, where
    the crops frame one die large)."""
    return [a for f in frames if f.is_dir() for a in ("--train-scenes", str(f))] + ["--scene-share", str(share)]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--detector-minutes", type=float, default=127)
    ap.add_argument("--reader-minutes", type=float, default=356)
    ap.add_argument("--top-face-minutes", type=float, default=70)
    ap.add_argument("--pips-look-minutes", type=float, default=70, help="the D6's second look (0: none)")
    ap.add_argument("--d10-look-minutes", type=float, default=40, help="the D10's second look (0: none)")
    ap.add_argument("--pips-look-again-minutes", type=float, default=40,
                    help="the D6's look taught again from its own weights, half its draws real D6 at a lower "
                         "learning rate (reader v11: tray-d6-nell end-to-end 94.6 -> 96.0%%; 0: not)")
    ap.add_argument("--d6-crops", type=Path, nargs="*", default=[Path("work/synth/d6_33"), Path("work/synth/d6_34")],
                    help="rendered D6 alone (--mix d6), for the D6's look taught again")
    ap.add_argument("--pips-look-blurred-minutes", type=float, default=30,
                    help="the D6's look taught a third time, a tenth of its crops out of focus, with numeral D6 "
                         "rendered alone beside --d6-crops (reader v12: blurred tray-mixed-bartek accepted wrong "
                         "9 -> 2; 0: not)")
    ap.add_argument("--d6-numeral-crops", type=Path, nargs="*",
                    default=[Path("work/synth/d6n_36"), Path("work/synth/d6n_37")],
                    help="numeral D6 rendered alone (--mix d6-numerals, a third with a plain 6)")
    ap.add_argument("--d6-look-weight", type=float, default=0.75,
                    help="the D6's look's weight against the whole look in the pooling (reader v12; v11 0.5)")
    ap.add_argument("--d10-look-again-minutes", type=float, default=50,
                    help="the D10's look taught again from its own weights, half its draws real D10 at a lower "
                         "learning rate (reader v10: bartek's D10 end-to-end 190 -> 193 of 204; 0: not)")
    ap.add_argument("--d10-crops", type=Path, default=Path("work/synth/d10"), help="rendered D10 alone (--mix d10)")
    ap.add_argument("--calib-renders", type=Path, nargs="*",
                    default=[Path("work/synth/calib_all"), Path("work/synth/calib_num")],
                    help="crops rendered for calibration alone")
    ap.add_argument("--calib-scenes", type=Path, nargs="*",
                    default=[Path("work/synth/calib_scenes51"), Path("work/synth/calib_scenes52")],
                    help="tray frames rendered for calibration alone")
    ap.add_argument("--synth-crops", type=Path, action="append", default=None,
                    help="folders of rendered crops (default: work/synth/crops and work/synth/numerals)")
    ap.add_argument("--synth-scenes", type=Path, default=Path("work/synth/scenes"))
    ap.add_argument("--frames", type=Path, nargs="*",
                    default=[Path("work/synth/frames61"), Path("work/synth/frames62s"), Path("work/synth/frames63"),
                             Path("work/synth/frames64s")],
                    help="rendered tray frames (bulk scenes, seeds apart from the calibration's) whose dice the "
                         "looks are taught on last")
    ap.add_argument("--numeral-look-frames-minutes", type=float, default=35,
                    help="the numeral look taught on from its own weights with the --frames dice, half its rendered "
                         "draws (reader v15: rendered stills 403 -> 411 right, no more wrong; 0: not)")
    ap.add_argument("--lean-look-minutes", type=float, default=30,
                    help="the lean look (models/reader_lean.md), from the reader's features (0: none)")
    ap.add_argument("--lean-look-real-minutes", type=float, default=20,
                    help="the lean look taught on, a fifth of its draws tray-d6-nell's dice as flat dice seen by a "
                         "camera 70 degrees wide straight above (0: not)")
    ap.add_argument("--lean-crops", type=Path, nargs="*",
                    default=[Path("work/synth/lean101"), Path("work/synth/lean102"), Path("work/synth/lean103")],
                    help="crops rendered for the lean look (bulk crops --lean)")
    ap.add_argument("--lean-replay", nargs="*", default=["work/synth/tr71=71"], metavar="DIR=SEED",
                    help="plain crops (mix all) whose camera angles are replayed from their seed")
    ap.add_argument("--lean-look-trays-minutes", type=float, default=12,
                    help="the lean look taught on a third time, lr 2e-4, with tray-d6-nell's, tray-mixed-bartek's and "
                         "desk-d6-matteo's training dice as flat dice seen straight above (lean look v2; 0: not)")
    ap.add_argument("--lean-trays-crops", type=Path, nargs="*",
                    default=[Path("work/synth/lean601"), Path("work/synth/lean602")],
                    help="crops rendered for the lean look's third stage (bulk crops --lean)")
    ap.add_argument("--above-look-minutes", type=float, default=12,
                    help="the above look (reader_above.onnx, lean look v3): the lean look v2 taught on, lr 2e-4, with "
                         "type-lurig's training photos from above and from 45 degrees beside the three trays' dice, "
                         "for reader.vision.above alone (0: none)")
    ap.add_argument("--above-crops", type=Path, nargs="*",
                    default=[Path("work/synth/lean6001"), Path("work/synth/lean6002")],
                    help="crops rendered for the above look (bulk crops --lean)")
    ap.add_argument("--seen-look-minutes", type=float, nargs=3, default=[20, 45, 42], metavar=("D20", "NUMERALS", "REAL"),
                    help="the seen look (models/reader_seen.md) in three stages: the D20 alone, every numeral die, "
                         "then a quarter of the D8's and D10's draws real (v1 had no third stage, v2 has); needs the "
                         "lean look (0 0 0: none)")
    ap.add_argument("--seen-crops", type=Path, nargs="*",
                    default=[Path(f"work/synth/{n}") for n in ("lean20_111", "lean20_114", "leanN_113", "leanN_117")],
                    help="crops rendered for the seen look to learn from (bulk crops --lean; the first is the D20 stage's)")
    ap.add_argument("--seen-calib", type=Path, nargs="*",
                    default=[Path(f"work/synth/{n}") for n in ("leanN_116", "leanN_118", "leanN_119", "lean20_112")],
                    help="crops rendered for the seen look's calibration alone (bulk crops --lean)")
    ap.add_argument("--frames-minutes", type=float, nargs=2, default=[0, 0], metavar=("FIRST", "SECOND"),
                    help="the whole look taught on with the --frames dice, two stages: on the first two frame sets, "
                         "then on all, its state checked by the whole look it was taught from (session 28 tried 50 "
                         "60, not committed: models/reader.md; default 0 0, none)")
    ap.add_argument("--prints", type=Path, nargs="*",
                    default=[Path(f"work/synth/{n}") for n in ("prints81", "prints82s", "prints83", "prints84s")],
                    help="frames of printed marks (python -m reader.synth.prints) for the print check")
    ap.add_argument("--tens", type=Path, nargs="*", default=[Path("work/synth/tens_7810")],
                    help="crops of percentile D10 (bulk crops --mix d10 --tens) for the percentile check; none: no check")
    ap.add_argument("--tens-against", type=Path, nargs="*",
                    default=[Path(f"work/synth/{n}") for n in ("plain_7810", "num_7811", "d12_7814", "d20_7815")],
                    help="crops of the dice the percentile check tells them from (the same seed without --tens first)")
    ap.add_argument("--percentile-check-sure", type=float, default=0.92,
                    help="the percentile check's mean probability that refuses a die (reader v25); 0: no check")
    ap.add_argument("--lean-threshold-crops", nargs="*",
                    default=["work/synth/calib_all=41:all", "work/synth/calib_num=42:numerals",
                             "work/synth/calib_all43=43:all", "work/synth/calib_num44=44:numerals"],
                    help="crops rendered for calibration alone, DIR=SEED:MIX, for the lean thresholds "
                         "(calibrate_lean_thresholds; reader v17); none: not set")
    ap.add_argument("--lean-threshold-scenes", type=Path, nargs="*",
                    default=[Path(f"work/synth/calib_scenes{s}") for s in (51, 52, 53, 54)],
                    help="tray frames rendered for calibration alone, for the same")
    ap.add_argument("--lean-rise", type=float, default=0.4,
                    help="with the camera described, the numeral looks cut where the top face is seen, this x the "
                         "box side x sin(angle) off the box's middle (reader v18; 0: about the middle, as v17)")
    ap.add_argument("--lean-look", default="reader_near_d20.onnx",
                    help="the D20's look with the camera described, in the models folder (reader v18; models/"
                         "reader.md, \"Session 35\": taught on a GPU and the CPU, not by this recipe); skipped when absent")
    ap.add_argument("--d20-look", default="reader_top_d20.onnx",
                    help="the D20's look without a described camera, in the models folder (reader v20; models/"
                         "reader.md, \"Session 40\": session 34's look, taught on a GPU and the CPU, not by this "
                         "recipe): pooled at weight 1.0, the D20's threshold set by the rule, the rest kept; "
                         "skipped when absent")
    ap.add_argument("--lean-reference", type=Path, default=None, metavar="DIR",
                    help="a release the lean thresholds may not do worse than (calibrate_lean_thresholds --reference; "
                         "reader v18 was set against v17's models/)")
    ap.add_argument("--print-check-sure", type=float, default=0.97,
                    help="how sure the print check must be to refuse a find as print (reader v16: the lowest "
                         "level that changed no reading of the sets measured; 0: no print check)")
    ap.add_argument("--detector-tune-minutes", type=float, default=0,
                    help="last, the detector taught on from its weights with --detector-tune-scenes (session 38's v4 "
                         "candidate, 35: fewer boxes on one face of a big oblique die, fewer small far dice found; "
                         "not committed: models/detector.md); 0: v3 as trained first")
    ap.add_argument("--detector-tune-scenes", type=Path, nargs="*",
                    default=[Path(f"work/synth/calib_scenes{s}") for s in (55, 56, 57, 58)],
                    help="tray frames at 1280x720 for it (rendered for calibration and never used for it: models/reader.md, "
                         "\"Session 35\")")
    ap.add_argument("--work", type=Path, default=Path("work"))
    ap.add_argument("--models", type=Path, default=Path("models"))
    # each model keeps its own version line (the cards name them): detector v3, reader v12
    ap.add_argument("--detector-version", default="3")
    ap.add_argument("--reader-version", default="12")
    args = ap.parse_args(argv)
    crops = args.synth_crops or [Path("work/synth/crops"), Path("work/synth/numerals")]
    w, m = args.work, args.models
    w.mkdir(parents=True, exist_ok=True)

    train_detector.main(["--minutes", str(args.detector_minutes), "--out", str(w / "detector.pt")] +
                        (["--synth", str(args.synth_scenes)] if args.synth_scenes.is_dir() else []))
    export.main(["detector", str(w / "detector.pt"), str(m / "detector.onnx"), "--version", args.detector_version])
    single_boxes.main([str(m / "detector.onnx"), "type-lurig", "--out", str(w / "lurig_boxes.json")])
    train_reader.main(["--minutes", str(args.reader_minutes), "--out", str(w / "reader.pt"),
                       "--lurig-boxes", str(w / "lurig_boxes.json"),
                       "--hard-negatives", str(m / "detector.onnx")] +
                      (["--scenes", str(args.synth_scenes)] if args.synth_scenes.is_dir() else []) +
                      [a for c in crops if c.is_dir() for a in ("--synth", str(c))])
    export.main(["reader", str(w / "reader.pt"), str(w / "reader_uncalibrated.onnx"), "--version", args.reader_version])
    train_top_face.main(["--minutes", str(args.top_face_minutes), "--init", str(w / "reader.pt"),
                         "--out", str(w / "reader_top.pt")] + [a for c in crops if c.is_dir() for a in ("--synth", str(c))])
    top = w / "reader_top.pt"
    if args.numeral_look_frames_minutes > 0 and any(f.is_dir() for f in args.frames[:2]):
        # beside the frames, the seed-1 crops (reader v15 was taught on their first 6,000)
        # (the first two frame sets: the last two were rendered for the whole look, after v15)
        top = again(top, args.numeral_look_frames_minutes, 271, on_frames(args.frames[:2]), [Path("work/synth/crops")],
                    suffix="_frames", real_share=None)
    export.main(["top-face", str(top), str(m / "reader_top.onnx"), "--version", args.reader_version])
    looks = ["--top-face", str(m / "reader_top.onnx")]
    if args.pips_look_minutes > 0:
        train_top_face.main(["--minutes", str(args.pips_look_minutes), "--init", str(w / "reader.pt"),
                             "--out", str(w / "reader_top_d6.pt"), "--dice", "d6", "--cut", "d6=1.15"] +
                            [a for c in crops if c.is_dir() for a in ("--synth", str(c))])
        d6 = w / "reader_top_d6.pt"
        if args.pips_look_again_minutes > 0:  # on D6 rendered alone, pips and numerals
            d6 = again(d6, args.pips_look_again_minutes, 18, ["--dice", "d6", "--cut", "d6=1.15"], args.d6_crops)
        if args.pips_look_blurred_minutes > 0:
            d6 = again(d6, args.pips_look_blurred_minutes, 23, ["--dice", "d6", "--cut", "d6=1.15", "--blur", "0.1"],
                       args.d6_crops + args.d6_numeral_crops, suffix="_blurred")
        export.main(["top-face", str(d6), str(m / "reader_top_d6.onnx"),
                     "--version", args.reader_version])
        looks += ["--top-face", str(m / "reader_top_d6.onnx"),
                  "--look-weight", f"reader_top_d6.onnx={args.d6_look_weight}"]
    if args.d10_look_minutes > 0:
        train_top_face.main(["--minutes", str(args.d10_look_minutes), "--init", str(w / "reader_top.pt"),
                             "--lr", "5e-4", "--out", str(w / "reader_top_d10.pt"), "--dice", "d10"] +
                            [a for c in [args.d10_crops] if c.is_dir() for a in ("--synth", str(c))])
        d10 = w / "reader_top_d10.pt"
        if args.d10_look_again_minutes > 0:
            d10 = again(d10, args.d10_look_again_minutes, 16, ["--dice", "d10"], [args.d10_crops])
        export.main(["top-face", str(d10), str(m / "reader_top_d10.onnx"),
                     "--version", args.reader_version])
        looks += ["--top-face", str(m / "reader_top_d10.onnx"), "--top-face-dice", "d8", "d12", "d20"]
    calib_set.main(["--out", str(w / "calibration.npz"), "--detector", str(m / "detector.onnx"),
                    "--lurig-boxes", str(w / "lurig_boxes.json"), "--lurig-faces", "models/train/lurig_values.json"] +
                   [a for c in crops if c.is_dir() for a in ("--synth", str(c))] +
                   [a for c in args.calib_renders if c.is_dir() for a in ("--renders", str(c))] +
                   [a for c in args.calib_scenes if c.is_dir() for a in ("--scenes", str(c))])
    calibrate.main([str(w / "reader_uncalibrated.onnx"), str(w / "calibration.npz"),
                    "--out", str(w / "reader_calib.json")] + looks)
    export.main(["reader", str(w / "reader.pt"), str(m / "reader.onnx"), "--meta", str(w / "reader_calib.json"),
                 "--version", args.reader_version])
    if args.lean_look_minutes > 0:
        lean_data = ([a for c in args.lean_crops if c.is_dir() for a in ("--synth", str(c))] +
                     [a for r in args.lean_replay for a in ("--replay", r)])
        train_lean.main(["--minutes", str(args.lean_look_minutes), "--init", str(m / "reader.onnx"),
                         "--out", str(w / "lean.pt")] + lean_data)
        lean = w / "lean.pt"
        if args.lean_look_real_minutes > 0:
            train_lean.main(["--minutes", str(args.lean_look_real_minutes), "--resume", str(lean), "--lr", "3e-4",
                             "--seed", "1", "--real", "tray-d6-nell=70", "--out", str(w / "lean_real.pt")] + lean_data)
            lean = w / "lean_real.pt"
        export.main(["lean", str(lean), str(m / "reader_lean.onnx"), "--version", "1"])
    if sum(args.seen_look_minutes) > 0 and (m / "reader_lean.onnx").is_file():
        seen_look(args, w, m)
    trays = [c for c in args.lean_trays_crops if c.is_dir()]
    if args.lean_look_trays_minutes > 0 and trays and (m / "reader_lean.onnx").is_file():
        # v1 refused a quarter to a half of the real flat dice it was not taught (models/reader_lean.md)
        train_lean.main(["--minutes", str(args.lean_look_trays_minutes), "--resume", str(m / "reader_lean.onnx"),
                         "--lr", "2e-4", "--real", "tray-d6-nell=70", "--real", "tray-mixed-bartek=70",
                         "--real", "desk-d6-matteo=70", "--out", str(w / "lean_trays.pt")] +
                        [a for c in trays for a in ("--synth", str(c))])
        export.main(["lean", str(w / "lean_trays.pt"), str(m / "reader_lean.onnx"), "--version", "2"])
    above_crops = [c for c in args.above_crops if c.is_dir()]
    if args.above_look_minutes > 0 and above_crops and (m / "reader_lean.onnx").is_file():
        # v2, told "straight down", doubted real D20 seen from above: reader.vision.above refused them
        train_lean.main(["--minutes", str(args.above_look_minutes), "--resume", str(m / "reader_lean.onnx"),
                         "--lr", "2e-4", "--seed", "61", "--real", "tray-d6-nell=70", "--real", "tray-mixed-bartek=70",
                         "--real", "desk-d6-matteo=70", "--lurig", str(w / "lurig_boxes.json"), "--real-share", "0.25",
                         "--out", str(w / "lean_above.pt")] + [a for c in above_crops for a in ("--synth", str(c))])
        export.main(["lean", str(w / "lean_above.pt"), str(m / "reader_above.onnx"), "--version", "3"])
    frames = [f for f in args.frames if f.is_dir()]
    if sum(args.frames_minutes) > 0 and frames:
        # the whole look taught on from its weights with the dice of rendered tray frames too, in two
        # stages (the first two frame sets, then all four); the whole look it was taught from stays
        # beside it as its state check (reader_state.onnx), the thresholds are kept
        shutil.copy(m / "reader.onnx", m / "reader_state.onnx")
        whole = w / "reader.pt"
        for stage, (minutes, seed, lr, share, sets) in enumerate(
                [(args.frames_minutes[0], 27, "4e-4", "0.25", frames[:2]), (args.frames_minutes[1], 28, "3e-4", "0.3", frames)]):
            if minutes <= 0:
                continue
            out = w / f"reader_frames{stage + 1}.pt"
            train_reader.main(["--minutes", str(minutes), "--init", str(whole), "--lr", lr, "--seed", str(seed),
                               "--out", str(out), "--lurig-boxes", str(w / "lurig_boxes.json"),
                               "--hard-negatives", str(m / "detector.onnx"), "--synth", "work/synth/crops",
                               "--scene-share", share, "--scenes", str(frames[0])] +
                              [a for f in sets for a in ("--train-scenes", str(f))])
            whole = out
        export.main(["reader", str(whole), str(w / "reader_frames_uncalibrated.onnx"), "--version", args.reader_version])
        calibrate.main([str(w / "reader_frames_uncalibrated.onnx"), str(w / "calibration.npz"),
                        "--out", str(w / "reader_frames_calib.json"), "--thresholds-from", str(m / "reader.onnx"),
                        "--state-check", str(m / "reader_state.onnx"), "--wrong-budget"] + looks)
        export.main(["reader", str(whole), str(m / "reader.onnx"), "--meta", str(w / "reader_frames_calib.json"),
                     "--version", args.reader_version])
    prints = [p for p in args.prints if p.is_dir()]
    if args.print_check_sure > 0 and prints:
        # on the seed-1 crops' first 6,000 (work/synth/crops1 for reader v16) beside the real dice
        train_print_check.main([str(m / "reader.onnx"), str(m / "reader.onnx"), "--detector", str(m / "detector.onnx"),
                                "--lurig-boxes", str(w / "lurig_boxes.json"), "--synth", str(crops[0]),
                                "--synth-limit", "6000", "--sure", str(args.print_check_sure),
                                "--version", args.reader_version] + [a for p in prints for a in ("--prints", str(p))])
    tens = [t for t in args.tens if t.is_dir()]
    if args.percentile_check_sure > 0 and tens:
        # the percentile D10 against the same dice numbered plainly, the other numeral dice, D12 and D20 alone
        train_percentile_check.main([str(m / "reader.onnx"), str(m / "reader.onnx"), "--lurig-boxes",
                                     str(w / "lurig_boxes.json"), "--sure", str(args.percentile_check_sure),
                                     "--version", args.reader_version] + [a for t in tens for a in ("--tens", str(t))]
                                    + [a for t in args.tens_against if t.is_dir() for a in ("--synth", str(t))])
    first_gate = d20_look(args, w, m) if args.d20_look and (m / args.d20_look).is_file() else []
    calib = [c for c in args.lean_threshold_crops if Path(c.partition("=")[0]).is_dir()]
    scenes = [str(c) for c in args.lean_threshold_scenes if c.is_dir()]
    if calib and (m / "reader_lean.onnx").is_file():
        extra = ["--rise", str(args.lean_rise), *first_gate]
        if args.lean_look and (m / args.lean_look).is_file():
            extra += ["--look", args.lean_look]
        if args.lean_reference:
            extra += ["--reference", str(args.lean_reference)]
        calibrate_lean_thresholds.main(["--crops", *calib, "--scenes", *scenes, "--lurig-faces",
                                        "models/train/lurig_values.json", "--lurig-boxes", str(w / "lurig_boxes.json"),
                                        "--models", str(m), "--out", str(m / "reader.onnx"), *extra])
    tune = [str(c) for c in args.detector_tune_scenes if c.is_dir()]
    if args.detector_tune_minutes > 0 and tune:
        # session 38's detector v4 candidate: taught on last, every reader stage above having found its
        # dice with v3; from its own weights, with oblique 1280x720 frames
        train_detector.main(["--init", str(w / "detector.pt"), "--minutes", str(args.detector_tune_minutes),
                             "--lr", "5e-4", "--size-weight", "3", "--synth-share", "0.4", "--seed", "38",
                             "--out", str(w / "detector_tuned.pt"), "--synth", *tune])
        export.main(["detector", str(w / "detector_tuned.pt"), str(m / "detector.onnx"), "--version", "4"])


def d20_look(args, w: Path, m: Path) -> list[str]:
    """Reader v20: the D20 read without a described camera by its own look (--d20-look), added to the reader
    calibrated without it (the recipe's order) as
    `candidate --look reader_top_d20.onnx=... --look-weight reader_top_d20.onnx=1.0 --rule-for d20` does
    it: the other thresholds and the looks' temperatures kept, the D20's set by the rule. Returns
    calibrate_lean_thresholds' --first-gate: the camera's path keeps the D20 threshold it was set behind
    (reader.vision.lean.LeanThresholds.first_by_die)."""
    release = OnnxModel(m / "reader.onnx").meta
    top_face = release.get("top_face") or []
    before = float(release["accept_threshold_by_die"]["d20"])
    calibrate.main([str(m / "reader.onnx"), str(w / "calibration.npz"), "--out", str(w / "reader_d20_calib.json"),
                    *candidate.calibrate_args(top_face, m, {args.d20_look: ["d20"]}, {args.d20_look: 1.0}),
                    "--thresholds-from", str(m / "reader.onnx"), "--rule-for", "d20",
                    *candidate.kept_temperatures(top_face, set())])
    export.main(["calibration", str(m / "reader.onnx"), str(m / "reader.onnx"), "--meta",
                 str(w / "reader_d20_calib.json"), "--version", args.reader_version])
    return ["--first-gate", f"d20={before}"]


def seen_look(args, w: Path, m: Path) -> None:
    """The seen look (reader.vision.seen): from the reader's weights, the D20 alone on the first
    --seen-crops folder, then every numeral die on them all and the seed-1 crops, then a quarter of
    the D8's and D10's draws the real trays' dice; exported and calibrated behind the lean look."""
    crops = [c for c in args.seen_crops if c.is_dir()]
    if not crops:
        return
    plain = [Path("work/synth/crops")] if Path("work/synth/crops").is_dir() else []
    numerals = ["--dice", "d8", "d10", "d12", "d20"]
    weights = w / "reader.pt"
    for stage, (minutes, seed, lr, extra, sets) in enumerate([
            (args.seen_look_minutes[0], 28, "5e-4", ["--dice", "d20"], crops[:1]),
            (args.seen_look_minutes[1], 29, "5e-4", numerals, crops[:3] + plain),
            (args.seen_look_minutes[2], 291, "3e-4", numerals + ["--real-share", "0.25"], crops + plain)]):
        if minutes <= 0:
            continue
        out = w / f"reader_seen{stage + 1}.pt"
        train_top_face.main(["--seen", "--minutes", str(minutes), "--init", str(weights), "--lr", lr,
                             "--seed", str(seed), "--out", str(out)] + extra + [a for c in sets for a in ("--synth", str(c))])
        weights = out
    export.main(["top-face", str(weights), str(w / "reader_seen_uncalibrated.onnx"), "--version", "2"])
    calibrate_seen.main([str(w / "reader_seen_uncalibrated.onnx"), "--out", str(m / "reader_seen.onnx"), "--models", str(m),
                         "--from-deg", "d20=21", "--limit-deg", "45", "--scales", "1.0", "0.8", "--version", "2",
                         "--sets"] + [str(c) for c in args.seen_calib if c.is_dir()] +
                        ["--replay", "work/synth/calib_num=42:numerals"])


if __name__ == "__main__":
    main()
