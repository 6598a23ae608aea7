"""``default-scheduler``: binds each unassigned pod to a node through ``POST pods/<pod>/binding``.

One pod at a time, as kube-scheduler's scheduling cycle (``pkg/scheduler/schedule_one.go``):

- filter (``pkg/scheduler/framework/plugins``): the node is Ready and schedulable (NodeUnschedulable), the
  pod tolerates its NoSchedule / NoExecute taints (TaintToleration), ``spec.nodeSelector`` and required node
  affinity match (NodeAffinity, ``matchExpressions`` on labels and ``matchFields`` on ``metadata.name``), the
  node has room for the pod's requests and one more pod (NodeResourcesFit, against ``status.allocatable``
  minus the requests of the non-terminal pods on it, including those this scheduler just bound — its
  "assumed" pods);
- score: least allocated (the node with the most free CPU and memory, in ratio), ties broken by a seeded
  draw as upstream breaks them at random (``selectHost``);
- bind (``DefaultBinder``): a ``Binding`` with the pod's name, namespace and uid; event ``Scheduled``
  (events.k8s.io/v1, ``Successfully assigned <ns>/<pod> to <node>``);
- a pod no node can take gets ``PodScheduled=False`` with reason ``Unschedulable`` (a strategic merge patch of
  its status, ``util.PatchPodStatus``) and a ``FailedScheduling`` event, and is retried when a node or a pod
  changes (upstream moves it back from the unschedulable queue on such cluster events).

Pods naming another ``schedulerName`` are left alone, as are pods that already have a node.
"""

from __future__ import annotations

import contextlib
from typing import Any

from fakekube import errors, quantity
from fakekube.patch import create_strategic_merge_patch
from fakekube.selectors import LabelSelector
from fakekube.sim import predicates
from fakekube.sim.controller import Request
from fakekube.sim.informer import InformerHandler

from . import identity
from .actor import Actor, Writer
from .objects import TERMINAL_PHASES, condition, is_terminating
from .timing import Timing

Obj = dict[str, Any]
Usage = tuple[dict[str, float], int, dict[str, float]]  # requests, pods, scoring requests
SCHEDULER_NAME = "default-scheduler"
# NodeUnschedulable lets a pod that tolerates this taint onto a cordoned node (DaemonSet pods do).
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


# What a container that requests no CPU or memory counts for when nodes are scored (not when they are filtered):
# kube-scheduler ``pkg/scheduler/util/pod_resources.go`` (v1.37.2), DefaultMilliCPURequest and
# DefaultMemoryRequest.
NONZERO_CPU = 0.1
NONZERO_MEMORY = 200.0 * 1024 * 1024


def _amount(value: object) -> float:
    """A quantity as a number, enough for resource fit (fakekube.quantity parses it exactly)."""
    return float(quantity.value_of(value))  # type: ignore[arg-type]


def _wants_us(pod: Obj) -> bool:
    spec = pod.get("spec") or {}
    return (spec.get("schedulerName") or SCHEDULER_NAME) == SCHEDULER_NAME and not spec.get("nodeName") \
        and not is_terminating(pod) and (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES


def pod_requests(pod: Obj) -> dict[str, float]:
    """``resourcehelper.PodRequests``: the sum over containers, at least the largest init container."""
    spec = pod.get("spec") or {}
    total: dict[str, float] = {}
    for container in spec.get("containers") or ():
        for name, value in ((container.get("resources") or {}).get("requests") or {}).items():
            total[name] = total.get(name, 0.0) + _amount(value)
    for container in spec.get("initContainers") or ():
        for name, value in ((container.get("resources") or {}).get("requests") or {}).items():
            total[name] = max(total.get(name, 0.0), _amount(value))
    for name, value in (spec.get("overhead") or {}).items():
        total[name] = total.get(name, 0.0) + _amount(value)
    return total


def nonzero_requests(pod: Obj) -> dict[str, float]:
    """``GetNonzeroRequests`` summed as ``PodRequests`` sums: CPU and memory, each container's unset request
    counted as the defaults above, so that pods without requests still weigh on a node's score."""
    spec = pod.get("spec") or {}

    def container(c: Obj) -> tuple[float, float]:
        requests = (c.get("resources") or {}).get("requests") or {}
        cpu = _amount(requests["cpu"]) if "cpu" in requests else NONZERO_CPU
        memory = _amount(requests["memory"]) if "memory" in requests else NONZERO_MEMORY
        return cpu, memory

    cpu = memory = 0.0
    for c in spec.get("containers") or ():
        c_cpu, c_memory = container(c)
        cpu, memory = cpu + c_cpu, memory + c_memory
    for c in spec.get("initContainers") or ():
        c_cpu, c_memory = container(c)
        cpu, memory = max(cpu, c_cpu), max(memory, c_memory)
    overhead = spec.get("overhead") or {}
    cpu += _amount(overhead["cpu"]) if "cpu" in overhead else 0.0
    memory += _amount(overhead["memory"]) if "memory" in overhead else 0.0
    return {"cpu": cpu, "memory": memory}


def tolerates(pod: Obj, taint: Obj) -> bool:
    """``v1helper.TolerationsTolerateTaint``: one of the pod's tolerations matches ``taint``."""
    for tol in (pod.get("spec") or {}).get("tolerations") or ():
        if tol.get("effect") and tol.get("effect") != taint.get("effect"):
            continue
        if tol.get("operator") == "Exists":
            if not tol.get("key") or tol.get("key") == taint.get("key"):
                return True
        elif tol.get("key") == taint.get("key") and (tol.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def _term_matches(term: Obj, node: Obj) -> bool:
    labels = node["metadata"].get("labels") or {}
    expressions = term.get("matchExpressions") or []
    fields = term.get("matchFields") or []
    if not expressions and not fields:
        return False
    if expressions and not LabelSelector.from_dict({"matchExpressions": _node_ops(expressions)}).matches(labels):
        return False
    for field in fields:
        if field.get("key") != "metadata.name":
            return False
        values = field.get("values") or []
        name = node["metadata"]["name"]
        if (field.get("operator") == "In") != (name in values):
            return False
    return True


def _node_ops(expressions: list[Obj]) -> list[Obj]:
    # Gt and Lt are node-selector operators only: compare numerically by hand.
    return [e for e in expressions if e.get("operator") in ("In", "NotIn", "Exists", "DoesNotExist")]


def node_fits_selectors(pod: Obj, node: Obj) -> bool:
    spec = pod.get("spec") or {}
    labels = node["metadata"].get("labels") or {}
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = required.get("nodeSelectorTerms") or []
    if terms and not any(_term_matches(term, node) for term in terms):
        return False
    for expr in (e for term in terms for e in term.get("matchExpressions") or ()):
        if expr.get("operator") in ("Gt", "Lt"):
            value = labels.get(expr.get("key", ""))
            try:
                ok = value is not None and ((int(value) > int(expr["values"][0])) if expr["operator"] == "Gt"
                                            else (int(value) < int(expr["values"][0])))
            except (ValueError, IndexError, KeyError):
                ok = False
            if not ok:
                return False
    return True


def node_is_ready(node: Obj) -> bool:
    ready = condition(node, "Ready")
    return ready is not None and ready.get("status") == "True"


class DefaultScheduler(Actor):
    name = "default-scheduler"

    def __init__(self, runtime: Any, timing: Timing) -> None:
        super().__init__(runtime, timing)
        self.manager = runtime.manager("kube-scheduler", cache_lag=timing.watch_lag, api_latency=timing.api_latency)
        self.writer = Writer(runtime, self.manager, identity.SCHEDULER)
        self.recorder = self.manager.event_recorder(SCHEDULER_NAME, api="events")
        # pod uid → (node, requests, the requests scoring counts)
        self.assumed: dict[str, tuple[str, dict[str, float], dict[str, float]]] = {}
        self.unschedulable: dict[Request, None] = {}
        self.pods = self.manager.informer("pods")
        self.nodes = self.manager.informer("nodes")
        self.controller = self.manager.controller("scheduler", self._schedule_one, workers=1)
        self.controller.for_("pods", predicates=[predicates.Funcs(create=_wants_us, update=lambda old, new: _wants_us(new),
                                                                   delete=lambda obj: False)])
        self.pods.add_handler(InformerHandler(None, self._pod_changed, self._pod_gone))
        self.nodes.add_handler(InformerHandler(lambda node, initial: self._retry(), lambda old, new: self._retry(),
                                               None))

    # -- retries of unschedulable pods ---------------------------------------------------------------------

    def _retry(self) -> None:
        for req in list(self.unschedulable):
            self.controller.enqueue(req)

    def _pod_changed(self, old: Obj, new: Obj) -> None:
        uid = new["metadata"]["uid"]
        if uid in self.assumed and (new.get("spec") or {}).get("nodeName"):
            del self.assumed[uid]  # the cache has the binding now
        if (new.get("status") or {}).get("phase") in TERMINAL_PHASES and self.unschedulable:
            self._retry()

    def _pod_gone(self, pod: Obj) -> None:
        self.assumed.pop(pod["metadata"]["uid"], None)
        if (pod.get("spec") or {}).get("nodeName") and self.unschedulable:
            self._retry()

    # -- one scheduling cycle ----------------------------------------------------------------------------------

    async def _schedule_one(self, req: Request) -> None:
        pod = await self.writer.get("pods", req.name, req.namespace)
        if pod is None or not _wants_us(pod):
            self.unschedulable.pop(req, None)
            return
        delay = self.sample(self.timing.schedule_delay)
        if delay > 0:
            await self.runtime.sleep(delay)
        nodes = await self.writer.list("nodes")
        requests = pod_requests(pod)
        weight = nonzero_requests(pod)
        usage = self._usage()
        feasible: list[tuple[float, str]] = []
        reasons: dict[str, int] = {}
        for node in sorted(nodes, key=lambda n: n["metadata"]["name"]):
            reason = self._filter(pod, node, requests, usage.get(node["metadata"]["name"], ({}, 0, {})))
            if reason is None:
                feasible.append((self._score(node, weight, usage), node["metadata"]["name"]))
            else:
                reasons[reason] = reasons.get(reason, 0) + 1
        if not feasible:
            await self._unschedulable(pod, req, len(nodes), reasons)
            return
        best = max(score for score, _ in feasible)
        choices = [name for score, name in feasible if score == best]
        chosen = choices[0] if len(choices) == 1 else self.rng.choice(choices)
        meta = pod["metadata"]
        self.assumed[meta["uid"]] = (chosen, requests, weight)
        self.unschedulable.pop(req, None)
        binding = {"apiVersion": "v1", "kind": "Binding",
                   "metadata": {"name": meta["name"], "namespace": meta.get("namespace"), "uid": meta["uid"]},
                   "target": {"kind": "Node", "name": chosen}}
        try:
            await self.writer.bind(meta["name"], meta.get("namespace"), binding)
        except errors.ApiError:
            self.assumed.pop(meta["uid"], None)  # bound elsewhere, deleted, or replaced: the cache will tell
            return
        self.recorder.event(pod, "Normal", "Scheduled",
                            f"Successfully assigned {meta.get('namespace')}/{meta['name']} to {chosen}",
                            action="Binding")

    def _usage(self) -> dict[str, Usage]:
        """Per node: summed requests, pod count and summed scoring requests (``nonzero_requests``) of its
        non-terminal pods, assumed bindings included (a NodeInfo's Requested, Pods and NonZeroRequested)."""
        usage: dict[str, Usage] = {}

        def add(node: str, requests: dict[str, float], weight: dict[str, float]) -> None:
            totals, count, weights = usage.get(node, ({}, 0, {}))
            for name, value in requests.items():
                totals[name] = totals.get(name, 0.0) + value
            for name, value in weight.items():
                weights[name] = weights.get(name, 0.0) + value
            usage[node] = (totals, count + 1, weights)

        seen = set()
        for pod in self.pods.list_raw():
            node = (pod.get("spec") or {}).get("nodeName")
            if node and (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES:
                seen.add(pod["metadata"]["uid"])
                add(node, pod_requests(pod), nonzero_requests(pod))
        for uid, (node, requests, weight) in self.assumed.items():
            if uid not in seen:
                add(node, requests, weight)
        return usage

    def _filter(self, pod: Obj, node: Obj, requests: dict[str, float], used: Usage) -> str | None:
        if not node_is_ready(node):
            return "node(s) were not ready"
        if (node.get("spec") or {}).get("unschedulable") and not tolerates(pod, UNSCHEDULABLE_TAINT):
            return "node(s) were unschedulable"
        for taint in (node.get("spec") or {}).get("taints") or ():
            if taint.get("effect") in ("NoSchedule", "NoExecute") and not tolerates(pod, taint):
                return "node(s) had untolerated taint {" + f"{taint.get('key')}: {taint.get('value') or ''}" + "}"
        if not node_fits_selectors(pod, node):
            return "node(s) didn't match Pod's node affinity/selector"
        allocatable = (node.get("status") or {}).get("allocatable") or {}
        totals, count, _ = used
        if count + 1 > _amount(allocatable.get("pods", "110")):
            return "Too many pods"
        for name, value in requests.items():
            if name in allocatable and totals.get(name, 0.0) + value > _amount(allocatable[name]):
                return f"Insufficient {name}"
        return None

    def _score(self, node: Obj, weight: dict[str, float], usage: dict[str, Usage]) -> float:
        """NodeResourcesLeastAllocated: the mean free fraction of CPU and memory after placing the pod, with
        unset requests counted as the scheduler's non-zero defaults."""
        allocatable = (node.get("status") or {}).get("allocatable") or {}
        _, count, totals = usage.get(node["metadata"]["name"], ({}, 0, {}))
        scores = []
        for name in ("cpu", "memory"):
            capacity = _amount(allocatable.get(name, "0"))
            if capacity <= 0:
                continue
            used = totals.get(name, 0.0) + weight.get(name, 0.0)
            scores.append(max(capacity - used, 0.0) / capacity)
        pods_capacity = _amount(allocatable.get("pods", "110")) or 1.0
        # Pods without requests would tie everywhere; spread them by count, as the default profile's
        # PodTopologySpread / balanced allocation tend to.
        scores.append(max(pods_capacity - count - 1, 0.0) / pods_capacity)
        return round(sum(scores) / len(scores), 9)

    async def _unschedulable(self, pod: Obj, req: Request, total: int, reasons: dict[str, int]) -> None:
        self.unschedulable[req] = None
        detail = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
        message = f"0/{total} nodes are available: {detail}." if total else "no nodes available to schedule pods"
        old = pod.get("status") or {}
        cond = condition(pod, "PodScheduled")
        if cond is not None and cond.get("status") == "False" and cond.get("message") == message:
            return
        new_cond = {"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                    "lastTransitionTime": cond.get("lastTransitionTime") if cond is not None
                    and cond.get("status") == "False" else self.timestamp(),
                    "reason": "Unschedulable", "message": message}
        conditions = [c for c in old.get("conditions") or () if c.get("type") != "PodScheduled"] + [new_cond]
        new_status = {**old, "conditions": conditions}
        schema = self.runtime.resolve("pods").patch_schema
        status_schema = schema.field("status") if schema is not None else None
        patch = create_strategic_merge_patch(old, new_status, status_schema)
        self.recorder.event(pod, "Warning", "FailedScheduling", message, action="Scheduling")
        with contextlib.suppress(errors.ApiError):
            await self.writer.patch("pods", pod["metadata"]["name"], pod["metadata"].get("namespace"),
                                    {"status": patch}, subresource="status",
                                    based_on=pod["metadata"].get("resourceVersion"))

