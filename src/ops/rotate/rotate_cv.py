# SPDX-License-Identifier: MIT
"""-rotate's OpenCV counterpart (bench/cpu.sh): a quarter turn, or bilinear
sampling on the enlarged canvas."""
import math

import cv2

FRAGMENTS = ["-rotate 30", "-rotate 90"]


def counterpart(img, fragment):
    arg = fragment.split()[1]
    if arg == "90":
        return lambda: cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
    h, w = img.shape[:2]
    a = math.radians(float(arg))
    c, s = abs(math.cos(a)), abs(math.sin(a))
    ow, oh = math.ceil(w * c + h * s), math.ceil(w * s + h * c)
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -float(arg), 1.0)
    m[0, 2] += ow / 2 - w / 2
    m[1, 2] += oh / 2 - h / 2
    return lambda: cv2.warpAffine(img, m, (ow, oh), flags=cv2.INTER_LINEAR)
