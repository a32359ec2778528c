#!/bin/sh
# SPDX-License-Identifier: MIT
# Whole commands on the CPU: one photo-like W x H image (bench/genphotos.py),
# as JPEG (quality 90) and as PNG (zlib level 6), read, filtered and written
# by gpufilter -device cpu, by vips and by ImageMagick's convert (where
# installed), the same job each, best of 3 wall times; then four JPEGs
# through -blur 5 (gpufilter -o, a vips shell loop).  Output sizes in
# kilobytes beside the times: vips writes PNG without row filters.
#
# usage: bench/commands.sh [-s WxH] [-f FORMATS] [-t TOOLS] WORKDIR
#   FORMATS: jpg,png (default both); TOOLS: comma list of gpufilter,vips,
#   convert (default all)
#   environment: GPUFILTER (default ./gpufilter), PYTHON (a python3 with cv2)
set -eu
SIZE=4000x3000 TOOLS=gpufilter,vips,convert FORMATS=jpg,png
while getopts s:f:t: o; do
    case $o in
    s) SIZE=$OPTARG ;; f) FORMATS=$OPTARG ;; t) TOOLS=$OPTARG ;;
    *) sed -n '3,13s/^# \{0,1\}//p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || { sed -n '3,13s/^# \{0,1\}//p' "$0"; exit 2; }
WORK=$1
HERE=$(cd "$(dirname "$0")" && pwd)
GF=$(cd "$(dirname "${GPUFILTER:-./gpufilter}")" && pwd)/$(basename "${GPUFILTER:-./gpufilter}")
[ -x "$GF" ] || { echo "commands.sh: no gpufilter at $GF (set GPUFILTER)" >&2; exit 1; }
PY=
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$p" ] && "$p" -c 'import cv2, numpy' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || { echo "commands.sh: needs a python3 with cv2 and numpy (to make the images)" >&2; exit 1; }
want() { case ",$TOOLS," in *",$1,"*) command -v "$2" > /dev/null 2>&1 ;; *) return 1 ;; esac; }
now() { date +%s.%N; }

IN=$WORK/in-$SIZE
mkdir -p "$WORK"
if [ ! -f "$IN/photo0003.jpg" ] || [ ! -f "$IN/photo0000.png" ]; then
    "$PY" "$HERE/genphotos.py" 4 "$SIZE" "$HERE/../samples" "$IN" png,jpg 2>&1 | grep -v iCCP >&2 || true
fi
[ -f "$IN/photo0000.png" ] || { echo "commands.sh: making the images failed" >&2; exit 1; }
cat > "$WORK/box5.mat" <<MAT
11 1 11 0
1 1 1 1 1 1 1 1 1 1 1
MAT
cat > "$WORK/laplacian.mat" <<MAT
3 3 1 0
-1 -1 -1
-1 8 -1
-1 -1 -1
MAT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "gpufilter: $("$GF" --version | head -1)"
! want vips vips || echo "vips: $(vips --version)"
! want convert convert || echo "convert: $(convert -version | head -1 | cut -d' ' -f2-3)"
printf '%-11s %-4s %-9s %8s %9s\n' job fmt tool seconds output_kb

# best LABEL FMT TOOL OUT CMD...: best of 3 wall times of CMD, which writes OUT
best() {
    label=$1 fmt=$2 tool=$3 out=$4
    shift 4
    b=
    for _ in 1 2 3; do
        rm -f "$out"
        t0=$(now)
        "$@" > "$WORK/cmd.log" 2>&1 || { echo "$label $tool: failed: $(tail -2 "$WORK/cmd.log")" >&2; return 0; }
        t=$(awk -v a="$(now)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')
        b=$(awk -v a="$t" -v b="${b:-1e9}" 'BEGIN { print (a < b) ? a : b }')
    done
    printf '%-11s %-4s %-9s %8.3f %9s\n' "$label" "$fmt" "$tool" "$b" "$(($(wc -c < "$out") / 1024))"
}

for fmt in $(echo "$FORMATS" | tr , ' '); do
    f=$IN/photo0000.$fmt o=$WORK/out.$fmt vo=$WORK/out.$fmt
    [ "$fmt" = jpg ] && vo="${o}[Q=90]"
    gf() { l=$1; shift; best "$l" "$fmt" gpufilter "$o" "$GF" -q -device cpu "$@" "$f" "$o"; }
    vp() { l=$1 op=$2; shift 2; ! want vips vips || best "$l" "$fmt" vips "$o" vips "$op" "$f" "$vo" "$@"; }
    im() { l=$1; shift; ! want convert convert || best "$l" "$fmt" convert "$o" convert "$f" "$@" -quality 90 "$o"; }
    gf blur-5 -blur 5
    vp blur-5 gaussblur 5 --precision integer --min-ampl 0.011 # radius 15, as 3 sigma
    im blur-5 -blur 15x5
    gf blur-2 -blur 2
    vp blur-2 gaussblur 2 --precision integer --min-ampl 0.011
    im blur-2 -blur 6x2
    gf box-5 -box 5
    vp box-5 convsep "$WORK/box5.mat" --precision integer
    im box-5 -define convolve:scale=! -morphology Convolve Square:5
    gf laplacian -laplacian
    # min(|L|, 255) as gpufilter writes it: vips's integer conv of a uchar
    # image stays uchar (negative responses lost), so the float one, then abs
    # shellcheck disable=SC2016 # the script's arguments, expanded by its own shell
    ! want vips vips || best laplacian "$fmt" vips "$o" sh -c \
        'vips conv "$1" "$2.v" "$3" --precision float && vips abs "$2.v" "$2a.v" &&
         vips cast "$2a.v" "$4" uchar && rm "$2.v" "$2a.v"' - "$f" "$WORK/t" "$WORK/laplacian.mat" "$vo"
    im laplacian -morphology Convolve Laplacian:0
    gf rotate-30 -rotate 30
    vp rotate-30 similarity --angle 30
    im rotate-30 -rotate 30
    gf rotate-90 -rotate 90
    vp rotate-90 rot d90
    im rotate-90 -rotate 90
    gf resize-50% -resize 50%
    vp resize-50% resize 0.5
    im resize-50% -resize 50%
done

# four JPEGs, -blur 5: one gpufilter command, a vips loop
case ",$FORMATS," in *,jpg,*) ;; *) exit 0 ;; esac
mkdir -p "$WORK/out4"
best 4-jpegs jpg gpufilter "$WORK/out4/photo0003.jpg" "$GF" -q -device cpu -blur 5 -o "$WORK/out4" "$IN"/photo000[0-3].jpg
vloop() {
    for i in "$IN"/photo000[0-3].jpg; do
        vips gaussblur "$i" "$WORK/out4/${i##*/}[Q=90]" 5 --precision integer --min-ampl 0.011 || return 1
    done
}
! want vips vips || best 4-jpegs jpg vips "$WORK/out4/photo0003.jpg" vloop
