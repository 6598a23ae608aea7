"""The CPU model of the agent-sandbox controller manager of PR #508's load test, from published costs.

What the evidence fixes and what it does not (docs/reproducing-pr-508.md, "CPU contention", has the
citations):

- **cores**: not recorded. The controller's Deployment at the build the PR's author ran (``k8s/controller.yaml``
  and ``k8s/extensions.controller.yaml`` at ``953032b3``) sets no resources, so there is no CPU limit and Go
  (1.26, ``go.mod``) sets ``GOMAXPROCS`` to the node's CPU count; the PR does not say which node type the GKE
  cluster used. GKE's default machine type is e2-medium (2 vCPUs), so 2 is the default here, and the docs
  give the count for other core counts as sensitivity.
- **per-operation costs**, for the objects of this test (1.5–1.7 KB of JSON as the simulation stores them,
  about twice that with the managedFields a real server adds: ~3 KB):

  - encoding/json decodes a typed ~10 KB document at ~100 MB/s (mailru/easyjson#318), so decoding a 3 KB
    response or watch event costs ~30 µs; encoding is taken at the same rate (no faster figure is relied on);
  - a generated DeepCopy of a Pod costs ~1.9 µs (kubernetes/kubernetes#28679, ``BenchmarkPodCopy``): 2 µs
    per object copied out of the cache, per item of a LIST;
  - zap logs a message with ten fields in ~3.1 µs (zap's README benchmark, older and slower of its
    published figures); a claim pass writes about eight ``V(1)`` lines at ``--zap-log-level=debug``
    (``extensions/controllers/sandboxclaim_controller.go`` at ``953032b3``): 25 µs per pass.
"""

from __future__ import annotations

from fakekube.sim import Lag
from fakekube.sim.cpu import CpuModel

__all__ = ["DEFAULT_CORES", "pr508_cpu"]

DEFAULT_CORES = 2  # GKE's default node machine type, e2-medium; the PR's cluster's type is not recorded

_OBJECT_KB = 3.0  # a Sandbox or Pod of this test with managedFields (the simulation stores ~1.6 KB without)
_JSON_S_PER_KB = 1e-5  # encoding/json at ~100 MB/s
_DEEPCOPY_S = 2e-6  # BenchmarkPodCopy ~1.9 µs
_LOG_LINE_S = 3.1e-6  # zap, a message and ten fields
_LOG_LINES_PER_PASS = 8


def pr508_cpu(cores: int = DEFAULT_CORES) -> CpuModel:
    """The controller process of the #508 load test with ``cores`` cores and the published per-operation costs."""
    json_cost = Lag.fixed(_OBJECT_KB * _JSON_S_PER_KB)
    return CpuModel(cores=cores, encode=json_cost, decode=json_cost, event=json_cost, copy=Lag.fixed(_DEEPCOPY_S),
                    pass_=Lag.fixed(_LOG_LINES_PER_PASS * _LOG_LINE_S),
                    source="published per-operation costs (reconcilers/cpumodel.py); cores: GKE's default node")
