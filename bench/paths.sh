#!/bin/sh
# What each op's fast kernel paths buy: bench/gfbench of this build beside
# the same source with every path chooser returning its general kernel, one
# op after the other in one run.  From a configured CUDA build directory:
#   bench/paths.sh OUTDIR [GFBENCH OPTIONS]
# (default options: -s 8192x8192 -n 10 -f rgba8,rgb8,gray8,rgba16).  Writes
# OUTDIR/paths.csv (format, op, fast_ms, general_ms, general/fast, both
# paths) and prints it as a table.  The general build is made from `make
# distdir` in OUTDIR/general, configured as this one was.
#   bench/paths.sh --check OPS_DIR
# only checks that every chooser below still reads as this script expects
# (on a copy of OPS_DIR, the source's src/ops; make check runs it).
set -eu
usage="usage: bench/paths.sh OUTDIR [GFBENCH OPTIONS] | --check OPS_DIR"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }

# force FILE SED-SCRIPT: edit $ops/FILE's chooser; fail if nothing changed
force() {
    f=$ops/$1
    cp "$f" "$f.orig"
    sed -i "$2" "$f"
    if cmp -s "$f" "$f.orig"; then
        echo "bench/paths.sh: src/ops/$1: the chooser is not the one this script knows" >&2
        exit 1
    fi
    rm "$f.orig"
}
general() {
    force blur/blur.cu '/^int choose_path(const gf_image \*in, int R, uint32_t centre)$/{n;s/^{$/{\n    return GENERAL;/}'
    force box/box.cu 's/^    if (!gf_word_rows(in) || R > ONE_R)$/    if (true)/'
    force histogram/equalize.cu 's/return in->depth == 8 ? APPLY8 : APPLY;/return APPLY;/'
    force histogram/histogram.cu 's/if (in->depth == 8 \&\& gf_dispatch/if (false \&\& gf_dispatch/'
    force laplacian/laplacian.cu 's/return gf_word_rows(in) ? WORDS : TILED;/return TILED;/'
    force median/median.cu 's/return GF_RANK_ARGS(s).radius == 1 ? ROWS3 : SELECTION;/return SELECTION;/'
    force orient/orient.cu '/^int choose_path(const gf_image \*in, enum gf_orient o)$/{n;s/^{$/{\n    return (o \& GF_OR_SWAP) ? SWAP : DIRECT;/}'
    force rank/rank.cu 's/return GF_RANK_ARGS(s).radius <= TILE_R ? TILED : VHGW;/return VHGW;/'
    force resize/resize.cu 's/p->path = p->rows ? TILE : PASSES;/p->path = PASSES;/'
}

if [ "$1" = --check ]; then
    [ $# -eq 2 ] || { echo "$usage" >&2; exit 2; }
    ops=$(mktemp -d)
    trap 'rm -rf "$ops"' EXIT
    cp -R "$2"/. "$ops"
    general
    exit 0
fi

out=$1
shift
[ $# -gt 0 ] || set -- -s 8192x8192 -n 10 -f rgba8,rgb8,gray8,rgba16
mkdir -p "$out"
out=$(cd "$out" && pwd)
gen=$out/general
rm -rf "$gen"
mkdir -p "$gen/build"

make -s bench
make -s distdir distdir="$gen/src" > /dev/null

ops=$gen/src/src/ops
general

config=$(./config.status --config)
(cd "$gen/build" && eval "'$gen/src/configure' -q $config" && make -s -j"$(nproc)" bench) > "$gen/build.log" 2>&1 ||
    { tail -5 "$gen/build.log" >&2; exit 1; }

for op in -blur -box -laplacian -flip -flop -transpose -transverse -rotate -histogram -equalize -resize \
    '-filter box' -erode -dilate -median -unsharp; do
    name=$(printf '%s' "$op" | tr -c 'a-z0-9\n' '_')
    ./bench/gfbench "$@" -op "$op" -csv "$out/fast$name.csv" > /dev/null
    "$gen/build/bench/gfbench" "$@" -op "$op" -csv "$out/general$name.csv" > /dev/null
done

# Rows of the two runs side by side; a CSV line's kernels field is all after its seventh comma.
awk -F, '
function kernels(line,   i) { for (i = 0; i < 7; i++) sub(/^[^,]*,/, "", line); return line }
FNR == 1 || $2 ~ /^(copy|read pass|empty kernel)$/ { next }
FILENAME ~ /\/fast[^\/]*$/ { ms[$1 "," $2] = $3; path[$1 "," $2] = kernels($0); order[++n] = $1 "," $2; next }
{ gms[$1 "," $2] = $3; gpath[$1 "," $2] = kernels($0) }
END {
    print "format,op,fast_ms,general_ms,general/fast,fast_kernels,general_kernels"
    for (i = 1; i <= n; i++) {
        k = order[i]
        printf "%s,%s,%s,%.2f,\"%s\",\"%s\"\n", k, ms[k], gms[k], gms[k] / ms[k], path[k], gpath[k]
    }
}' "$out"/fast*.csv "$out"/general*.csv > "$out/paths.csv"
awk -F, 'NR > 1 { printf "%-7s %-28s %9s %9s %7sx  %s\n", $1, $2, $3, $4, $5, substr($0, index($0, "\"")) }' \
    "$out/paths.csv"
