#!/bin/sh
# SPDX-License-Identifier: MIT
# CPU benchmark: each operation's own time on a W x H image (RGB8 and gray8,
# bench/genphotos.py's photo-like picture), gpufilter's CPU path (`-v
# -device cpu`, the op's line) beside OpenCV doing the same work with the
# same number of threads (cv2.setNumThreads, in-process, after a warm-up),
# best of 3 each: every op whose folder has an OpenCV counterpart
# (src/ops/*/<op>_cv.py, bench/cvpeer.py).  The ratio is gpufilter's time
# over OpenCV's.
#
# usage: bench/cpu.sh [-s WxH] [-t THREADS] WORKDIR
#   environment: GPUFILTER (default ./gpufilter), PYTHON (a python3 with cv2)
set -eu
SIZE=4000x3000 THREADS=$(nproc)
while getopts s:t: o; do
    case $o in
    s) SIZE=$OPTARG ;; t) THREADS=$OPTARG ;;
    *) sed -n '3,10s/^# \{0,1\}//p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || { sed -n '3,10s/^# \{0,1\}//p' "$0"; exit 2; }
WORK=$1
HERE=$(cd "$(dirname "$0")" && pwd)
GF=$(cd "$(dirname "${GPUFILTER:-./gpufilter}")" && pwd)/$(basename "${GPUFILTER:-./gpufilter}")
[ -x "$GF" ] || { echo "cpu.sh: no gpufilter at $GF (set GPUFILTER)" >&2; exit 1; }
PY=
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$p" ] && "$p" -c 'import cv2, numpy' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || { echo "cpu.sh: needs a python3 with cv2 and numpy" >&2; exit 1; }
mkdir -p "$WORK"
if [ ! -f "$WORK/rgb-$SIZE.ppm" ]; then
    "$PY" "$HERE/genphotos.py" 1 "$SIZE" "$HERE/../samples" "$WORK/gen-$SIZE" png > /dev/null 2>&1
    "$GF" -format pnm "$WORK/gen-$SIZE/photo0000.png" "$WORK/rgb-$SIZE.ppm"
    "$PY" -c 'import cv2, sys; cv2.imwrite(sys.argv[2], cv2.cvtColor(cv2.imread(sys.argv[1]), cv2.COLOR_BGR2GRAY))' \
        "$WORK/rgb-$SIZE.ppm" "$WORK/gray-$SIZE.pgm"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); $THREADS threads"
echo "gpufilter: $("$GF" --version | head -1); OpenCV $("$PY" -c 'import cv2; print(cv2.__version__)')"
printf '%-14s %-5s %12s %12s %7s\n' op image gpufilter_ms opencv_ms ratio

# gf_ms OP IMAGE: the op's -v time, best of 3
gf_ms() {
    best=
    for r in 1 2 3; do
        # shellcheck disable=SC2086
        t=$("$GF" -v -device cpu -threads "$THREADS" $1 "$2" "$WORK/out.pnm" 2>&1 |
            awk -v op="${1%% *}" 'BEGIN { sub(/^-/, "", op); sub(/=.*/, "", op) } $3 == op { print $4 }')
        best=$(awk -v a="$t" -v b="${best:-1e18}" 'BEGIN { print (a < b) ? a : b }')
    done
    echo "$best"
}

# the ops in the table's order (src/ops/list.h), each beside the OpenCV
# counterpart its folder gives (src/ops/*/<op>_cv.py, run by cvpeer.py)
OPS=$HERE/../src/ops
for img in rgb gray; do
    f=$WORK/$img-$SIZE.p$([ $img = rgb ] && echo p || echo g)m
    for name in $(sed -n 's/^GF_OP(\([a-z0-9_]*\))$/\1/p' "$OPS/list.h"); do
        for peer in "$OPS"/*/"${name}_cv.py"; do
            [ -f "$peer" ] || continue
            "$PY" "$HERE/cvpeer.py" fragments "$peer" $img | while IFS= read -r op; do
                g=$(gf_ms "$op" "$f")
                c=$("$PY" "$HERE/cvpeer.py" time "$peer" "$op" "$f" "$THREADS")
                printf '%-14s %-5s %12.1f %12.1f %7.2f\n' "$op" $img "$g" "$c" \
                    "$(awk -v a="$g" -v b="$c" 'BEGIN { print a / b }')"
            done
        done
    done
done
