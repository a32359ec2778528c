# SPDX-License-Identifier: MIT
"""-grayscale's OpenCV counterpart (bench/cpu.sh): colour images only."""
import cv2

FRAGMENTS = ["-grayscale"]
IMAGES = ["rgb"]


def counterpart(img, fragment):
    return lambda: cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
