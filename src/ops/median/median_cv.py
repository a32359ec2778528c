# SPDX-License-Identifier: MIT
"""-median's OpenCV counterpart (bench/cpu.sh): the median over (2R+1)^2."""
import cv2

FRAGMENTS = ["-median 2"]


def counterpart(img, fragment):
    return lambda: cv2.medianBlur(img, 2 * int(fragment.split()[1]) + 1)
