"""QR codes for pairing, made with segno: SVG for the host's page, text for the terminal."""

from __future__ import annotations

import io

import segno


def qr_svg(data: str, scale: int = 6) -> str:
    buf = io.BytesIO()
    segno.make(data, error="m").save(
        buf,
        kind="svg",
        scale=scale,
        border=2,
        dark="#1d2330",
        light="#ffffff",
        xmldecl=False,
        svgns=True,
        omitsize=True,
    )
    return buf.getvalue().decode()


def qr_terminal(data: str) -> str:
    """The QR code drawn with half-block characters, readable by a phone from a terminal."""
    qr = segno.make(data, error="l")
    rows = [[bool(v) for v in row] for row in qr.matrix_iter(scale=1, border=2)]
    if len(rows) % 2:
        rows.append([False] * len(rows[0]))
    out = []
    for top, bottom in zip(rows[0::2], rows[1::2], strict=True):
        line = []
        for a, b in zip(top, bottom, strict=True):
            # dark modules print as spaces on a light background: invert for dark terminals
            line.append(
                {(False, False): "█", (True, True): " ", (True, False): "▄", (False, True): "▀"}[(a, b)]
            )
        out.append("".join(line))
    return "\n".join(out)
