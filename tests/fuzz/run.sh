#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs each fuzz target for SECONDS (default 60), seeded from tests/fuzz/corpus, tests/images,
# tests/bad and tests/fuzz/cli-seeds, in a work directory that keeps the
# grown corpora.  A crash, leak or timeout is saved there as crash-*/leak-*/
# timeout-* and fails the run: copy it into tests/bad/ (decoder findings) so
# that make check replays it.
# usage: tests/fuzz/run.sh [SECONDS] [WORKDIR]   (from the build directory)
set -u
secs=${1:-60}
work=${2:-fuzz-work}
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work/decode" "$work/cli"
rc=0
run() { # NAME SEEDS...
    name=$1
    shift
    echo "== fuzz_$name, $secs s"
    "./tests/fuzz/fuzz_$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/" "$work/$name" "$@" > "$work/$name.log" 2>&1
    r=$?
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+.*DONE|ERROR|SUMMARY' "$work/$name.log" | tail -5
    [ $r = 0 ] || { echo "fuzz_$name FAILED (exit $r): see $work/$name.log"; rc=1; }
}
run decode "$src/tests/fuzz/corpus" "$src/tests/images" "$src/tests/bad"
run cli "$src/tests/fuzz/cli-seeds"
exit $rc
