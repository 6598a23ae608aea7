"""Version-4 UUIDs drawn from a seeded random stream, as text.

The store stamps a uid on every create from its own ``random.Random`` (same seed, same uids). The text is
what ``str(uuid.UUID(int=rng.getrandbits(128), version=4))`` gives — the same 128 bits with the version and
variant set — built without the UUID object, at half the cost.
"""

from __future__ import annotations

import random

# RFC 4122: version 4 in bits 76-79, the variant (10) in bits 62-63; uuid.UUID(version=4) sets them so.
_CLEAR = ~((0xF000 << 64) | (0xC000 << 48))
_SET = (4 << 76) | (0x8000 << 48)


def uuid4_text(rng: random.Random) -> str:
    """The next version-4 UUID of ``rng``, in the 8-4-4-4-12 hexadecimal form."""
    h = f"{(rng.getrandbits(128) & _CLEAR) | _SET:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
