"""fakekube.uids: the store's uids are the UUIDs the standard library makes from the same random bits."""

from __future__ import annotations

import random
import uuid

import pytest

from fakekube.uids import uuid4_text


@pytest.mark.parametrize("seed", [0, 1, 7, "x"])
def test_uuid4_text_is_the_standard_librarys_version_4_uuid(seed: object) -> None:
    ours, theirs = random.Random(seed), random.Random(seed)
    for _ in range(2_000):
        text = uuid4_text(ours)
        assert text == str(uuid.UUID(int=theirs.getrandbits(128), version=4))
        assert uuid.UUID(text).version == 4


def test_every_bit_pattern_keeps_its_version_and_variant() -> None:
    class Fixed(random.Random):
        def __init__(self, bits: int) -> None:
            super().__init__(0)
            self.bits = bits

        def getrandbits(self, k: int) -> int:
            return self.bits

    for bits in (0, 2**128 - 1, 0x0123456789ABCDEF0123456789ABCDEF):
        assert uuid4_text(Fixed(bits)) == str(uuid.UUID(int=bits, version=4))
