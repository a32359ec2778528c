# SPDX-License-Identifier: MIT
"""-laplacian's OpenCV counterpart (bench/cpu.sh): |stencil|, saturated."""
import cv2
import numpy as np

FRAGMENTS = ["-laplacian", "-laplacian=4"]


def counterpart(img, fragment):
    kern = np.array([[0, -1, 0], [-1, 4, -1], [0, -1, 0]] if fragment.endswith("=4") else
                    [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]], np.float32)
    return lambda: cv2.convertScaleAbs(cv2.filter2D(img, cv2.CV_16S, kern, borderType=cv2.BORDER_REPLICATE))
