#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An op's OpenCV counterpart, from its folder's <op>_cv.py (FRAGMENTS: the
gpufilter fragments it stands beside; IMAGES: "rgb", "gray" or both;
counterpart(img, fragment): a callable doing the same work), for
bench/cpu.sh.

usage: cvpeer.py fragments OP_CV_PY IMAGE      (the fragments, one a line)
       cvpeer.py time OP_CV_PY FRAGMENT IMAGE_FILE THREADS
                                               (best of 3 after a warm-up, ms)"""
import importlib.util
import sys
import time


def load(path):
    spec = importlib.util.spec_from_file_location("peer", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv):
    if len(argv) == 4 and argv[1] == "fragments":
        mod = load(argv[2])
        if argv[3] in getattr(mod, "IMAGES", ["rgb", "gray"]):
            for f in mod.FRAGMENTS:
                print(f)
        return 0
    if len(argv) == 6 and argv[1] == "time":
        import cv2
        mod = load(argv[2])
        cv2.setNumThreads(int(argv[5]))
        img = cv2.imread(argv[4], cv2.IMREAD_UNCHANGED)
        if img is None:
            print(f"cvpeer.py: cannot read {argv[4]}", file=sys.stderr)
            return 1
        run = mod.counterpart(img, argv[3])
        run()
        best = min((lambda t0: (run(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(3))
        print(f"{best * 1e3:.1f}")
        return 0
    print(__doc__.split("usage: ")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
