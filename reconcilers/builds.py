"""Which agent-sandbox build a run emulates: a commit of ``kubernetes-sigs/agent-sandbox`` main and what its
controllers do differently from the ports' base, ``26288535`` (2026-04-02).

PR #508's two audit tables were recorded on a later build than ``26288535``. Both show the sandbox status
written as a merge PATCH (#509, ``953032b3``, merged 2026-04-03 and reverted by #526, ``29694236``, on
2026-04-07) and a PATCH of the replacement sandbox right after its pod is created (the pod-name annotation,
#272, ``32cddd3e``, 2026-04-03), and a ``PUT`` of the sandbox's pod on every sandbox pass (#419,
``51814a80``). The first main commit with all of them is ``953032b3``; main stayed like that, as far as the
controllers' API calls go, until the revert. It also carries controller-runtime v0.23.3 (#458, ``7d4a8cbb``),
whose controllers use the priority queue, and pod IPs in the sandbox and claim status (#518, ``ac595e71``).
docs/reproducing-pr-508.md says which figure comes from which build.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from fakekube.agentsandbox.strategies import PodMetadataMode, SandboxStatusMode, WriteStrategies


@dataclass(frozen=True)
class Build:
    name: str
    date: str
    summary: str
    controller_runtime: str  # the version go.mod pins
    priority_queue: bool  # controller-runtime's default for that version (UsePriorityQueue)
    events_api: str  # "core" (tools/record) or "events" (events.k8s.io, controller-runtime v0.23's recorder)
    sandbox_status: SandboxStatusMode  # updateStatus of the sandbox: PUT or merge patch (#509)
    pod_metadata: PodMetadataMode = "update"
    pod_name_annotation: bool = False  # #272: merge-patch agents.x-k8s.io/pod-name after finding/creating it
    owner_checks: bool = False  # #419: pod, service, PVC controller checked before use; the pod PUT every pass
    pod_ips: bool = False  # #518: status.podIPs on the sandbox and status.sandbox.podIPs on the claim
    # v1.0.1's claim status (extensions/controllers/sandboxclaim_controller.go at v1.0.1): the Ready condition taken
    # from the sandbox carries the claim's own generation (computeReadyCondition), so the sandbox's observedGeneration
    # bump after the adoption no longer changes the claim's status; and the pass whose status write made the claim
    # Ready ends with a merge PATCH stamping agents.x-k8s.io/claim-first-ready-at (recordCreationLatencyMetric; a
    # pass that finds the claim already Ready without it backfills "unknown"), skipped when the write was dropped.
    claim_ready_generation: bool = False
    first_ready_annotation: bool = False

    def resolve(self, strategies: WriteStrategies | None = None) -> WriteStrategies:
        """``strategies`` with the switches it leaves open (None) set as this build writes."""
        strategies = strategies or WriteStrategies()
        return replace(strategies, sandbox_status=strategies.sandbox_status or self.sandbox_status,
                       pod_metadata=strategies.pod_metadata or self.pod_metadata)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


BUILDS: dict[str, Build] = {
    "26288535": Build(
        name="26288535", date="2026-04-02",
        summary="main when PR #508 was opened: sandbox status PUT, pod PUT only when its labels change",
        controller_runtime="v0.22.2", priority_queue=False, events_api="core", sandbox_status="update"),
    "953032b3": Build(
        name="953032b3", date="2026-04-03",
        summary="main with #509 (sandbox status merge patch), #272 (pod-name annotation), #419 (pod PUT on "
                "every pass), #518 (pod IPs) and controller-runtime v0.23.3 (#458): what PR #508's tables show",
        controller_runtime="v0.23.3", priority_queue=True, events_api="events", sandbox_status="patch",
        pod_name_annotation=True, owner_checks=True, pod_ips=True),
    "953032b3+v1.0.1-claim": Build(
        name="953032b3+v1.0.1-claim", date="2026-09-03",
        summary="953032b3 with v1.0.1's claim status traffic: the claim's generation on its Ready condition and the "
                "first-ready annotation stamped after the write that makes it Ready (run it with --claim-status "
                "patch-lock, #1256); the measured differences from the real v1.0.1 (docs/reproducing-pr-508.md)",
        controller_runtime="v0.23.3", priority_queue=True, events_api="events", sandbox_status="patch",
        pod_name_annotation=True, owner_checks=True, pod_ips=True, claim_ready_generation=True,
        first_ready_annotation=True),
}

DEFAULT_BUILD = "953032b3"  # the build PR #508's author ran (module docstring)


def get_build(name: str | Build | None) -> Build:
    if isinstance(name, Build):
        return name
    key = name or DEFAULT_BUILD
    try:
        return BUILDS[key]
    except KeyError:
        raise ValueError(f"unknown agent-sandbox build {key!r}; known: {', '.join(BUILDS)}") from None
