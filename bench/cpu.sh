#!/bin/sh
# SPDX-License-Identifier: MIT
# CPU benchmark: each operation's own time on a W x H image (RGB8 and gray8,
# bench/genphotos.py's photo-like picture), gpufilter's CPU path (`-v
# -device cpu`, the op's line) beside OpenCV doing the same work with the
# same number of threads (cv2.setNumThreads, in-process, after a warm-up),
# best of 3 each.  The ratio is gpufilter's time over OpenCV's.
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

for img in rgb gray; do
    f=$WORK/$img-$SIZE.p$([ $img = rgb ] && echo p || echo g)m
    for op in "-blur 2" "-blur 5" "-box 5" "-laplacian" "-laplacian=4" "-rotate 30" "-rotate 90" "-flip" "-equalize" \
        "-resize 50%" "-grayscale" "-unsharp 0x2" "-convolve sobel" "-erode 3" "-median 2"; do
        [ "$op" = -equalize ] && [ $img = rgb ] && continue # OpenCV equalizes gray images only
        [ "$op" = -grayscale ] && [ $img = gray ] && continue
        g=$(gf_ms "$op" "$f")
        c=$("$PY" - "$f" "$op" "$THREADS" <<'PY'
import math, sys, time
import cv2, numpy as np
path, op, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
cv2.setNumThreads(threads)
img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
h, w = img.shape[:2]
name, _, arg = op.partition(" ")
if name == "-blur":  # sigma, radius ceil(3 sigma), clamped border
    s = float(arg); k = 2 * math.ceil(3 * s) + 1
    run = lambda: cv2.GaussianBlur(img, (k, k), s, borderType=cv2.BORDER_REPLICATE)
elif name == "-box":  # mean over (2R+1)^2
    k = 2 * int(arg) + 1
    run = lambda: cv2.blur(img, (k, k), borderType=cv2.BORDER_REPLICATE)
elif name.startswith("-laplacian"):  # |stencil|, saturated
    kern = np.array([[0, -1, 0], [-1, 4, -1], [0, -1, 0]] if name.endswith("=4") else
                    [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], np.float32)
    run = lambda: cv2.convertScaleAbs(cv2.filter2D(img, cv2.CV_16S, kern, borderType=cv2.BORDER_REPLICATE))
elif name == "-rotate" and arg == "90":
    run = lambda: cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
elif name == "-rotate":  # bilinear on the enlarged canvas
    a = math.radians(float(arg)); c, s_ = abs(math.cos(a)), abs(math.sin(a))
    ow, oh = math.ceil(w * c + h * s_), math.ceil(w * s_ + h * c)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -float(arg), 1.0)
    m[0, 2] += ow / 2 - w / 2; m[1, 2] += oh / 2 - h / 2
    run = lambda: cv2.warpAffine(img, m, (ow, oh), flags=cv2.INTER_LINEAR)
elif name == "-flip":
    run = lambda: cv2.flip(img, 0)
elif name == "-equalize":
    run = lambda: cv2.equalizeHist(img)
elif name == "-resize":  # Lanczos (OpenCV's has 8 taps a side and is not stretched when shrinking)
    run = lambda: cv2.resize(img, (w // 2, h // 2), interpolation=cv2.INTER_LANCZOS4)
elif name == "-grayscale":
    run = lambda: cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
elif name == "-unsharp":  # v + (v - blur), the blur as -blur 2's (13 taps)
    def run():
        b = cv2.GaussianBlur(img, (13, 13), 2, borderType=cv2.BORDER_REPLICATE)
        return cv2.addWeighted(img, 2, b, -1, 0)
elif name == "-convolve":  # the Sobel kernel as a correlation, saturated
    kern = np.array([[1, 0, -1], [2, 0, -2], [1, 0, -1]], np.float32)
    run = lambda: cv2.filter2D(img, -1, kern, borderType=cv2.BORDER_REPLICATE)
elif name == "-erode":
    k = np.ones((2 * int(arg) + 1,) * 2, np.uint8)
    run = lambda: cv2.erode(img, k)
elif name == "-median":
    run = lambda: cv2.medianBlur(img, 2 * int(arg) + 1)
run()
best = min((lambda t0: (run(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(3))
print(f"{best * 1e3:.1f}")
PY
)
        printf '%-14s %-5s %12.1f %12.1f %7.2f\n' "$op" $img "$g" "$c" "$(awk -v a="$g" -v b="$c" 'BEGIN { print a / b }')"
    done
done
