"""Python ports of the kubernetes-sigs/agent-sandbox controllers (Sandbox, SandboxClaim, SandboxWarmPool,
SandboxTemplate) as they were around 2026-04-02 (commit 26288535), running on fakekube.sim.

See docs/agent-sandbox.md for the ports and docs/reproducing-pr-508.md for the experiments.
"""

from __future__ import annotations

from pathlib import Path

CRD_DIR = Path(__file__).parent / "crds"


def crd_paths() -> list[Path]:
    """The CRD manifests of the four kinds, in a stable order."""
    return sorted(CRD_DIR.glob("*.yaml"))
