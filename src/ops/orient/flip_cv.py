# SPDX-License-Identifier: MIT
"""-flip's OpenCV counterpart (bench/cpu.sh): top to bottom."""
import cv2

FRAGMENTS = ["-flip"]


def counterpart(img, fragment):
    return lambda: cv2.flip(img, 0)
