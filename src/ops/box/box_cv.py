# SPDX-License-Identifier: MIT
"""-box's OpenCV counterpart (bench/cpu.sh): the mean over (2R+1)^2, clamped border."""
import cv2

FRAGMENTS = ["-box 5"]


def counterpart(img, fragment):
    k = 2 * int(fragment.split()[1]) + 1
    return lambda: cv2.blur(img, (k, k), borderType=cv2.BORDER_REPLICATE)
