# SPDX-License-Identifier: MIT
"""-erode's OpenCV counterpart (bench/cpu.sh): the minimum over (2R+1)^2."""
import cv2
import numpy as np

FRAGMENTS = ["-erode 3"]


def counterpart(img, fragment):
    k = np.ones((2 * int(fragment.split()[1]) + 1,) * 2, np.uint8)
    return lambda: cv2.erode(img, k)
