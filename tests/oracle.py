# SPDX-License-Identifier: MIT
"""OpenCV as an independent oracle for the CPU path (and so for the GPU path).
Usage: oracle.py GPUFILTER SAMPLES_DIR WORKDIR.  Exit 77 where cv2 is missing."""
import os, subprocess, sys

try:
    import cv2
    import numpy as np
except ImportError:
    print('cv2 (python3-opencv) not available')
    sys.exit(77)

GF, SAMPLES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []
BORDERS = {'clamp': cv2.BORDER_REPLICATE, 'mirror': cv2.BORDER_REFLECT_101, 'zero': cv2.BORDER_CONSTANT}


def read(path):
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img.ndim == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2RGBA if img.shape[2] == 4 else cv2.COLOR_BGR2RGB)
    return img


def write(path, img):
    if img.ndim == 3:
        img = cv2.cvtColor(img, cv2.COLOR_RGBA2BGRA if img.shape[2] == 4 else cv2.COLOR_RGB2BGR)
    assert cv2.imwrite(path, img)


def gf(args, src):
    out = os.path.join(WORK, 'out.png')
    subprocess.check_call([GF] + args + [src, out])
    return read(out)


def check(name, got, want, tol=0, frac_exact=None):
    got = got.astype(np.int64)
    want = np.asarray(want).astype(np.int64)
    if got.shape != want.shape:
        failures.append('%s: shape %s vs %s' % (name, got.shape, want.shape))
        return
    d = np.abs(got - want)
    if d.max() > tol:
        failures.append('%s: max diff %d > %d (%d samples)' % (name, d.max(), tol, int((d > tol).sum())))
    elif frac_exact is not None and (d == 0).mean() < frac_exact:
        failures.append('%s: only %.5f exact' % (name, (d == 0).mean()))
    else:
        print('ok %-40s max diff %d' % (name, d.max()))


def rnd(h, w, c, depth, seed):
    r = np.random.default_rng(seed)
    a = r.integers(0, 256 if depth == 8 else 65536, size=(h, w, c) if c > 1 else (h, w))
    return a.astype(np.uint8 if depth == 8 else np.uint16)


def hround(x):
    return np.floor(x + 0.5)


inputs = []
for name in ('astronaut.png', 'camera.png', 'horse.png'):
    p = os.path.join(SAMPLES, name)
    inputs.append((name, p, read(p)))
for (h, w, c, d, s) in ((37, 53, 3, 16, 1), (61, 29, 1, 8, 2), (17, 23, 4, 16, 3)):
    p = os.path.join(WORK, 'rnd%d.png' % s)
    write(p, rnd(h, w, c, d, s))
    inputs.append(('random %dx%dx%d/%d' % (w, h, c, d), p, read(p)))

for label, path, img in inputs:
    maxv = 255 if img.dtype == np.uint8 else 65535
    f64 = img.astype(np.float64)
    for bname, bcv in BORDERS.items():
        for sigma in (1.0, 2.5):
            r = int(np.ceil(3 * sigma))
            k = 2 * r + 1
            want = hround(cv2.GaussianBlur(f64, (k, k), sigma, sigmaY=sigma, borderType=bcv))
            check('%s blur %g %s' % (label, sigma, bname), gf(['-border', bname, '-blur', str(sigma)], path), want, 1)
        for radius in (1, 3):
            n = 2 * radius + 1
            want = hround(cv2.blur(f64, (n, n), borderType=bcv))
            check('%s box %d %s' % (label, radius, bname), gf(['-border', bname, '-box', str(radius)], path), want, 1, 0.9999)
        for var, kern in (('', [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]]), ('=4', [[0, -1, 0], [-1, 4, -1], [0, -1, 0]])):
            resp = cv2.filter2D(f64, -1, np.array(kern, np.float64), borderType=bcv)
            want = np.minimum(np.abs(resp), maxv)
            if img.ndim == 3 and img.shape[2] == 4:
                want[..., 3] = img[..., 3]
            check('%s laplacian%s %s' % (label, var, bname), gf(['-border', bname, '-laplacian' + var], path), want)
    check(label + ' rotate 90', gf(['-rotate', '90'], path), cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE))
    check(label + ' rotate 180', gf(['-rotate', '180'], path), cv2.rotate(img, cv2.ROTATE_180))
    check(label + ' rotate 270', gf(['-rotate', '270'], path), cv2.rotate(img, cv2.ROTATE_90_COUNTERCLOCKWISE))
    check(label + ' flip', gf(['-flip'], path), cv2.flip(img, 0))
    check(label + ' flop', gf(['-flop'], path), cv2.flip(img, 1))
    check(label + ' transpose', gf(['-transpose'], path), cv2.transpose(img))
    check(label + ' transverse', gf(['-transverse'], path), cv2.flip(cv2.transpose(img), -1))
    # histogram against calcHist
    csv = os.path.join(WORK, 'h.csv')
    subprocess.check_call([GF, '-histogram', csv, path])
    rows = np.loadtxt(csv, delimiter=',', skiprows=1, dtype=np.int64)
    chans = 1 if img.ndim == 2 else img.shape[2]
    for ch in range(chans):
        plane = img if img.ndim == 2 else np.ascontiguousarray(img[..., ch])
        want = cv2.calcHist([plane], [0], None, [256], [0, maxv + 1]).ravel()
        got = rows[:, 1 + ch]
        if not np.array_equal(got, want.astype(np.int64)):
            failures.append('%s histogram channel %d differs' % (label, ch))
    print('ok %-40s' % (label + ' histogram'))
    # equalize: 8-bit gray against equalizeHist
    if img.dtype == np.uint8 and img.ndim == 2:
        check(label + ' equalize', gf(['-equalize'], path), cv2.equalizeHist(img), 1, 0.99)
    # rotate 30: warpAffine bilinear with the same geometry, interior pixels
    if img.ndim == 3 and img.shape[2] == 3:
        h, w = img.shape[:2]
        a = np.deg2rad(30.0)
        ca, sa = np.cos(a), np.sin(a)
        ow, oh = int(np.ceil(w * abs(ca) + h * abs(sa) - 1e-9)), int(np.ceil(w * abs(sa) + h * abs(ca) - 1e-9))
        M = np.array([[ca, sa, 0.0], [-sa, ca, 0.0]])
        M[0, 2] = ca * (0.5 - ow / 2) + sa * (0.5 - oh / 2) + w / 2 - 0.5
        M[1, 2] = -sa * (0.5 - ow / 2) + ca * (0.5 - oh / 2) + h / 2 - 0.5
        want = cv2.warpAffine(f64.astype(np.float32), M, (ow, oh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        got = gf(['-rotate', '30'], path).astype(np.float64)
        ys, xs = np.mgrid[0:oh, 0:ow]
        sx = M[0, 0] * xs + M[0, 1] * ys + M[0, 2]
        sy = M[1, 0] * xs + M[1, 1] * ys + M[1, 2]
        inside = (sx >= 1) & (sy >= 1) & (sx <= w - 2) & (sy <= h - 2)
        d = np.abs(got - hround(want))[inside]
        tol = 2 + maxv // 32   # OpenCV quantises positions to 1/32 pixel
        if got.shape != want.shape or d.max() > tol or d.mean() > maxv / 255.0:
            failures.append('%s rotate 30: max %g mean %g' % (label, d.max(), d.mean()))
        else:
            print('ok %-40s max diff %d, mean %.3f' % (label + ' rotate 30', d.max(), d.mean()))

    # erode and dilate: OpenCV's with a square kernel, exact (clamp: OpenCV's default border ignores the outside,
    # which the edge samples repeated give too)
    for bname, bcv in BORDERS.items():
        for radius in (1, 4):
            k = np.ones((2 * radius + 1, 2 * radius + 1), np.uint8)
            for op, f in (('erode', cv2.erode), ('dilate', cv2.dilate)):
                want = f(img, k, borderType=bcv, borderValue=0)
                check('%s %s %d %s' % (label, op, radius, bname), gf(['-border', bname, '-' + op, str(radius)], path),
                      want)
    # unsharp: ImageMagick's formula over gpufilter's own blur, in the fixed point the man page gives (exact)
    blurred = gf(['-blur', '2'], path).astype(np.int64)
    v = img.astype(np.int64)
    d = v - blurred
    gain, t = round(1.5 * 65536), int(np.ceil(0.02 * maxv))
    want = np.where(2 * np.abs(d) < t, v, np.clip(v + ((d * gain + 32768) >> 16), 0, maxv))
    if img.ndim == 3 and img.shape[2] in (2, 4):
        want[..., -1] = v[..., -1]
    check(label + ' unsharp 0x2+1.5+0.02', gf(['-unsharp', '0x2+1.5+0.02'], path), want)
    # convolve: filter2D (a correlation) in float64, rounded, clamped; the kernel normalised (sum 16) and not
    # (sum 0); edge: the magnitude of the Sobel pair
    f64 = img.astype(np.float64)
    cc = img.shape[2] - 1 if img.ndim == 3 and img.shape[2] in (2, 4) else (1 if img.ndim == 2 else img.shape[2])
    for bname, bcv in BORDERS.items():
        for text, kern in (('3x3:1,2,1,2,4,2,1,2,1', np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16.0),
                           ('3x3:1,2,1,0,0,0,-1,-2,-1', np.array([[1, 2, 1], [0, 0, 0], [-1, -2, -1]], np.float64))):
            want = np.clip(np.floor(cv2.filter2D(f64, -1, kern, borderType=bcv) + 0.5), 0, maxv)
            if img.ndim == 3 and img.shape[2] == 4:
                want[..., 3] = img[..., 3]
            check('%s convolve %s %s' % (label, text, bname), gf(['-border', bname, '-convolve', text], path), want,
                  1 if '4,2' in text else 0)
        kx = np.array([[1, 0, -1], [2, 0, -2], [1, 0, -1]], np.float64)
        gx, gy = cv2.filter2D(f64, -1, kx, borderType=bcv), cv2.filter2D(f64, -1, kx.T.copy(), borderType=bcv)
        want = np.minimum(np.floor(np.sqrt(gx * gx + gy * gy) + 0.5), maxv)
        if img.ndim == 3 and img.shape[2] == 4:
            want[..., 3] = img[..., 3]
        check('%s edge sobel %s' % (label, bname), gf(['-border', bname, '-edge', 'sobel'], path), want)
    # median: medianBlur (replicated border), exact; 16-bit only at 3x3 and 5x5 there
    for radius in (1, 2, 4):
        if img.dtype == np.uint8 or radius <= 2:
            want = cv2.medianBlur(img, 2 * radius + 1)
            if img.ndim == 3 and img.shape[2] == 4:
                want[..., 3] = img[..., 3]
            check('%s median %d' % (label, radius), gf(['-median', str(radius)], path), want)
    # crop: NumPy slicing, clipped
    h, w = img.shape[:2]
    check(label + ' crop', gf(['-crop', '%dx%d+%d+%d' % (w // 2, h, w // 3, h // 4)], path),
          img[h // 4:, w // 3:w // 3 + w // 2])
    # grayscale: cvtColor (Rec.601 weights in 15-bit fixed point) bit for bit, alpha kept
    if img.ndim == 3:
        want = cv2.cvtColor(img, cv2.COLOR_RGBA2GRAY if img.shape[2] == 4 else cv2.COLOR_RGB2GRAY)
        if img.shape[2] == 4:  # gray+alpha, which cv2.imread gives as four channels
            want = np.dstack([want, want, want, img[..., 3]])
        check(label + ' grayscale', gf(['-grayscale'], path), want)
    # resize with the box filter at integer factors: INTER_AREA's averages, within 1 (taps in 2^-14)
    for k in (2, 3):
        if h % k == 0 and w % k == 0:
            want = cv2.resize(img, (w // k, h // k), interpolation=cv2.INTER_AREA)
            check('%s resize 1/%d box' % (label, k), gf(['-filter', 'box', '-resize', '%dx%d!' % (w // k, h // k)], path),
                  want, 1)

# resize against Pillow (where installed): the same filters, 50 dB or more
try:
    from PIL import Image
    pil = {'lanczos': Image.LANCZOS, 'linear': Image.BILINEAR, 'catrom': Image.BICUBIC}
    for name in ('astronaut.png', 'horse.png'):
        p = os.path.join(SAMPLES, name)
        src = Image.open(p)
        src = src.convert('RGBA' if 'A' in src.mode else 'RGB')
        for f, pf in pil.items():
            for scale in (0.37, 2.3):
                size = (int(src.width * scale + 0.5), int(src.height * scale + 0.5))
                want = np.asarray(src.resize(size, pf)).astype(np.float64)
                got = gf(['-filter', f, '-resize', '%dx%d!' % size], p).astype(np.float64)
                mse = ((got - want) ** 2).mean() if got.shape == want.shape else None
                psnr = 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse) if mse is not None else 0
                if psnr < 50:
                    failures.append('%s resize %s %g: PSNR %.2f dB against Pillow' % (name, f, scale, psnr))
                else:
                    print('ok %-40s PSNR %.2f dB' % ('%s resize %s %g (Pillow)' % (name, f, scale), psnr))
except ImportError:
    print('Pillow not available: resize against Pillow skipped')

for f in failures:
    print('FAIL', f)
sys.exit(1 if failures else 0)
