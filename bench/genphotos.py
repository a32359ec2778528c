#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Photo-like test images for bench/batch.sh: the bundled samples upscaled
(bicubic) to W x H, each image a different crop, flip and brightness of one
of them plus mild sensor-like noise, written as PNG (zlib 6) and JPEG (q 90).

usage: genphotos.py N WxH SAMPLES_DIR OUT_DIR [png,jpg]"""
import os
import sys
from multiprocessing import Pool

import cv2
import numpy as np


def make(args):
    i, w, h, samples, out, formats = args
    names = sorted(f for f in os.listdir(samples) if f.endswith((".png", ".jpg")) and f != "horse.png")
    src = cv2.imread(os.path.join(samples, names[i % len(names)]), cv2.IMREAD_COLOR)
    rng = np.random.default_rng(i)
    big = cv2.resize(src, (w * 5 // 4, h * 5 // 4), interpolation=cv2.INTER_CUBIC)
    x = int(rng.integers(0, big.shape[1] - w + 1))
    y = int(rng.integers(0, big.shape[0] - h + 1))
    img = big[y:y + h, x:x + w].astype(np.float32)
    if i % 2:
        img = img[:, ::-1]
    img = img * rng.uniform(0.8, 1.1) + rng.normal(0.0, 2.0, img.shape).astype(np.float32)
    img = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    base = os.path.join(out, "photo%04d" % i)
    if "png" in formats:
        cv2.imwrite(base + ".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    if "jpg" in formats:
        cv2.imwrite(base + ".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])


def main():
    n, size, samples, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    formats = sys.argv[5].split(",") if len(sys.argv) > 5 else ["png", "jpg"]
    w, h = (int(v) for v in size.split("x"))
    os.makedirs(out, exist_ok=True)
    cv2.setNumThreads(1)
    with Pool(os.cpu_count()) as pool:
        pool.map(make, [(i, w, h, samples, out, formats) for i in range(n)])


if __name__ == "__main__":
    main()
