"""Write-strategy switches: how each contested write is sent, before and after the upstream fixes.

- claim status: ``update`` = ``Status().Update`` (PUT /status with the in-memory resourceVersion; the code
  that produced PR #508's first table); ``patch`` = ``Status().Patch(MergeFrom(snapshot))`` with no lock
  (#508, ``0498c107``); ``patch-lock`` = ``MergeFromWithOptimisticLock``, a 409 dropped as benign with no
  requeue (#1256, ``6eae4011``).
- sandbox status: ``update`` = PUT /status (main at 2026-04-02); ``patch`` = unlocked merge patch on /status
  (#509 ``953032b3``, reverted by #526; for good in #1254 ``b13f6c01``).
- pod metadata: ``update`` = PUT pod from the cached copy; ``patch`` = merge patch (#784 ``1939171a``).

``sandbox_status`` and ``pod_metadata`` left as None mean "as the build does" (``fakekube.agentsandbox.builds``):
``Build.resolve`` fills them in before a run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

ClaimStatusMode = Literal["update", "patch", "patch-lock"]
SandboxStatusMode = Literal["update", "patch"]
PodMetadataMode = Literal["update", "patch"]

CLAIM_STATUS_MODES: tuple[str, ...] = ("update", "patch", "patch-lock")
SANDBOX_STATUS_MODES: tuple[str, ...] = ("update", "patch")
POD_METADATA_MODES: tuple[str, ...] = ("update", "patch")


@dataclass(frozen=True)
class WriteStrategies:
    claim_status: ClaimStatusMode = "update"
    sandbox_status: SandboxStatusMode | None = None
    pod_metadata: PodMetadataMode | None = None

    def __post_init__(self) -> None:
        for value, allowed, name in (
            (self.claim_status, CLAIM_STATUS_MODES, "claim_status"),
            (self.sandbox_status, SANDBOX_STATUS_MODES, "sandbox_status"),
            (self.pod_metadata, POD_METADATA_MODES, "pod_metadata"),
        ):
            if value is None and name != "claim_status":
                continue
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")

    def to_dict(self) -> dict[str, str]:
        return asdict(self)
