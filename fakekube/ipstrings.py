"""IP address strings as Kubernetes validates them (apimachinery v0.37.2 ``pkg/util/validation/ip.go``
``IsValidIP``; sources in docs/semantics.md).

Go reads an address twice: ``netutils.ParseIPSloppy`` (the old ``net.ParseIP``, which takes IPv4 octets with
leading zeros as decimal) decides whether it is an address at all, ``netip.ParseAddr`` whether it is in the
strict form (no leading zeros, no IPv4-mapped IPv6), and ``net.IP.String()`` what its canonical text is (an
IPv4-mapped address prints as dotted IPv4; IPv6 lowercase with the longest run of zero groups, two or more,
compressed — what Python's ``IPv6Address`` prints too).
"""

from __future__ import annotations

import ipaddress

INVALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
_MAPPED_PREFIX = b"\x00" * 10 + b"\xff\xff"


def _sloppy_v4(text: str) -> bytes | None:
    parts = text.split(".")
    if len(parts) != 4 or not all(p.isascii() and p.isdigit() for p in parts):
        return None
    octets = [int(p) for p in parts]
    return bytes(octets) if all(o <= 255 for o in octets) else None


def _sloppy(text: str) -> bytes | None:
    """``ParseIPSloppy``: the 4 or 16 bytes of ``text``, or None (no zone: ``net.ParseIP`` refuses one)."""
    if ":" not in text:
        return _sloppy_v4(text)
    if "%" in text or not text.isascii():
        return None
    head, _, tail = text.rpartition(":")
    if "." in tail:  # an embedded IPv4 part, which the sloppy parser reads with leading zeros
        v4 = _sloppy_v4(tail)
        if v4 is None:
            return None
        text = f"{head}:{v4[0] << 8 | v4[1]:x}:{v4[2] << 8 | v4[3]:x}"
    try:
        return ipaddress.IPv6Address(text).packed
    except ValueError:
        return None


def _strict(text: str) -> bool:
    """``netip.ParseAddr`` accepts ``text`` (a zone aside, which the sloppy parse refused already)."""
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def canonical(packed: bytes) -> str:
    """``net.IP.String()`` of the address's bytes."""
    if len(packed) == 4 or packed.startswith(_MAPPED_PREFIX):
        return ".".join(str(b) for b in packed[-4:])
    return str(ipaddress.IPv6Address(packed))


def ip_errors(text: str) -> list[str]:
    """``IsValidIP``'s details for ``text``, in its order (empty: a valid address in canonical form)."""
    packed = _sloppy(text)
    if packed is None:
        return [INVALID_IP]
    if not _strict(text):
        return ["must not have leading 0s"]
    if len(packed) == 16 and packed.startswith(_MAPPED_PREFIX):
        return ["must not be an IPv4-mapped IPv6 address"]
    if text != canonical(packed):
        return [f'must be in canonical form ("{canonical(packed)}")']
    return []
