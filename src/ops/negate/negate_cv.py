# SPDX-License-Identifier: MIT
"""-negate's OpenCV counterpart (bench/cpu.sh): the bitwise complement, which
is 255 - v on 8-bit samples (the images have no alpha)."""
import cv2

FRAGMENTS = ["-negate"]


def counterpart(img, fragment):
    return lambda: cv2.bitwise_not(img)
