#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The torchvision (nvJPEG) peer of bench/batch.sh for JPEG: files read on
the CPU, decoded on the GPU in batches of 32 (torchvision.io.decode_jpeg,
device='cuda'), blurred (19-tap Gaussian, sigma 3; torchvision's reflect
border), turned a quarter clockwise, encoded on the GPU (encode_jpeg,
quality 90) and written.

usage: tvpool.py OUT_DIR FILE.jpg..."""
import os
import sys

import torch
from torchvision.io import decode_jpeg, encode_jpeg, read_file
from torchvision.transforms.v2.functional import gaussian_blur

BATCH = 32


def main():
    out, files = sys.argv[1], sys.argv[2:]
    for i in range(0, len(files), BATCH):
        chunk = files[i:i + BATCH]
        images = decode_jpeg([read_file(f) for f in chunk], device="cuda")
        results = [torch.rot90(gaussian_blur(im, [19, 19], [3.0, 3.0]), -1, [1, 2]).contiguous() for im in images]
        for f, data in zip(chunk, encode_jpeg(results, quality=90)):
            with open(os.path.join(out, os.path.basename(f)), "wb") as fh:
                fh.write(data.cpu().numpy().tobytes())


if __name__ == "__main__":
    main()
