#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end batch benchmark: N photo-like W x H images (bench/genphotos.py,
# from the bundled samples), as PNG and as JPEG, through -blur 3 -rotate 90:
#   gpufilter batch (-o DIR), gpufilter one process per file (a shell loop),
#   OpenCV-Python with a pool of one worker per core (bench/cvpool.py),
#   torchvision's nvJPEG path for JPEG (bench/tvpool.py, where torch is),
#   ImageMagick mogrify and vips, where installed; then one image of each
#   format through gpufilter and through an OpenCV one-liner (-blur 5).
# Same work everywhere (Gaussian sigma 3 over radius 9, clamped border, a
# clockwise quarter turn), PNG at zlib level 6, JPEG at quality 90.  Then a
# gpufilter -v batch run says where the time goes.
#
# usage: bench/batch.sh [-n N] [-s WxH] [-f FORMATS] [-c CSV] [-t TOOLS] WORKDIR
#   FORMATS: png,jpg (default both); TOOLS: comma list of batch,perfile,
#   opencv,torch,mogrify,vips,single (default all)
#   environment: GPUFILTER (default ./gpufilter), PYTHON (a python3 with cv2)
set -eu
N=100 SIZE=4000x3000 CSV= TOOLS=batch,perfile,opencv,torch,mogrify,vips,single FORMATS=png,jpg
while getopts n:s:c:t:f: o; do
    case $o in
    n) N=$OPTARG ;; s) SIZE=$OPTARG ;; c) CSV=$OPTARG ;; t) TOOLS=$OPTARG ;; f) FORMATS=$OPTARG ;;
    *) sed -n '3,18s/^# \{0,1\}//p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# = 1 ] || { sed -n '3,18s/^# \{0,1\}//p' "$0"; exit 2; }
WORK=$1
HERE=$(cd "$(dirname "$0")" && pwd)
GF=$(cd "$(dirname "${GPUFILTER:-./gpufilter}")" && pwd)/$(basename "${GPUFILTER:-./gpufilter}")
[ -x "$GF" ] || { echo "batch.sh: no gpufilter at $GF (set GPUFILTER)" >&2; exit 1; }
PY=
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$p" ] && "$p" -c 'import cv2, numpy' 2>/dev/null && { PY=$p; break; }
done
[ -n "$PY" ] || { echo "batch.sh: needs a python3 with cv2 and numpy (to make the images)" >&2; exit 1; }
want() { case ",$TOOLS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $1 }"; }
CORES=$(nproc)
W=${SIZE%x*} H=${SIZE#*x}
MP=$(calc "$N * $W * $H / 1000000")

mkdir -p "$WORK"
IN=$WORK/in-$N-$SIZE
FMTS=$(echo "$FORMATS" | tr ',' ' ')
have() { for f in $FMTS; do [ "$(ls "$IN" 2>/dev/null | grep -c "\.$f\$")" = "$N" ] || return 1; done; }
if ! have; then
    echo "making $N images of $SIZE in $IN ..."
    t0=$(now)
    "$PY" "$HERE/genphotos.py" "$N" "$SIZE" "$HERE/../samples" "$IN" "$FORMATS" 2>&1 | grep -v 'iCCP' >&2 || true
    have || { echo "batch.sh: making the images failed" >&2; exit 1; }
    echo "  $(calc "$(now) - $t0") s"
fi
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "gpufilter: $("$GF" --version | tr '\n' ' ')"
[ -n "$CSV" ] && echo "tool,format,images,megapixels,seconds,images_per_s,mp_per_s,output_mb" > "$CSV"
printf '%-34s %-4s %7s %9s %8s %9s\n' tool fmt seconds images/s MP/s output_MB

# row LABEL FMT CMD...: time CMD into $WORK/out, check it wrote N files
row() {
    label=$1 fmt=$2
    shift 2
    rm -rf "$WORK/out"
    mkdir "$WORK/out"
    sync
    t0=$(now)
    "$@" > "$WORK/row.log" 2>&1 || { echo "$label: failed: $(tail -3 "$WORK/row.log")" >&2; return 0; }
    t=$(calc "$(now) - $t0")
    got=$(ls "$WORK/out" | grep -c "\.$fmt\$" || true)
    [ "$got" = "$N" ] || { echo "$label: wrote $got of $N files" >&2; return 0; }
    ips=$(calc "$N / $t") mps=$(calc "$MP / $t")
    mb=$(du -sk "$WORK/out" | awk '{ printf "%.1f", $1 / 1024 }')
    printf '%-34s %-4s %7.2f %9.2f %8.1f %9s\n' "$label" "$fmt" "$t" "$ips" "$mps" "$mb"
    [ -z "$CSV" ] || printf '"%s",%s,%s,%.1f,%.3f,%.3f,%.2f,%s\n' "$label" "$fmt" "$N" "$MP" "$t" "$ips" "$mps" "$mb" >> "$CSV"
}
perfile() { # FMT FILE...: one gpufilter process per file, one after another
    for f in "$@"; do "$GF" -q -blur 3 -rotate 90 "$f" "$WORK/out/${f##*/}" || return 1; done
}
vips_each() { # one vips pipeline per file (vips threads internally)
    opts=$1
    shift
    for f in "$@"; do
        vips gaussblur "$f" "$WORK/t.v" 3 --min-ampl 0.011 --precision integer &&
            vips rot "$WORK/t.v" "$WORK/out/${f##*/}[$opts]" d90 || return 1
    done
    rm -f "$WORK/t.v"
}

for fmt in $FMTS; do
    set -- "$IN"/*.$fmt
    want batch && row "gpufilter batch ($CORES threads)" $fmt "$GF" -q -blur 3 -rotate 90 -o "$WORK/out" "$@"
    if want batch && [ $fmt = jpg ]; then
        row "gpufilter batch, -codec gpu" $fmt "$GF" -q -codec gpu -blur 3 -rotate 90 -o "$WORK/out" "$@"
        row "gpufilter batch, -codec cpu" $fmt "$GF" -q -codec cpu -blur 3 -rotate 90 -o "$WORK/out" "$@"
    fi
    want perfile && row "gpufilter, one process per file" $fmt perfile "$@"
    want opencv && row "opencv-python pool ($CORES procs)" $fmt "$PY" "$HERE/cvpool.py" "$WORK/out" "$@"
    if want torch && [ $fmt = jpg ] && "$PY" -c 'import torch, torchvision; assert torch.cuda.is_available()' 2>/dev/null; then
        row "torchvision nvJPEG (batches of 32)" $fmt "$PY" "$HERE/tvpool.py" "$WORK/out" "$@"
    fi
    if want mogrify && command -v mogrify >/dev/null 2>&1; then
        # -blur 9x3: radius 9, sigma 3; PNG zlib level 6; JPEG quality 90
        if [ $fmt = png ]; then q="-define png:compression-level=6"; else q="-quality 90"; fi
        row "imagemagick mogrify" $fmt mogrify -path "$WORK/out" $q -blur 9x3 -rotate 90 "$@"
    fi
    if want vips && command -v vips >/dev/null 2>&1; then
        if [ $fmt = png ]; then q=compression=6; else q=Q=90; fi
        row "vips (per file)" $fmt vips_each $q "$@"
    fi
done

# one image of each format, -blur 5 (sigma 5, radius 15), best of 3 wall
# times: gpufilter, and OpenCV in a python process of its own (its threads)
if want single; then
    for fmt in $FMTS; do
        f=$IN/photo0000.$fmt
        best=
        for r in 1 2 3; do
            t0=$(now)
            "$GF" -q -blur 5 "$f" "$WORK/single.$fmt" || break
            t=$(calc "$(now) - $t0")
            best=$(awk -v a="$t" -v b="${best:-1e9}" 'BEGIN { print (a < b) ? a : b }')
        done
        printf '%-34s %-4s %7.3f\n' "gpufilter one image -blur 5" $fmt "$best"
        [ -z "$CSV" ] || printf '"gpufilter one image",%s,1,%.1f,%.3f,,,\n' $fmt "$(calc "$W * $H / 1000000")" "$best" >> "$CSV"
        best=
        for r in 1 2 3; do
            t0=$(now)
            "$PY" -c 'import cv2, sys; p = [cv2.IMWRITE_PNG_COMPRESSION, 6] if sys.argv[2].endswith(".png") else [cv2.IMWRITE_JPEG_QUALITY, 90]; cv2.imwrite(sys.argv[2], cv2.GaussianBlur(cv2.imread(sys.argv[1]), (31, 31), 5, borderType=cv2.BORDER_REPLICATE), p)' "$f" "$WORK/single-cv.$fmt" || break
            t=$(calc "$(now) - $t0")
            best=$(awk -v a="$t" -v b="${best:-1e9}" 'BEGIN { print (a < b) ? a : b }')
        done
        printf '%-34s %-4s %7.3f\n' "opencv-python one image" $fmt "$best"
        [ -z "$CSV" ] || printf '"opencv-python one image",%s,1,%.1f,%.3f,,,\n' $fmt "$(calc "$W * $H / 1000000")" "$best" >> "$CSV"
    done
fi

# where the time goes: the -v lines of one batch run, summed by stage
for fmt in $FMTS; do
    rm -rf "$WORK/out"
    t0=$(now)
    "$GF" -v -blur 3 -rotate 90 -o "$WORK/out" "$IN"/*.$fmt 2> "$WORK/v-$fmt.log"
    t=$(calc "$(now) - $t0")
    awk -v wall="$t" -v threads="$CORES" -v fmt=$fmt '
        $1 == "gpufilter:" && $4 ~ /^[0-9.]+$/ && $5 == "ms" { s[$3] += $4 / 1000 }
        $0 ~ /running on cuda/ { gpu = 1 }
        $3 == "decode" { cpudec++ }
        match($0, /batch of [0-9]+/) { n = substr($0, RSTART + 9, RLENGTH - 9); hw++; batches += 1 / n }
        END {
            busy = s["read"] + s["decode"] + s["chain"] + s["encode"] + s["write"]
            printf "%s: wall %.2f s x %d threads = %.1f thread-s: read %.1f, decode %.1f, chain (with nvJPEG) %.1f, encode+write %.1f, idle %.1f\n",
                fmt, wall, threads, wall * threads, s["read"], s["decode"], s["chain"], s["encode"] + s["write"], wall * threads - busy
            if (s["nvjpeg-dec"] + s["chain+enc"] > 0)
                printf "%s: nvJPEG decode %.2f s, chain and nvJPEG encode %.2f s (lane time, inside chain), in %.2f s of wall\n",
                    fmt, s["nvjpeg-dec"], s["chain+enc"], wall
            if (hw)
                printf "%s: %d images on the JPEG engines in %.0f calls (%.1f a call), %d decoded by libjpeg-turbo\n",
                    fmt, hw, batches, hw / batches, cpudec
            if (gpu && s["upload"] + s["download"] > 0)
                printf "%s: GPU stream time %.2f s (upload %.2f, blur %.2f, rotate %.2f, download %.2f) in %.2f s of wall: GPU busy at most %.0f%%\n",
                    fmt, s["upload"] + s["blur"] + s["rotate"] + s["download"], s["upload"], s["blur"], s["rotate"],
                    s["download"], wall, 100 * (s["upload"] + s["blur"] + s["rotate"] + s["download"]) / wall
        }' "$WORK/v-$fmt.log"
done
