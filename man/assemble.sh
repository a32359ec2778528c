#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual from its parts: man/gpufilter.1.in, with its "@OPERATIONS@"
# line replaced by every operation's section (src/ops/*/<op>.man, in
# src/ops/list.h's order; an op described in another's section, as -dilate
# in -erode's, has none of its own).
#
# usage: man/assemble.sh SRCDIR > man/gpufilter.1
set -eu
[ $# = 1 ] || { sed -n '3,8s/^# \{0,1\}//p' "$0" >&2; exit 2; }
src=$1
while IFS= read -r line; do
    if [ "$line" = "@OPERATIONS@" ]; then
        for op in $(sed -n 's/^GF_OP(\([a-z0-9_]*\))$/\1/p' "$src/src/ops/list.h"); do
            for f in "$src"/src/ops/*/"$op.man"; do
                [ ! -f "$f" ] || cat "$f"
            done
        done
    else
        printf '%s\n' "$line"
    fi
done < "$src/man/gpufilter.1.in"
