#!/bin/sh
# One command on a fresh Debian 12 machine: installs the build dependencies
# (as root), builds gpufilter, and blurs a bundled sample.
#   ./quickstart.sh          the CUDA path where an NVIDIA driver is present
#   ./quickstart.sh --cuda   the CUDA path regardless (to run on another machine)
#   ./quickstart.sh --cpu    the CPU path only
set -eu
cd "$(dirname "$0")"
cuda=auto
case ${1:-} in
--cuda) cuda=yes ;;
--cpu) cuda=no ;;
"") ;;
*) echo "usage: ./quickstart.sh [--cuda | --cpu]" >&2; exit 2 ;;
esac
deps="build-essential autoconf automake pkg-config libpng-dev libjpeg-dev libexif-dev libdeflate-dev"
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "== installing build dependencies (apt-get)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $deps >/dev/null
else
    echo "== not installing build dependencies (that needs root and apt-get); the build needs: $deps"
fi
# A CUDA build where the GPU can run it: an NVIDIA driver is loaded
if [ $cuda = auto ]; then
    if [ -e /proc/driver/nvidia/version ]; then
        cuda=yes
    else
        cuda=no
        echo "== no NVIDIA driver here: building the CPU path only (./quickstart.sh --cuda builds the CUDA path anyway)"
    fi
fi
echo "== building"
log=$(mktemp "${TMPDIR:-/tmp}/gpufilter-quickstart.XXXXXX")
trap 'rm -f "$log"' EXIT
step() { # what, then the command: its output shown only when it fails
    what=$1
    shift
    if ! "$@" > "$log" 2>&1; then
        cat "$log" >&2
        echo "== $what failed (its output is above)" >&2
        exit 1
    fi
}
step autogen.sh ./autogen.sh
if [ $cuda = yes ]; then
    step configure ./configure
else
    step configure ./configure --disable-cuda
fi
step make make -j"$(nproc 2>/dev/null || echo 2)"
out=$(pwd)/astronaut-blur5.png
./gpufilter -v -blur 5 samples/astronaut.png "$out"
echo "== done: wrote $out (gpufilter -blur 5 samples/astronaut.png); run 'make check' for the tests"
