# SPDX-License-Identifier: MIT
"""-convolve's OpenCV counterpart (bench/cpu.sh): the Sobel kernel as a
correlation, saturated."""
import cv2
import numpy as np

FRAGMENTS = ["-convolve sobel"]


def counterpart(img, fragment):
    kern = np.array([[1, 0, -1], [2, 0, -2], [1, 0, -1]], np.float32)
    return lambda: cv2.filter2D(img, -1, kern, borderType=cv2.BORDER_REPLICATE)
