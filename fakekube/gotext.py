"""Go's renderings of values in the error messages fakekube reproduces: ``strconv.Quote`` (``%q``) of a string
or of a Go string's bytes, and ``strconv.FormatFloat(f, 'g', -1, bits)`` (``%v`` of a float).

Sources: Go 1.26 ``strconv/quote.go``, ``strconv/ftoa.go`` (shortest formatting, exponent below -4 or from 6
on in ``%g``).
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal


def go_quote(text: str) -> str:
    out = ['"']
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x80:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def go_quote_bytes(data: bytes) -> str:
    """``strconv.Quote`` of a Go string holding ``data``: valid UTF-8 as text, other bytes as ``\\xNN``."""
    out = []
    i = 0
    while i < len(data):
        for size in (1, 2, 3, 4):
            try:
                ch = data[i:i + size].decode("utf-8")
            except UnicodeDecodeError:
                continue
            out.append(go_quote(ch)[1:-1])
            i += size
            break
        else:
            out.append(f"\\x{data[i]:02x}")
            i += 1
    return '"' + "".join(out) + '"'


def go_float(value: float, bits: int = 64) -> str:
    """``strconv.FormatFloat(value, 'g', -1, bits)`` (and ``%v``): the shortest digits that round-trip at that
    size, in exponent form when the exponent is below -4 or at least 6."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    sign = "-" if math.copysign(1.0, value) < 0 else ""
    digits, exponent = _shortest(abs(value), bits)
    if digits == "0":
        return sign + "0"
    if exponent < -4 or exponent >= 6:
        tail = digits[1:]
        return f"{sign}{digits[0]}{'.' + tail if tail else ''}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    if exponent < 0:
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    if len(digits) <= exponent + 1:
        return sign + digits + "0" * (exponent + 1 - len(digits))
    return f"{sign}{digits[:exponent + 1]}.{digits[exponent + 1:]}"


def _shortest(value: float, bits: int) -> tuple[str, int]:
    """The shortest decimal digits that read back as ``value`` at ``bits`` (64: Python's repr; 32: the
    fewest significant digits that round-trip through a float32), and the decimal exponent of the first."""
    if bits == 32:
        single = struct.unpack("f", struct.pack("f", value))[0]
        text = f"{single:.8e}"
        for places in range(9):
            candidate = f"{single:.{places}e}"
            if struct.unpack("f", struct.pack("f", float(candidate)))[0] == single:
                text = candidate
                break
    else:
        text = repr(value)
    sign, digit_tuple, exp = Decimal(text).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    if digits.strip("0") == "":
        return "0", 0
    return digits, len(digits) + int(exp) - 1
