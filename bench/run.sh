#!/bin/sh
# The benchmark as run for docs/PERFORMANCE.md: builds `make bench` and runs
# it at 8192x8192 for every format, writing the table and a CSV.
#   bench/run.sh [OUTDIR]
set -eu
out=${1:-.}
make -s bench
./bench/gfbench -s 8192x8192 -n 25 -csv "$out/bench.csv" | tee "$out/bench.txt"
