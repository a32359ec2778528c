# SPDX-License-Identifier: MIT
"""-resize's OpenCV counterpart (bench/cpu.sh): Lanczos (OpenCV's has 8 taps a
side and is not stretched when shrinking)."""
import cv2

FRAGMENTS = ["-resize 50%"]


def counterpart(img, fragment):
    h, w = img.shape[:2]
    return lambda: cv2.resize(img, (w // 2, h // 2), interpolation=cv2.INTER_LANCZOS4)
