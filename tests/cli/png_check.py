#!/usr/bin/env python3
"""Decode a PNG (8-bit RGB or RGBA, no interlace) with the standard library
and say whether it shows something: enough non-background pixels and enough
distinct colours. Usage: png_check.py FILE MIN_INK_SHARE MIN_COLOURS
Prints "WIDTHxHEIGHT ink=SHARE colours=N" and exits 1 when blank."""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG: depth %d colour type %d interlace %d" % (depth, ctype, interlace))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
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
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    path, min_ink, min_colours = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    w, h, bpp, rows = decode(path)
    colours, ink, n = set(), 0, 0
    background = rows[0][0:3]
    for y in range(0, h, 3):
        row = rows[y]
        for x in range(0, w, 3):
            px = row[x * bpp:x * bpp + 3]
            colours.add(px)
            n += 1
            ink += px != background
    share = ink / n if n else 0
    print("%dx%d ink=%.3f colours=%d" % (w, h, share, len(colours)))
    sys.exit(0 if share >= min_ink and len(colours) >= min_colours else 1)


if __name__ == "__main__":
    main()
