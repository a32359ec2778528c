# SPDX-License-Identifier: MIT
"""An independent PNG reader (Python's zlib, its own unfiltering) to check
gpufilter's PNG writer: every chunk's CRC, one zlib stream over the IDAT
chunks, and the pixels against a PAM file.
Usage: pngread.py FILE.png WANT.pam; exits 1 with a reason on a mismatch."""
import struct
import sys
import zlib


def fail(msg):
    sys.exit("pngread: %s: %s" % (sys.argv[1], msg))


def read_pam(path):
    data = open(path, "rb").read()
    end = data.index(b"ENDHDR\n") + 7
    head = dict(line.split(b" ", 1) for line in data[:end].split(b"\n")[1:-2])
    return int(head[b"WIDTH"]), int(head[b"HEIGHT"]), int(head[b"DEPTH"]), int(head[b"MAXVAL"]), data[end:]


def main():
    png = open(sys.argv[1], "rb").read()
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        fail("no PNG signature")
    pos, idat, ihdr = 8, b"", None
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + n]
        if struct.unpack(">I", png[pos + 8 + n:pos + 12 + n])[0] != zlib.crc32(kind + body):
            fail("bad CRC in %s" % kind)
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
        if kind == b"IEND":
            break
    if pos != len(png):
        fail("bytes after IEND")
    w, h, depth, ctype, _, _, interlace = ihdr
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[ctype]
    bpp = channels * depth // 8
    stride = w * bpp
    raw = zlib.decompress(idat)  # checks the Adler-32
    if len(raw) != h * (stride + 1):
        fail("%d bytes inflated, want %d" % (len(raw), h * (stride + 1)))
    out, prev = bytearray(), bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif f != 0:
                fail("filter type %d in row %d" % (f, y))
        out += line
        prev = line
    pw, ph, pc_, maxval, pixels = read_pam(sys.argv[2])
    if (pw, ph, pc_, 65535 if depth == 16 else 255) != (w, h, channels, maxval):
        fail("shape %dx%dx%d/%d, want %dx%dx%d" % (w, h, channels, depth, pw, ph, pc_))
    if bytes(out) != pixels:  # PAM and PNG both store big-endian samples
        fail("pixels differ")


main()
