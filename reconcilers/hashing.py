"""Name hashes used as label values by the agent-sandbox controllers.

Upstream computes FNV-1a over the UTF-8 bytes of a name and prints the 32-bit sum as 8 lowercase hex digits
(``NameHash`` and ``GetNumericHash`` in kubernetes-sigs/agent-sandbox ``controllers/sandbox_controller.go``
at 26288535). Label values are compared across controllers, so the digits must match upstream exactly.
"""

from __future__ import annotations

from functools import lru_cache

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


def fnv1a_32(data: bytes, value: int = _FNV32_OFFSET) -> int:
    """FNV-1a 32-bit of ``data``, going on from ``value``: the offset basis, or the sum of a prefix.

    The hash takes one byte at a time, so the sum of ``prefix + suffix`` is the suffix's run from the prefix's
    sum: a caller that hashes several strings with one prefix pays for the prefix once.
    """
    for byte in data:
        value = ((value ^ byte) * _FNV32_PRIME) & 0xFFFFFFFF
    return value


@lru_cache(maxsize=65536)  # pure, and asked again for the same UIDs pass after pass
def numeric_hash(text: str) -> int:
    """FNV-1a 32-bit of ``text`` (Go's ``hash/fnv.New32a``)."""
    return fnv1a_32(text.encode())


@lru_cache(maxsize=65536)
def name_hash(name: str) -> str:
    """``NameHash``: the FNV-1a sum as exactly 8 hex digits (zero-padded)."""
    return f"{numeric_hash(name):08x}"
