# SPDX-License-Identifier: MIT
"""-blur's OpenCV counterpart (bench/cpu.sh): a Gaussian of sigma ARG, radius
ceil(3 sigma), clamped border."""
import math

import cv2

FRAGMENTS = ["-blur 2", "-blur 5"]


def counterpart(img, fragment):
    s = float(fragment.split()[1])
    k = 2 * math.ceil(3 * s) + 1
    return lambda: cv2.GaussianBlur(img, (k, k), s, borderType=cv2.BORDER_REPLICATE)
