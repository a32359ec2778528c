#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Regenerates the committed test images (not run by make check).

PNGs are written by pypng (an encoder independent of libpng) in every colour
type, bit depth and interlace; beside each, NAME.pam holds the pixels gpufilter
must decode (palette -> RGB/RGBA, tRNS -> alpha, sub-8-bit gray scaled to 8-bit),
written by this script.  JPEGs are made by cjpeg (libjpeg-turbo-progs) from
smooth.ppm with different subsampling, progression and restart markers.
tests/bad/ holds broken files derived from them.
Needs: python3-png (pip install pypng), cjpeg, python3-pil for the CMYK JPEG."""
import math, os, random, struct, subprocess, zlib
import png

HERE = os.path.dirname(os.path.abspath(__file__))
BAD = os.path.join(HERE, '..', 'bad')
random.seed(1234)


def pam(path, w, h, c, maxval, rows):
    tupl = ['GRAYSCALE', 'GRAYSCALE_ALPHA', 'RGB', 'RGB_ALPHA'][c - 1]
    with open(path, 'wb') as f:
        f.write(b'P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %d\nTUPLTYPE %s\nENDHDR\n' % (w, h, c, maxval, tupl.encode()))
        fmt = '>%dH' if maxval > 255 else '>%dB'
        for r in rows:
            f.write(struct.pack(fmt % len(r), *r))


def rand_rows(w, h, c, maxv):
    return [[random.randint(0, maxv) for _ in range(w * c)] for _ in range(h)]


def gen_png():
    W, H = 13, 7
    for bd in (1, 2, 4, 8, 16):
        for interlace in (False, True):
            maxv = (1 << bd) - 1
            rows = rand_rows(W, H, 1, maxv)
            name = 'gray%d%s' % (bd, '-i' if interlace else '')
            png.Writer(W, H, greyscale=True, bitdepth=bd, interlace=interlace).write(
                open(os.path.join(HERE, name + '.png'), 'wb'), rows)
            scale = 255 // maxv if bd < 8 else 1
            pam(os.path.join(HERE, name + '.pam'), W, H, 1, 255 if bd <= 8 else 65535,
                [[v * scale for v in r] for r in rows])
    for c, alpha, greyscale in ((2, True, True), (3, False, False), (4, True, False)):
        for bd in (8, 16):
            for interlace in (False, True):
                maxv = (1 << bd) - 1
                rows = rand_rows(W, H, c, maxv)
                name = '%s%d%s' % (['', 'ga', 'rgb', 'rgba'][c - 1], bd, '-i' if interlace else '')
                png.Writer(W, H, greyscale=greyscale, alpha=alpha, bitdepth=bd, interlace=interlace).write(
                    open(os.path.join(HERE, name + '.png'), 'wb'), rows)
                pam(os.path.join(HERE, name + '.pam'), W, H, c, maxv, rows)
    # palettes, with and without tRNS
    for bd in (1, 2, 4, 8):
        for trns in (False, True):
            n = 1 << bd
            pal = [(random.randint(0, 255), random.randint(0, 255), random.randint(0, 255)) +
                   ((random.randint(0, 255),) if trns else ()) for _ in range(n)]
            idx = rand_rows(W, H, 1, n - 1)
            name = 'pal%d%s' % (bd, '-trns' if trns else '')
            png.Writer(W, H, palette=pal, bitdepth=bd).write(open(os.path.join(HERE, name + '.png'), 'wb'), idx)
            c = 4 if trns else 3
            pam(os.path.join(HERE, name + '.pam'), W, H, c, 255, [[v for i in r for v in pal[i]] for r in idx])
    # gray and RGB with a tRNS colour key
    rows = rand_rows(W, H, 1, 3)
    png.Writer(W, H, greyscale=True, bitdepth=8, transparent=(2,)).write(
        open(os.path.join(HERE, 'gray8-trns.png'), 'wb'), rows)
    pam(os.path.join(HERE, 'gray8-trns.pam'), W, H, 2, 255, [[x for v in r for x in (v, 0 if v == 2 else 255)] for r in rows])
    rows = rand_rows(W, H, 3, 1)
    png.Writer(W, H, greyscale=False, bitdepth=8, transparent=(1, 0, 1)).write(open(os.path.join(HERE, 'rgb8-trns.png'), 'wb'), rows)
    out = []
    for r in rows:
        o = []
        for i in range(W):
            p = r[3 * i:3 * i + 3]
            o += p + [0 if p == [1, 0, 1] else 255]
        out.append(o)
    pam(os.path.join(HERE, 'rgb8-trns.pam'), W, H, 4, 255, out)


def gen_jpeg():
    W, H = 67, 45
    rows = [[int(round(127.5 + 100 * math.sin(x * 0.09 + c) * math.cos(y * 0.11 - c)))
             for x in range(W) for c in range(3)] for y in range(H)]
    src = os.path.join(HERE, 'smooth.ppm')
    with open(src, 'wb') as f:
        f.write(b'P6\n%d %d\n255\n' % (W, H))
        for r in rows:
            f.write(bytes(r))
    gray = os.path.join(HERE, 'smooth.pgm')
    with open(gray, 'wb') as f:
        f.write(b'P5\n%d %d\n255\n' % (W, H))
        for r in rows:
            f.write(bytes(r[0::3]))
    variants = {
        'base444': ['-sample', '1x1'], 'base422': ['-sample', '2x1'], 'base420': ['-sample', '2x2'],
        'base411': ['-sample', '4x1'], 'prog420': ['-progressive', '-sample', '2x2'],
        'restart': ['-restart', '1', '-sample', '2x2'], 'prog-restart': ['-progressive', '-restart', '2'],
        'arith': ['-arithmetic'], 'optimize': ['-optimize'],
    }
    for name, args in variants.items():
        subprocess.check_call(['cjpeg', '-quality', '95'] + args + ['-outfile', os.path.join(HERE, name + '.jpg'), src])
    subprocess.check_call(['cjpeg', '-quality', '95', '-grayscale', '-outfile', os.path.join(HERE, 'gray.jpg'), gray])
    subprocess.check_call(['cjpeg', '-quality', '95', '-progressive', '-outfile', os.path.join(HERE, 'gray-prog.jpg'), gray])
    # one scan a component (sequential, not interleaved)
    script = os.path.join(HERE, 'scans.tmp')
    with open(script, 'w') as f:
        f.write('0: 0 63 0 0;\n1: 0 63 0 0;\n2: 0 63 0 0;\n')
    subprocess.check_call(['cjpeg', '-quality', '95', '-scans', script, '-outfile', os.path.join(HERE, 'seq3.jpg'), src])
    os.remove(script)
    # EXIF with Orientation 6 (a little-endian TIFF, IFD0 with that one entry),
    # as an APP1 after the JFIF APP0
    data = open(os.path.join(HERE, 'base420.jpg'), 'rb').read()
    tiff = b'II*\0\x08\0\0\0\x01\0\x12\x01\x03\0\x01\0\0\0\x06\0\0\0\0\0\0\0'
    app1 = b'\xff\xe1' + struct.pack('>H', 2 + 6 + len(tiff)) + b'Exif\0\0' + tiff
    at = 4 + struct.unpack('>H', data[4:6])[0] if data[2:4] == b'\xff\xe0' else 2
    open(os.path.join(HERE, 'exif6.jpg'), 'wb').write(data[:at] + app1 + data[at:])
    # EXIF a camera writes (IFD0, the Exif IFD with the pixel dimensions,
    # IFD1 with a JPEG thumbnail whose bytes hold a marker string), and two
    # odd orientations: the tag twice, and one SHORT of 3 stored at an offset
    def ifd(entries, next_ifd):
        return struct.pack('<H', len(entries)) + b''.join(
            struct.pack('<HHI', tag, typ, count) + value for tag, typ, count, value in entries) + struct.pack('<I', next_ifd)
    short = lambda v: struct.pack('<HH', v, 0)
    long_ = lambda v: struct.pack('<I', v)
    thumb = b'\xff\xd8\xff\xfe\x00\x16SECRET-THUMBNAIL-FACE\xff\xd9'
    exif_at, ifd1_at = 8 + 2 + 3 * 12 + 4, 8 + 2 + 3 * 12 + 4 + 2 + 2 * 12 + 4
    thumb_at = ifd1_at + 2 + 3 * 12 + 4
    tiff = (b'II*\0' + long_(8)
            + ifd([(0x0112, 3, 1, short(1)), (0x0131, 2, 4, b'gf\0\0'), (0x8769, 4, 1, long_(exif_at))], ifd1_at)
            + ifd([(0xA002, 3, 1, short(W)), (0xA003, 3, 1, short(H))], 0)
            + ifd([(0x0103, 3, 1, short(6)), (0x0201, 4, 1, long_(thumb_at)), (0x0202, 4, 1, long_(len(thumb)))], 0)
            + thumb)
    orient_twice = b'II*\0' + long_(8) + ifd([(0x0112, 3, 1, short(6)), (0x0112, 3, 1, short(6))], 0)
    orient_offset = b'II*\0' + long_(8) + ifd([(0x0112, 3, 3, long_(8 + 2 + 12 + 4))], 0) + struct.pack('<3H', 6, 6, 6)
    for name, t in (('exif-thumb', tiff), ('exif-orient-twice', orient_twice), ('exif-orient-offset', orient_offset)):
        app1 = b'\xff\xe1' + struct.pack('>H', 2 + 6 + len(t)) + b'Exif\0\0' + t
        open(os.path.join(HERE, name + '.jpg'), 'wb').write(data[:at] + app1 + data[at:])
    # writers that forget the end marker (EOI): decoded, with a warning
    for name in ('base420', 'prog420'):
        data = open(os.path.join(HERE, name + '.jpg'), 'rb').read()
        assert data.endswith(b'\xff\xd9')
        open(os.path.join(HERE, name + '-noeoi.jpg'), 'wb').write(data[:-2])


def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)


def gen_bad():
    os.makedirs(BAD, exist_ok=True)
    good_png = open(os.path.join(HERE, 'rgb8.png'), 'rb').read()
    good_jpg = open(os.path.join(HERE, 'base420.jpg'), 'rb').read()
    sig = b'\x89PNG\r\n\x1a\n'
    w = lambda n, d: open(os.path.join(BAD, n), 'wb').write(d)
    w('trunc.png', good_png[:len(good_png) * 2 // 3])
    w('trunc-header.png', good_png[:20])
    b = bytearray(good_png); b[29] ^= 0xFF; w('badcrc.png', bytes(b))
    ihdr = lambda wd, ht: chunk(b'IHDR', struct.pack('>IIBBBBB', wd, ht, 8, 2, 0, 0, 0))
    idat = chunk(b'IDAT', zlib.compress(b'\0' * 100))
    iend = chunk(b'IEND', b'')
    w('huge.png', sig + ihdr(65000, 65000) + idat + iend)
    w('zero-width.png', sig + ihdr(0, 10) + idat + iend)
    w('bad-zlib.png', sig + ihdr(4, 4) + chunk(b'IDAT', b'\x78\x9c' + bytes(random.randrange(256) for _ in range(40))) + iend)
    w('short-idat.png', sig + ihdr(64, 64) + chunk(b'IDAT', zlib.compress(b'\0' * 50)) + iend)
    w('trunc.jpg', good_jpg[:len(good_jpg) // 2])
    # cut cleanly between scans: no EOI, and scans missing, so truncated
    for name, keep in (('prog420', 3), ('seq3', 1)):
        data = open(os.path.join(HERE, name + '.jpg'), 'rb').read()
        sos = [i for i in range(len(data) - 1) if data[i:i + 2] == b'\xff\xda']
        w(name + '-cut.jpg', data[:sos[keep]])
    w('header-only.jpg', good_jpg[:200])
    sof = good_jpg.find(b'\xff\xc0')
    b = bytearray(good_jpg); b[sof + 5:sof + 9] = struct.pack('>HH', 65000, 65000); w('huge.jpg', bytes(b))
    w('soi-only.jpg', b'\xff\xd8\xff\xe0' + b'\0' * 10)
    w('trunc.ppm', b'P6\n100 100\n255\n' + b'\x80' * 1000)
    w('huge.pgm', b'P5\n65000 65000\n255\n' + b'\0' * 100)
    w('maxval0.pgm', b'P5\n4 4\n0\n' + b'\0' * 16)
    w('ascii.ppm', b'P3\n2 2\n255\n0 0 0 1 1 1 2 2 2 3 3 3\n')
    w('bad-pam-depth.pam', b'P7\nWIDTH 2\nHEIGHT 2\nDEPTH 7\nMAXVAL 255\nENDHDR\n' + b'\0' * 28)
    w('empty.png', b'')
    w('text.png', b'hello, this is not an image\n')
    w('random.bin', bytes(random.randrange(256) for _ in range(4096)))
    try:
        from PIL import Image
        # Adobe-marked, inverted inks, as Photoshop writes them
        Image.new('CMYK', (8, 8), (10, 20, 30, 40)).save(os.path.join(HERE, 'cmyk.jpg'))
    except ImportError:
        print('no PIL: tests/images/cmyk.jpg not regenerated')


if __name__ == '__main__':
    gen_png()
    gen_jpeg()
    gen_bad()
