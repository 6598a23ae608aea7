"""A small example controller used by the simulation tests: one claim-like kind, ``widgets.example.com``.

A reconcile pass of the Widget controller does what agent-sandbox's claim controller did in PR #508:

1. read the widget from the cache; stop when its status already says Ready;
2. merge-PATCH an annotation (no lock): the object in memory jumps to the new resourceVersion;
3. create an owned ConfigMap named after the widget (``Owns`` re-enqueues the widget);
4. write the status (a Ready condition with a microsecond timestamp from ``datetime.now()``), with the
   ``status_mode`` under test: ``update`` (PUT /status), ``merge`` (MergeFrom), ``locked`` (MergeFrom with
   the optimistic lock).
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Any

from fakekube import errors
from fakekube.sim import MergeFrom, Request, Result, Simulation

WIDGETS = "widgets.example.com"

WIDGET_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": WIDGETS},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [{
            "name": "v1", "served": True, "storage": True,
            "subresources": {"status": {}},
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            }}},
        }],
    },
}


def widget(name: str, namespace: str = "default", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "namespace": namespace},
            "spec": dict(spec)}


class WidgetController:
    def __init__(self, sim: Simulation, mgr: Any, status_mode: str = "update", workers: int = 1) -> None:
        self.sim = sim
        self.status_mode = status_mode
        self.client = mgr.client("widget-controller")
        self.recorder = mgr.event_recorder("widget-controller")
        self.controller = (mgr.controller("widget", self.reconcile, workers=workers)
                           .for_(WIDGETS)
                           .owns("configmaps"))
        self.passes: list[tuple[float, str]] = []

    async def reconcile(self, req: Request) -> Result | None:
        self.passes.append((self.sim.now, req.name))
        try:
            w = await self.client.get(WIDGETS, req.name, req.namespace)
        except errors.NotFound:
            return None
        conditions = (w.get("status") or {}).get("conditions") or []
        if any(c["type"] == "Ready" for c in conditions):
            return None
        if "example.com/seen" not in (w["metadata"].get("annotations") or {}):
            base = {**w, "metadata": {**w["metadata"]}}
            w["metadata"]["annotations"] = {**(w["metadata"].get("annotations") or {}), "example.com/seen": "yes"}
            await self.client.patch(WIDGETS, w, MergeFrom(base))
        try:
            await self.client.get("configmaps", req.name, req.namespace)
        except errors.NotFound:
            child = {"metadata": {"name": req.name, "namespace": req.namespace, "ownerReferences": [{
                "apiVersion": "example.com/v1", "kind": "Widget", "name": w["metadata"]["name"],
                "uid": w["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True}]},
                "data": {"for": req.name}}
            with contextlib.suppress(errors.AlreadyExists):
                await self.client.create("configmaps", child)
            self.recorder.event(w, "Normal", "ChildCreated", f"created configmap {req.name}")
        base = {**w, "status": dict(w.get("status") or {})}
        w["status"] = {"conditions": [{"type": "Ready", "status": "True", "reason": "ChildReady",
                                       "lastTransitionTime": datetime.now().isoformat()}]}
        if self.status_mode == "update":
            await self.client.status_update(WIDGETS, w)
        elif self.status_mode == "merge":
            await self.client.status_patch(WIDGETS, w, MergeFrom(base))
        else:
            await self.client.status_patch(WIDGETS, w, MergeFrom(base, optimistic_lock=True))
        return None


def widget_sim(seed: int = 1, *, cache_lag: float = 0.010, api_latency: float = 0.002, status_mode: str = "update",
               workers: int = 1, widgets: int = 1) -> tuple[Simulation, WidgetController]:
    sim = Simulation(seed=seed)
    sim.store.load_crds(WIDGET_CRD)
    mgr = sim.manager("widget-manager", cache_lag=cache_lag, api_latency=api_latency)
    ctl = WidgetController(sim, mgr, status_mode=status_mode, workers=workers)
    for i in range(widgets):
        sim.store.create(WIDGETS, widget(f"w{i}"), "default", actor="user")
    return sim, ctl
