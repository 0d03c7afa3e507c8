"""The demo's attachments: a small PNG chart and a CSV statement, made here, deterministically.

No image library: a PNG is a signature, an IHDR chunk, zlib-compressed scanlines and an IEND
chunk (RFC 2083), which is all a bar chart of a few balances needs.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Mapping

__all__ = ["balance_chart_png", "statement_csv"]

_WIDTH, _HEIGHT, _BAR, _GAP = 96, 48, 20, 8
_BACKGROUND = (255, 255, 255)
_COLOURS = ((37, 99, 235), (22, 163, 74), (234, 88, 12), (147, 51, 234))


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def balance_chart_png(balances: Mapping[str, float]) -> bytes:
    """One bar per account, heights proportional to the balances (96 x 48, RGB)."""
    values = list(balances.values())[: len(_COLOURS)]
    top = max([v for v in values if v > 0] or [1.0])
    heights = [max(1, round(_HEIGHT * 0.9 * max(v, 0) / top)) for v in values]
    rows = []
    for y in range(_HEIGHT):
        row = bytearray(b"\x00")  # filter type 0 (none) for every scanline
        for x in range(_WIDTH):
            pixel = _BACKGROUND
            bar, offset = divmod(x - _GAP, _BAR + _GAP)
            inside = 0 <= bar < len(heights) and x >= _GAP and offset < _BAR
            if inside and _HEIGHT - y <= heights[bar]:
                pixel = _COLOURS[bar]
            row.extend(pixel)
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", _WIDTH, _HEIGHT, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + _chunk(b"IEND", b"")
    )


def statement_csv(balances: Mapping[str, float]) -> bytes:
    lines = ["account,balance_usd"] + [
        f"{account},{value:.2f}" for account, value in balances.items()
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")
