#!/bin/sh
# SPDX-License-Identifier: MIT
# JPEG batches by size: wall time of `gpufilter -q -blur 3 -rotate 90 -o DIR
# FILES` (disk to disk, inputs in the page cache, best of 2) for 1, 16, 100
# and 1,000 photo-like 4000x3000 JPEGs and 3,000 and 20,000 at 640x480
# (bench/genphotos.py, quality 90), beside -device cpu (up to 3,000 images)
# and, where its wheel is installed, nvImageCodec (bench/nvicpeer.py: bytes
# in memory, decode only and decode then encode, after its start); the JPEG
# engines' busy percentage (nvidia-smi dmon, mean and peak of the 1 s
# samples) over gpufilter's run; then one 20000x20000 JPEG through
# `-blur 5` (-limit-pixels raised to take it): wall time and peak RSS for
# gpufilter (default: nvJPEG; -device cuda -codec cpu; -device cpu) and an
# OpenCV one-liner, gpufilter's -v stages, and nvImageCodec's decode and
# decode then encode of it in memory.
#
# usage: bench/sizes.sh [-c CSV] [-H | -S] WORKDIR
#   (-H: skip the 20000x20000 row; -S: that row only)
#   environment: GPUFILTER (default ./gpufilter), PYTHON (a python3 with cv2)
set -eu
CSV= HUGE=1 SIZES=1
while getopts c:HS o; do
    case $o in
    c) CSV=$OPTARG ;; H) HUGE= ;; S) SIZES= ;;
    *) sed -n '3,18s/^# \{0,1\}//p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || { sed -n '3,18s/^# \{0,1\}//p' "$0"; exit 2; }
WORK=$1
HERE=$(cd "$(dirname "$0")" && pwd)
GF=$(cd "$(dirname "${GPUFILTER:-./gpufilter}")" && pwd)/$(basename "${GPUFILTER:-./gpufilter}")
PY=
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$p" ] && "$p" -c 'import cv2, numpy' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || { echo "sizes.sh: needs a python3 with cv2 and numpy (to make the images)" >&2; exit 1; }
NVIC=
"$PY" -c 'from nvidia import nvimgcodec' 2>/dev/null && NVIC=1
DMON=
command -v nvidia-smi >/dev/null 2>&1 && DMON=1
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
mkdir -p "$WORK"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "gpufilter: $("$GF" --version | tr '\n' ' ')"
[ -z "$CSV" ] || echo "tool,images,size,seconds,images_per_s,jpg_busy_mean,jpg_busy_peak,peak_rss_mb" > "$CSV"
printf '%-36s %6s %-9s %8s %9s %11s\n' tool images size seconds images/s "jpg busy %"

photos() { # N WxH: the folder of N images (made once, the first N of the largest set)
    d=$WORK/in-$2
    have=$(ls "$d" 2>/dev/null | grep -c '\.jpg$' || true)
    if [ "$have" -lt "$1" ]; then
        "$PY" "$HERE/genphotos.py" "$1" "$2" "$HERE/../samples" "$d" jpg 2>&1 | grep -v iCCP >&2 || true
    fi
    echo "$d"
}
line() { # LABEL N SIZE SECONDS BUSY_MEAN BUSY_PEAK RSS
    printf '%-36s %6s %-9s %8.3f %9.1f %11s\n' "$1" "$2" "$3" "$4" "$(calc "$2 / $4")" "$5${6:+/$6}"
    [ -z "$CSV" ] || printf '"%s",%s,%s,%.3f,%.1f,%s,%s,%s\n' "$1" "$2" "$3" "$4" "$(calc "$2 / $4")" "$5" "$6" "$7" >> "$CSV"
}
# best LABEL N SIZE CMD...: best of 2 wall times of CMD writing into $WORK/out,
# the engines' busy percentage sampled over the faster run
best() {
    label=$1 n=$2 size=$3
    shift 3
    b= bm= bp=
    for r in 1 2; do
        rm -rf "$WORK/out"
        mkdir "$WORK/out"
        sync
        [ -z "$DMON" ] || { nvidia-smi dmon -s u -d 1 > "$WORK/dmon.txt" 2>&1 & dm=$!; }
        t0=$(now)
        "$@" > "$WORK/row.log" 2>&1 || { echo "$label: failed: $(tail -3 "$WORK/row.log")" >&2; [ -z "$DMON" ] || kill $dm; return 0; }
        t=$(calc "$(now) - $t0")
        m= p=
        if [ -n "$DMON" ]; then
            kill $dm
            wait $dm 2>/dev/null || true
            awk '$1 ~ /^[0-9]+$/ { n++; s += $6; if ($6 > p) p = $6 } END { printf "%.0f %d\n", n ? s / n : 0, p }' \
                "$WORK/dmon.txt" > "$WORK/busy"
            read -r m p < "$WORK/busy"
        fi
        if [ -z "$b" ] || [ "$(calc "$t < $b")" = 1.000000 ]; then b=$t bm=$m bp=$p; fi
    done
    line "$label" "$n" "$size" "$b" "$bm" "$bp" ""
}
for spec in ${SIZES:+1:4000x3000 16:4000x3000 100:4000x3000 1000:4000x3000 3000:640x480 20000:640x480}; do
    n=${spec%%:*} size=${spec#*:}
    d=$(photos "$([ "$size" = 640x480 ] && echo 20000 || echo 1000)" "$size")
    ls "$d"/*.jpg | head -n "$n" > "$WORK/list"
    best "gpufilter (default)" "$n" "$size" "$GF" -q -blur 3 -rotate 90 -o "$WORK/out" @"$WORK/list"
    [ "$n" -gt 3000 ] || best "gpufilter -device cpu" "$n" "$size" "$GF" -q -device cpu -blur 3 -rotate 90 -o "$WORK/out" @"$WORK/list"
    if [ -n "$NVIC" ] && [ "$n" -ge 100 ]; then
        "$PY" "$HERE/nvicpeer.py" $(cat "$WORK/list") > "$WORK/nvic.log" 2>&1 || { echo "nvimgcodec: failed: $(tail -3 "$WORK/nvic.log")" >&2; continue; }
        grep '^nvimgcodec start' "$WORK/nvic.log" | sed "s/^/  ($n x $size) /"
        grep '^nvimgcodec decode' "$WORK/nvic.log" | while read -r _ mode _ _ s _; do
            line "nvImageCodec $mode (in memory)" "$n" "$size" "$s" "" "" ""
        done
    fi
done

[ -n "$HUGE" ] || exit 0
# one 20000x20000 photo-like JPEG, -blur 5: wall time and peak RSS
h=$WORK/huge
[ -f "$h/photo0000.jpg" ] || "$PY" "$HERE/genphotos.py" 1 20000x20000 "$HERE/../samples" "$h" jpg 2>&1 | grep -v iCCP >&2 || true
rss() { # LABEL CMD...: runs CMD once, prints time and its peak RSS
    label=$1
    shift
    "$PY" - "$label" "$@" <<'EOF'
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.call(sys.argv[2:])
s = time.perf_counter() - t
mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print("%-36s %6s %-9s %8.3f %9s  peak RSS %.0f MB%s" % (sys.argv[1], 1, "20000^2", s, "", mb, "" if rc == 0 else " (exit %d)" % rc))
EOF
}
L="-limit-pixels 400000000"
rss "gpufilter -blur 5 (default)" "$GF" -q $L -blur 5 "$h/photo0000.jpg" "$WORK/huge-out.jpg"
rss "gpufilter -blur 5 -device cuda -codec cpu" "$GF" -q $L -device cuda -codec cpu -blur 5 "$h/photo0000.jpg" "$WORK/huge-out.jpg"
rss "gpufilter -blur 5 -device cpu" "$GF" -q $L -device cpu -blur 5 "$h/photo0000.jpg" "$WORK/huge-out.jpg"
rss "opencv-python GaussianBlur" "$PY" -c 'import cv2, sys; cv2.imwrite(sys.argv[2], cv2.GaussianBlur(cv2.imread(sys.argv[1]), (31, 31), 5, borderType=cv2.BORDER_REPLICATE), [cv2.IMWRITE_JPEG_QUALITY, 90])' "$h/photo0000.jpg" "$WORK/huge-cv.jpg"
"$GF" -v $L -blur 5 "$h/photo0000.jpg" "$WORK/huge-out.jpg" 2>&1 | sed 's/^gpufilter: /  /'
if [ -n "$NVIC" ]; then
    "$PY" "$HERE/nvicpeer.py" "$h/photo0000.jpg" 2>&1 | sed 's/^/  (20000^2) /'
fi
