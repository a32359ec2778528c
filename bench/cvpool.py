#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The OpenCV peer of bench/batch.sh: the same work as
`gpufilter -blur 3 -rotate 90` (a 19-tap Gaussian, sigma 3, radius 9, clamped
border; a 90-degree clockwise turn) over a list of files with a process pool
of one worker per core, each worker single-threaded inside OpenCV (the
fastest arrangement for a pool; OpenCV's own threads only oversubscribe).
PNG at zlib level 6 (which also selects zlib's default strategy), JPEG at
quality 90, as gpufilter's defaults.

usage: cvpool.py OUT_DIR FILE..."""
import os
import sys
from multiprocessing import Pool

import cv2

PARAMS = {".png": [cv2.IMWRITE_PNG_COMPRESSION, 6], ".jpg": [cv2.IMWRITE_JPEG_QUALITY, 90]}
OUT = None


def init(out):
    global OUT
    OUT = out
    cv2.setNumThreads(1)


def one(path):
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img is None:
        return 0
    img = cv2.GaussianBlur(img, (19, 19), 3, borderType=cv2.BORDER_REPLICATE)
    img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
    name = os.path.basename(path)
    cv2.imwrite(os.path.join(OUT, name), img, PARAMS[os.path.splitext(name)[1]])
    return img.shape[0] * img.shape[1]


def main():
    out, files = sys.argv[1], sys.argv[2:]
    with Pool(os.cpu_count(), initializer=init, initargs=(out,)) as pool:
        pixels = sum(pool.map(one, files, chunksize=1))
    if pixels == 0 and files:
        sys.exit("cvpool: nothing decoded")


if __name__ == "__main__":
    main()
