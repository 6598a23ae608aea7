"""Names derived from content: ``pod-template-hash`` and ControllerRevision names.

Upstream hashes the Go object with FNV-32a (``controller.ComputeHash`` over ``hashutil.DeepHashObject`` for a
Deployment's pod template; ``history.HashControllerRevision`` over a revision's raw data for StatefulSets and
DaemonSets), adds the object's ``collisionCount`` and renders the number with ``rand.SafeEncodeString``
(digits mapped onto consonants and digits that spell no words). fakekube hashes the canonical JSON of the
same content, so its hashes have upstream's alphabet, length and stability (the same template always gives
the same hash, a changed one another) but not upstream's values, which depend on Go's memory layout printer.
"""

from __future__ import annotations

import json
from typing import Any

_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery pkg/util/rand: rand.SafeEncodeString


def fnv32a(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value ^= byte
        value = (value * 0x01000193) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    return "".join(_ALPHANUMS[ord(ch) % len(_ALPHANUMS)] for ch in text)


def content_hash(content: Any, collision_count: int | None = None) -> str:
    data = json.dumps(content, sort_keys=True, separators=(",", ":")).encode()
    if collision_count:
        data += collision_count.to_bytes(4, "little")
    return safe_encode(str(fnv32a(data)))


def pod_template_hash(template: dict[str, Any], collision_count: int | None = None) -> str:
    """The ``pod-template-hash`` label of a Deployment's ReplicaSet for ``template`` (without that label)."""
    return content_hash(template, collision_count)
