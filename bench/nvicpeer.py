#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The nvImageCodec peer of bench/sizes.sh: JPEG files read into memory
first, then (timed, after a warm-up batch that pays its start) decoded on
the GPU in batches of 32 (nvimgcodec.Decoder, hardware backend where the GPU
has JPEG engines), and decoded then encoded at quality 90 (Encoder), the
results left in memory; no filter.  Prints one line per mode:
"nvimgcodec MODE N images S s R img/s".  Its start (the first decode) is
printed too, as "start S s".

usage: nvicpeer.py FILE.jpg..."""
import sys
import time

from nvidia import nvimgcodec

BATCH = 32


def sync():
    try:
        import cupy
        cupy.cuda.runtime.deviceSynchronize()
    except ImportError:
        pass


def main():
    files = sys.argv[1:]
    data = []
    for f in files:
        with open(f, "rb") as fh:
            data.append(fh.read())
    t0 = time.perf_counter()
    dec = nvimgcodec.Decoder()
    enc = nvimgcodec.Encoder()
    params = nvimgcodec.EncodeParams(quality_type=nvimgcodec.QualityType.QUALITY, quality_value=90)
    warm = dec.decode(data[:min(BATCH, len(data))])
    enc.encode(warm[:1], ".jpg", params=params)
    sync()
    print("nvimgcodec start %.3f s" % (time.perf_counter() - t0))
    for mode in ("decode", "decode+encode"):
        t = time.perf_counter()
        for i in range(0, len(data), BATCH):
            images = dec.decode(data[i:i + BATCH])
            if mode == "decode+encode":
                out = enc.encode(images, ".jpg", params=params)
                assert len(out) == len(images) and all(o is not None for o in out)
        sync()
        s = time.perf_counter() - t
        print("nvimgcodec %s %d images %.3f s %.1f img/s" % (mode, len(data), s, len(data) / s))


if __name__ == "__main__":
    main()
