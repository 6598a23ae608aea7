"""Name hashes used as label values by the agent-sandbox controllers.

Upstream computes FNV-1a over the UTF-8 bytes of a name and prints the 32-bit sum as 8 lowercase hex digits
(``NameHash`` and ``GetNumericHash`` in kubernetes-sigs/agent-sandbox ``controllers/sandbox_controller.go``
at 26288535). Label values are compared across controllers, so the digits must match upstream exactly.
"""

from __future__ import annotations

from functools import lru_cache

_FNV32_OFFSET = 0x811C9DC5
_FNV32_PRIME = 0x01000193


@lru_cache(maxsize=65536)  # pure, and asked again for the same UIDs pass after pass
def numeric_hash(text: str) -> int:
    """FNV-1a 32-bit of ``text`` (Go's ``hash/fnv.New32a``)."""
    value = _FNV32_OFFSET
    for byte in text.encode():
        value ^= byte
        value = (value * _FNV32_PRIME) & 0xFFFFFFFF
    return value


@lru_cache(maxsize=65536)
def name_hash(name: str) -> str:
    """``NameHash``: the FNV-1a sum as exactly 8 hex digits (zero-padded)."""
    return f"{numeric_hash(name):08x}"
