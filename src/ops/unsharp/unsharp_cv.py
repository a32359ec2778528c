# SPDX-License-Identifier: MIT
"""-unsharp's OpenCV counterpart (bench/cpu.sh): v + (v - blur), the blur as
-blur 2's (13 taps)."""
import cv2

FRAGMENTS = ["-unsharp 0x2"]


def counterpart(img, fragment):
    def run():
        b = cv2.GaussianBlur(img, (13, 13), 2, borderType=cv2.BORDER_REPLICATE)
        return cv2.addWeighted(img, 2, b, -1, 0)
    return run
