# SPDX-License-Identifier: MIT
"""-equalize's OpenCV counterpart (bench/cpu.sh): OpenCV equalizes gray images only."""
import cv2

FRAGMENTS = ["-equalize"]
IMAGES = ["gray"]


def counterpart(img, fragment):
    return lambda: cv2.equalizeHist(img)
