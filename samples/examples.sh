#!/bin/sh
# Runs the example pipelines of samples/README: examples.sh OUTDIR [GPUFILTER]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: examples.sh OUTDIR [GPUFILTER]}
gf=${2:-gpufilter}
mkdir -p "$out"
out=$(cd "$out" && pwd) # both paths are the caller's: the examples run in $here
case $gf in */*) gf=$(cd "$(dirname "$gf")" && pwd)/$(basename "$gf") ;; esac
cd "$here"
sed -n 's/^  gpufilter /gpufilter /p' README | while IFS= read -r line; do
    # outputs go to OUTDIR: prefix every argument ending in an image/histogram
    # extension that is not an input sample
    set -- $line
    shift
    args=
    for a in "$@"; do
        case $a in
        *.png|*.jpg|*.csv) [ -e "$a" ] && args="$args $a" || args="$args $out/$a" ;;
        \'*) args="$args $(echo "$a" | tr -d "'")" ;;
        *) args="$args $a" ;;
        esac
    done
    echo "gpufilter$args"
    "$gf" $args
done
