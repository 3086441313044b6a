#!/usr/bin/env bash
# The recipe's heavy steps on a lent GPU machine (the `device` tool: 16 cores, one NVIDIA GPU,
# Python 3.12 with torch, opencv, onnx; no network, no ../shared, nothing of ours installed).
#
#   bash models/train/gpu.sh render SECONDS all:8,numerals:6,d20-sharp:2 check
#   bash models/train/gpu.sh train MINUTES whole,top
#   bash models/train/gpu.sh scenes SECONDS 1280x720:8,960x540:8 detector MINUTES scratch,on
#
# Steps run in the order given: `render SECONDS MIXES` renders crops for SECONDS, one bulk process
# per core, as many processes of each mix as MIXES says (16 in all; d20-sharp is --mix d20
# --resample-min 0.6; a mix ending in -room is lit as a room lights dice, --light room, e.g.
# d20-room, numerals-room; one ending in -makers draws some digits in makers' forms, --glyphs makers,
# e.g. d20-room-makers; one ending in -thin draws the numerals in light fonts, --glyphs thin, e.g.
# d6-numerals-thin (its fonts must travel: models/README.md); one ending in -clear makes half the
# dice clear resin, --bodies clear, e.g. d20-room-clear, d20-room-makers-clear; one ending in -numbered
# numbers each die anew, as some maker numbers theirs, --numbers varied, e.g. d20-room-clear-numbered,
# numerals-numbered: the renders before session 65 carried one numbering per die type, and the D20
# look learnt it; one ending in -logos puts a maker's logo, a shape drawn anew, on each main die's face
# up, --logos up --emblems procedural, e.g. d6-logos, numerals-numbered-logos: `train` teaches those
# folders' dice as no face); `check` tries both trainers for seconds; `train MINUTES LOOKS` teaches the
# looks named (whole: reader.onnx; top: reader_top.onnx, the numeral dice; d10: reader_top_d10.onnx; d6:
# reader_top_d6.onnx; HOLD, default 0, the d10 and d6 looks' pull toward the release's answers, --hold;
# STEADY, default 0, the d10 and d6 looks' pull between two cuts of a die a frame pixel apart, --steady;
# d20: reader_top_d20.onnx, a D20 look of its own cut tight to its top face, from the numeral look;
# d20split: the same taught the faces of D20 seen within 15 degrees of vertical and no face on those
# seen beyond 25 or cocked, the renders split by their replayed camera angles first; d20on: the
# release's D20 look taught on so, at a third of the rate; nearon: the camera path's D20 look,
# reader_near_d20.onnx, taught on so at a third of the rate; UNSURE_SHARE, default 0.3, the no-face draws)
# at once, from the committed models, sharing the cores between their batch builders.
# `scenes SECONDS SIZES` renders tray frames (bulk scenes, every die type, the camera drawn off vertical)
# for SECONDS, as many processes at each frame size as SIZES says, seeds from SCENE_SEED0 (default 401);
# `detector MINUTES RUNS` teaches the detector on them and the real trays' pack for MINUTES (scratch:
# from nothing, as v3 was, with all of it; on: v3 taught on at a quarter of the rate), the runs
# sharing 14 patch builders.
# What must travel with the call (`carry`; all gitignored, made here first; models/README.md,
# "On a GPU machine", has the commands):
#   render: .whl/ (moderngl, glcontext for Python 3.12), .gl/ (the GL loader debs, unpacked over
#           / there), .dev/fonts.tar.xz (the renderer's numeral fonts at their Debian paths)
#   check, train: work/pack/ (the real dice: python -m models.train.real_pack)
#   detector: work/detpack/ (the real trays' training frames: python -m models.train.detector_data --pack work/detpack)
# A call removes there the carried paths it does not name again, but keeps what a command wrote:
# the renders in work/dsynth/ stay while the machine is warm (30 s after a call), so `train`
# follows `render` in the very next call. Weights, logs and a sheet of the renders (renders.png:
# the first 8 crops of each folder, to view beside crops rendered here) go to $OUT.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1
export PYTHONPATH=$PWD

gl_setup() {
    # the renderer's needs: GL loaders (NVIDIA's EGL does the drawing), moderngl, the fonts
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    export PYTHONPATH=/tmp/site:$PWD
    # the fonts travel packed (.dev/fonts.tar.xz, 2.8 MB against 7.8) so the tree, the pack and
    # they stay under the 64 MiB a call carries; Python unpacks it, whatever tar the machine has
    if [ -f .dev/fonts.tar.xz ]; then
        python3 -c "import tarfile; tarfile.open('.dev/fonts.tar.xz').extractall('.dev', filter='data')"
    fi
    cp -r .dev/fonts/usr/share/. /usr/share/  # the renderer names its fonts by their Debian paths
    local icd=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
    if [ -f "$icd" ]; then export __EGL_VENDOR_LIBRARY_FILENAMES=$icd; fi
}

mix_args() {
    # a MIXES name -> the bulk crops options it stands for (models/README.md)
    local mix=$1 extra=""
    if [ "${mix%-logos}" != "$mix" ]; then mix=${mix%-logos}; extra="--logos up --emblems procedural"; fi
    if [ "${mix%-numbered}" != "$mix" ]; then mix=${mix%-numbered}; extra="--numbers varied${extra:+ $extra}"; fi
    if [ "${mix%-clear}" != "$mix" ]; then mix=${mix%-clear}; extra="--bodies clear${extra:+ $extra}"; fi
    if [ "${mix%-makers}" != "$mix" ]; then mix=${mix%-makers}; extra="--glyphs makers${extra:+ $extra}"; fi
    if [ "${mix%-thin}" != "$mix" ]; then mix=${mix%-thin}; extra="--glyphs thin${extra:+ $extra}"; fi
    if [ "${mix%-room}" != "$mix" ]; then mix=${mix%-room}; extra="--light room${extra:+ $extra}"; fi
    if [ "$mix" = d20-sharp ]; then mix=d20; extra="$extra --resample-min 0.6"; fi
    echo "--mix $mix $extra"
}

logo_mix() {
    # a MIXES name -> yes where its crops' main dice bear a logo up (mix_args gives --logos), else no
    case " $(mix_args "$1") " in *" --logos "*) echo yes ;; *) echo no ;; esac
}

replay_of() {
    # a render folder's seed and MIXES name -> slant_split's SEED:MIX (its crops' angles replayed)
    local options
    options=$(mix_args "$2")
    set -- "$1" $options
    echo "$1:$3"
}

split_renders() {
    # each render folder split by its crops' camera angle (near <= SPLIT_NEAR, default 15; steep >
    # SPLIT_STEEP, default 25 degrees), the near crops' boxes moved SPLIT_RISE (default 0) toward the
    # top face as reader v18 cuts with the camera described (SPLIT_NEAR=30 SPLIT_STEEP=30
    # SPLIT_RISE=0.4), one process per folder: work/dsplit/near-sN and work/dsplit/steep-sN
    local d n
    for d in work/dsynth/s*/; do
        n=$(basename "$d")
        if [ -f "work/dsynth/$n.logos" ]; then continue; fi  # logos are no face at any angle
        python3 -m models.train.slant_split "${d%/}=$(cat "work/dsynth/$n.replay")" --out work/dsplit \
            --near "${SPLIT_NEAR:-15}" --steep "${SPLIT_STEEP:-25}" --rise "${SPLIT_RISE:-0}" > "work/dsynth/$n.split.log" 2>&1 &
    done
    wait
    cat work/dsynth/*.split.log
}

fonts_check() {
    # fonts packed before their Debian packages were installed here travel as too few (session 46
    # rendered with 8 of 20 so): stop before the renders, not after. The least is the renderer's own
    # (textures.FONTS_RENDERED, which bulk warns under) unless FONTS_MIN says otherwise
    local found least rendered
    read -r found least < <(python3 -c "from reader.synth.textures import FONTS_RENDERED, fonts
try: print(len(fonts()), FONTS_RENDERED)
except RuntimeError: print(0, FONTS_RENDERED)")
    rendered=$least
    least=${FONTS_MIN:-$least}
    echo "$found numeral fonts"
    if [ "$found" -lt "$least" ]; then
        echo "renderer: $found numeral fonts travelled, not $least: install the font packages, pack .dev/fonts.tar.xz again (models/README.md), or FONTS_MIN=$found"
        exit 1
    fi
    # fewer than every seed is drawn in, allowed by FONTS_MIN: bulk refuses them unless told
    FEWER_FONTS=""
    if [ "$found" -lt "$rendered" ]; then FEWER_FONTS="--fewer-fonts"; fi
}

render() {
    local seconds=$1
    gl_setup
    mkdir -p work/dsynth
    fonts_check
    # a GL context that will not start fails here in seconds, not in sixteen logs
    python3 -m reader.synth.bulk crops --out /tmp/gl-check --count 2 --seed 1 $FEWER_FONTS || { echo "renderer: no GL context"; exit 1; }
    # seeds from SEED0 (default 101) on, none of which the committed models saw
    local seed=${SEED0:-101} spec options
    for spec in ${2//,/ }; do
        options=$(mix_args "${spec%%:*}")
        for _ in $(seq "${spec##*:}"); do
            replay_of "$seed" "${spec%%:*}" > "work/dsynth/s$seed.replay"
            # a -logos folder's dice bear a logo on the face up: train teaches them as no face
            rm -f "work/dsynth/s$seed.logos"  # an earlier call's mark on this seed is not this mix's
            if [ "$(logo_mix "${spec%%:*}")" = yes ]; then touch "work/dsynth/s$seed.logos"; fi
            timeout "$seconds" python3 -m reader.synth.bulk crops --out "work/dsynth/s$seed" --count 200000 \
                --seed "$seed" $options $FEWER_FONTS > "work/dsynth/s$seed.log" 2>&1 &
            seed=$((seed + 1))
        done
    done
    wait || true
    echo "rendered $(cat work/dsynth/s*/labels.jsonl 2>/dev/null | wc -l) crops in ${seconds}s"
    # what NVIDIA's EGL drew, to look at beside the crops rendered here (llvmpipe)
    sheet "$OUT/renders.png" work/dsynth/s*/
    tail -n 2 "work/dsynth/s${SEED0:-101}.log"
}

sheet() {
    # a contact sheet of the first 8 crops of each render folder (one row per folder)
    local out=$1; shift
    python3 - "$out" "$@" <<'PY'
import sys
from pathlib import Path
import cv2
import numpy as np
rows = []
for folder in sys.argv[2:]:
    names = sorted(Path(folder).glob("*.jpg"))[:8]
    tiles = [cv2.resize(cv2.imread(str(n)), (128, 128)) for n in names]
    tiles += [np.zeros((128, 128, 3), np.uint8)] * (8 - len(tiles))
    rows.append(np.hstack(tiles))
if rows:
    cv2.imwrite(sys.argv[1], np.vstack(rows))
PY
}

check() {
    # both trainers for a few seconds on the GPU with the first render folder (whatever SEED0
    # made): a CUDA or loader fault shows here, before the long run
    local first
    first=$(ls -d work/dsynth/s*/ | head -n 1)
    python3 -m models.train.train_reader --device cuda --workers 4 --batch 256 --init models/reader.onnx \
        --real-pack work/pack/real_pack.npz --hard-negatives models/detector.onnx --synth "$first" \
        --minutes 0.25 --out /tmp/check_whole.pt 2>&1 | tail -n 3
    python3 -m models.train.train_top_face --device cuda --workers 4 --batch 256 --init models/reader_top.onnx \
        --real-pack work/pack/real_pack.npz --synth "$first" --minutes 0.25 --out /tmp/check_top.pt 2>&1 | tail -n 3
}

d20_seen() {
    # a D20 look (NAME, from INIT at LR, SEED) taught only the D20 it can see: near crops their face,
    # steep and cocked ones no face (models.train.slant_split, train_top_face --unsure); train's
    # `common` and `split`
    python3 -m models.train.train_top_face "${common[@]}" --lr "$3" --init "$2" --dice d20 --cut d20=0.45 \
        "${split[@]}" --cocked-unsure --unsure-share "${UNSURE_SHARE:-0.3}" --seed "$4" \
        --out "$OUT/$1.pt" > "$OUT/$1.log" 2>&1 &
}

render_folders() {
    # KIND [ROOT]: the render folders as train_top_face's options: `synth`, those to read (--synth DIR); `logos`,
    # the -logos folders, their dice taught no face (--unsure DIR ..., --unsure-share LOGO_SHARE,
    # default 0.2), asked of the second looks (top, d10, d6) alone: the whole look and the D20 looks
    # never see them. ROOT (default work/dsynth): where the folders are
    local d n=0
    for d in "${2:-work/dsynth}"/s*/; do
        [ -d "$d" ] || continue
        if [ -f "${d%/}.logos" ]; then
            if [ "$1" = logos ]; then printf '%s\n' --unsure "$d"; n=$((n + 1)); fi
        elif [ "$1" = synth ]; then
            printf '%s\n' --synth "$d"
        fi
    done
    if [ "$n" -gt 0 ]; then printf '%s\n' --unsure-share "${LOGO_SHARE:-0.2}"; fi
}

train() {
    local minutes=$1 looks=(${2//,/ })
    local synth=() logos=() workers=$((14 / ${#looks[@]}))
    mapfile -t synth < <(render_folders synth)
    mapfile -t logos < <(render_folders logos)
    local split=()
    if [[ " ${looks[*]} " == *" d20split "* || " ${looks[*]} " == *" d20on "* || " ${looks[*]} " == *" nearon "* ]]; then
        split_renders
        for d in work/dsplit/near-*/; do split+=(--synth "$d"); done
        for d in work/dsplit/steep-*/; do split+=(--unsure "$d"); done
    fi
    nvidia-smi --query-gpu=name,memory.used --format=csv,noheader
    # the augmentation is the bottleneck (the GPU is nearly idle with networks this small): the
    # looks share 14 batch builders, one core each
    local common=(--device cuda --workers "$workers" --threads 1 --batch 256 --minutes "$minutes"
                  --real-pack work/pack/real_pack.npz)
    for look in "${looks[@]}"; do
        case "$look" in
            whole) python3 -m models.train.train_reader "${common[@]}" --lr 3e-4 --init models/reader.onnx \
                       --hard-negatives models/detector.onnx --blur 0.1 "${synth[@]}" --reload-minutes 1000 \
                       --seed 22 --out "$OUT/whole.pt" > "$OUT/whole.log" 2>&1 & ;;
            top) python3 -m models.train.train_top_face "${common[@]}" --lr 6e-4 --init models/reader_top.onnx \
                     "${synth[@]}" "${logos[@]}" --seed 21 --out "$OUT/top.pt" > "$OUT/top.log" 2>&1 & ;;
            d10) python3 -m models.train.train_top_face "${common[@]}" --lr 3e-4 --init models/reader_top_d10.onnx \
                     --dice d10 --real-share 0.5 --hold "${HOLD:-0}" --steady "${STEADY:-0}" "${synth[@]}" "${logos[@]}" --seed 23 --out "$OUT/d10.pt" \
                     > "$OUT/d10.log" 2>&1 & ;;
            # the D6's look (pips and numerals, the whole die cut close), half its draws the real trays'
            d6) python3 -m models.train.train_top_face "${common[@]}" --lr 3e-4 --init models/reader_top_d6.onnx \
                    --dice d6 --cut d6=1.15 --real-share 0.5 --blur 0.1 --hold "${HOLD:-0}" --steady "${STEADY:-0}" "${synth[@]}" "${logos[@]}" --seed 28 \
                    --out "$OUT/d6.pt" > "$OUT/d6.log" 2>&1 & ;;
            # real D20 are read best cut tight to their top face (models/reader.md, sessions 32-33)
            d20) python3 -m models.train.train_top_face "${common[@]}" --lr 6e-4 --init models/reader_top.onnx \
                     --dice d20 --cut d20=0.45 "${synth[@]}" --seed 24 --out "$OUT/d20.pt" > "$OUT/d20.log" 2>&1 & ;;
            # the same, taught only the D20 it can see (models/reader.md, session 34)
            d20split) d20_seen d20split models/reader_top.onnx 6e-4 25 ;;
            # the release's D20 look (since reader v20, taught so) on the fresh renders (session 41)
            d20on) d20_seen d20on models/reader_top_d20.onnx 2e-4 26 ;;
            # the camera path's D20 look (reader v18's reader_near_d20.onnx) taught on so (session 46)
            nearon) d20_seen nearon models/reader_near_d20.onnx 2e-4 27 ;;
            *) echo "gpu.sh: no look named $look (whole, top, d10, d6, d20, d20split, d20on, nearon)"; exit 2 ;;
        esac
    done
    wait
    for look in "${looks[@]}"; do tail -n 2 "$OUT/$look.log"; done
}

scenes() {
    local seconds=$1 seed=${SCENE_SEED0:-401} spec
    # GL_READY=1: the renderer works here already (a dry run on a CPU machine)
    if [ "${GL_READY:-0}" != 1 ]; then gl_setup; fi
    fonts_check
    mkdir -p work/dscenes
    for spec in ${2//,/ }; do
        local size=${spec%%:*}
        for _ in $(seq "${spec##*:}"); do
            timeout "$seconds" python3 -m reader.synth.bulk scenes --out "work/dscenes/s$seed" --count 100000 \
                --seed "$seed" --width "${size%x*}" --height "${size#*x}" $FEWER_FONTS > "work/dscenes/s$seed.log" 2>&1 &
            seed=$((seed + 1))
        done
    done
    wait || true
    echo "rendered $(cat work/dscenes/s*/labels.jsonl 2>/dev/null | wc -l) scenes in ${seconds}s"
    sheet "$OUT/scenes.png" $(ls -d work/dscenes/s*/ | head -n 4)
    tail -n 2 "work/dscenes/s${SCENE_SEED0:-401}.log"
}

detector() {
    local minutes=$1 runs=(${2//,/ })
    local synth=() workers=$((14 / ${#runs[@]}))
    for d in work/dscenes/s*/; do synth+=("$d"); done
    local common=(--device "${DEVICE:-cuda}" --workers "$workers" --batch 64 --minutes "$minutes" --real work/detpack
                  --size-weight 3 --small-share 0.1 --save-seconds 45)
    for run in "${runs[@]}"; do
        case "$run" in
            scratch) python3 -m models.train.train_detector "${common[@]}" --lr 2e-3 --synth "${synth[@]}" \
                         --synth-share 0.5 --seed 61 --out "$OUT/det_scratch.pt" > "$OUT/det_scratch.log" 2>&1 & ;;
            on) python3 -m models.train.train_detector "${common[@]}" --lr 5e-4 --init models/detector.onnx \
                    --synth "${synth[@]}" --synth-share 0.4 --seed 62 --out "$OUT/det_on.pt" > "$OUT/det_on.log" 2>&1 & ;;
            *) echo "gpu.sh: no detector run named $run (scratch, on)"; exit 2 ;;
        esac
    done
    wait
    for run in "${runs[@]}"; do tail -n 2 "$OUT/det_$run.log"; done
}

while [ $# -gt 0 ]; do
    case "$1" in
        render|train|scenes|detector) "$1" "$2" "$3"; shift 3 ;;
        check) check; shift ;;
        *) echo "gpu.sh: unknown step $1 (render SECONDS MIXES, check, train MINUTES LOOKS, scenes SECONDS SIZES, detector MINUTES RUNS)"; exit 2 ;;
    esac
done
