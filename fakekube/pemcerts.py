"""PEM blocks as Go's ``encoding/pem`` ``Decode`` finds them, and the outline of an X.509 certificate's DER, for
the certificate kinds' checks (CertificateSigningRequest ``spec.request``, ClusterTrustBundle
``spec.trustBundle``; sources in docs/semantics.md).

``decode`` follows Go's rules: a block starts at ``-----BEGIN <type>-----`` at the start of the data or of a
line, may carry ``key: value`` header lines, and ends at ``-----END <type>-----`` followed by nothing but
whitespace on its line; its base64 body may hold spaces, tabs and line breaks. A candidate that breaks a rule
is skipped and the search goes on after its BEGIN line.

``certificate_outline`` reads only what the trust bundle's checks need — the Certificate and TBSCertificate
sequences and the basicConstraints extension's ``cA`` flag — without the rest of Go's ``x509.ParseCertificate``
(algorithms, keys, names, times), which fakekube does not emulate.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field

_BEGIN = b"\n-----BEGIN "
_END = b"\n-----END "
_DASHES = b"-----"
_BASIC_CONSTRAINTS = bytes([0x06, 0x03, 0x55, 0x1D, 0x13])  # OID 2.5.29.19, DER-encoded with its tag


@dataclass
class Block:
    type: str
    headers: dict[str, str] = field(default_factory=dict)
    data: bytes = b""


def _line(data: bytes) -> tuple[bytes, bytes]:
    """Go's ``getLine``: the first line (trailing spaces, tabs and CRs cut) and what follows its newline."""
    i = data.find(b"\n")
    line, rest = (data, b"") if i < 0 else (data[:i], data[i + 1:])
    return line.rstrip(b" \t\r"), rest


def decode(data: bytes) -> tuple[Block | None, bytes]:
    """The first PEM block of ``data`` and the bytes after it, or ``(None, data)``."""
    rest = data
    while True:
        if rest.startswith(_BEGIN[1:]):
            rest = rest[len(_BEGIN) - 1:]
        else:
            i = rest.find(_BEGIN)
            if i < 0:
                return None, data
            rest = rest[i + len(_BEGIN):]
        type_line, rest = _line(rest)
        if not type_line.endswith(_DASHES):
            continue
        kind = type_line[:-len(_DASHES)]
        block = Block(kind.decode("utf-8", "replace"))
        while True:
            if not rest:
                return None, data
            line, after = _line(rest)
            key, colon, value = line.partition(b":")
            if not colon:
                break
            block.headers[key.strip().decode("utf-8", "replace")] = value.strip().decode("utf-8", "replace")
            rest = after
        if not block.headers and rest.startswith(_END[1:]):
            end, trailer_at = 0, len(_END) - 1
        else:
            end = rest.find(_END)
            trailer_at = end + len(_END)
        if end < 0:
            continue
        trailer = rest[trailer_at:]
        trailer_len = len(kind) + len(_DASHES)
        if len(trailer) < trailer_len:
            continue
        end_line_rest, trailer = trailer[trailer_len:], trailer[:trailer_len]
        if not trailer.startswith(kind) or not trailer.endswith(_DASHES) or _line(end_line_rest)[0]:
            continue
        body = rest[:end].replace(b" ", b"").replace(b"\t", b"").replace(b"\r", b"").replace(b"\n", b"")
        try:
            block.data = base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            continue
        _, rest = _line(rest[end + len(_END) - 1:])
        return block, rest


def blocks(data: bytes) -> list[Block]:
    """Every PEM block of ``data``, in order."""
    found = []
    while True:
        block, data = decode(data)
        if block is None:
            return found
        found.append(block)


def _tlv(der: bytes, at: int) -> tuple[int, int, int]:
    """The tag, the start of the contents and the end of one DER element at ``at``; ValueError when malformed."""
    if at + 2 > len(der):
        raise ValueError("truncated")
    tag, size = der[at], der[at + 1]
    at += 2
    if size & 0x80:
        count = size & 0x7F
        if not 0 < count <= 4 or at + count > len(der):
            raise ValueError("bad length")
        size = int.from_bytes(der[at:at + count], "big")
        at += count
    if at + size > len(der):
        raise ValueError("truncated")
    return tag, at, at + size


def _children(der: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    out = []
    while start < end:
        tag, body, after = _tlv(der, start)
        out.append((tag, body, after))
        start = after
    if start != end:
        raise ValueError("overrun")
    return out


def certificate_outline(der: bytes) -> tuple[bool, bool] | None:
    """``(is_ca, basic_constraints_valid)`` of a DER certificate, or None when it is not shaped as one."""
    try:
        tag, body, end = _tlv(der, 0)
        if tag != 0x30 or end != len(der):
            return None
        parts = _children(der, body, end)
        if len(parts) != 3 or parts[0][0] != 0x30 or parts[1][0] != 0x30 or parts[2][0] != 0x03:
            return None
        tbs = _children(der, parts[0][1], parts[0][2])
        extensions = [p for p in tbs if p[0] == 0xA3]
        if not extensions:
            return False, False
        _, ext_body, ext_end = extensions[0]
        tag, seq_body, seq_end = _tlv(der, ext_body)
        if tag != 0x30:
            return None
        for _, item_body, item_end in _children(der, seq_body, seq_end):
            fields = _children(der, item_body, item_end)
            if not fields or der[fields[0][1] - 2:fields[0][2]] != _BASIC_CONSTRAINTS:
                continue
            value = fields[-1]
            if value[0] != 0x04:
                return None
            tag, bc_body, bc_end = _tlv(der, value[1])
            if tag != 0x30:
                return None
            inner = _children(der, bc_body, bc_end)
            is_ca = bool(inner) and inner[0][0] == 0x01 and der[inner[0][1]:inner[0][2]] not in (b"", b"\x00")
            return is_ca, True
        return False, False
    except ValueError:
        return None
