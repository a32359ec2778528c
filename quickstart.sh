#!/bin/sh
# One command on a fresh Debian 12 machine, as root: installs the build
# dependencies, builds gpufilter, and blurs a bundled sample.
set -eu
cd "$(dirname "$0")"
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "== installing build dependencies (apt-get)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        build-essential autoconf automake pkg-config libpng-dev libjpeg-dev libexif-dev libdeflate-dev >/dev/null
fi
echo "== building"
./autogen.sh >/dev/null 2>&1
./configure -q
make -s -j"$(nproc 2>/dev/null || echo 2)"
out=$(pwd)/astronaut-blur5.png
./gpufilter -v -blur 5 samples/astronaut.png "$out"
echo "== done: wrote $out (gpufilter -blur 5 samples/astronaut.png); run 'make check' for the tests"
