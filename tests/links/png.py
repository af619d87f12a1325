"""A small PNG reader for the QR tests: the greyscale or palette images (bit depth 1 to 8) that
segno writes, as the 8-bit greyscale buffer zxing-cpp reads (a phone's camera, in short)."""

import struct
import zlib


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def greyscale(png: bytes) -> memoryview:
    """The image as a (height, width) buffer of 8-bit luminance."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    position, chunks, idat = 8, {}, b""
    while position < len(png):
        (length,) = struct.unpack(">I", png[position : position + 4])
        kind = png[position + 4 : position + 8]
        data = png[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IDAT":
            idat += data
        else:
            chunks[kind] = data
    width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert colour in (0, 3) and depth in (1, 2, 4, 8) and interlace == 0, (colour, depth)
    if colour == 3:
        palette = chunks[b"PLTE"]
        levels = [
            (palette[i] * 299 + palette[i + 1] * 587 + palette[i + 2] * 114) // 1000
            for i in range(0, len(palette), 3)
        ]
    else:
        levels = [value * 255 // ((1 << depth) - 1) for value in range(1 << depth)]
    raw = zlib.decompress(idat)
    stride = (width * depth + 7) // 8
    previous = bytearray(stride)
    pixels = bytearray()
    for row in range(height):
        kind = raw[row * (stride + 1)]
        line = bytearray(raw[row * (stride + 1) + 1 : (row + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - 1] if i else 0
            up, corner = previous[i], previous[i - 1] if i else 0
            predictor = (0, left, up, (left + up) // 2, _paeth(left, up, corner))[kind]
            line[i] = (line[i] + predictor) & 0xFF
        previous = line
        mask = (1 << depth) - 1
        for x in range(width):
            bit = x * depth
            value = (line[bit // 8] >> (8 - depth - bit % 8)) & mask
            pixels.append(levels[value])
    return memoryview(bytes(pixels)).cast("B", shape=(height, width))
