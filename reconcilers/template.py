"""SandboxTemplate controller, ported from kubernetes-sigs/agent-sandbox
``extensions/controllers/sandboxtemplate_controller.go`` at 26288535 (2026-04-02).

It keeps one shared NetworkPolicy ``<template>-network-policy`` per template: GET template → (Unmanaged:
DELETE the policy, 404 tolerated) → GET policy → PUT when its spec drifted, POST (controller ref to the
template) when missing. Watches: ``For(SandboxTemplate)``, ``Owns(NetworkPolicy)``.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from fakekube import errors
from fakekube.agentsandbox import keys
from fakekube.agentsandbox.hashing import name_hash
from fakekube.agentsandbox.objects import Obj, controller_ref, semantic_equal
from fakekube.sim import Request, Result

# The default egress allows the internet and blocks private, link-local and ULA ranges.
_BLOCKED_V4 = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"]
_BLOCKED_V6 = ["fc00::/7", "fe80::/10"]


def default_policy_spec(template_name: str) -> Obj:
    """``buildDefaultNetworkPolicySpec``: ingress only from the sandbox router, egress to public addresses."""
    return {
        "podSelector": {"matchLabels": {keys.TEMPLATE_REF_HASH: name_hash(template_name)}},
        "policyTypes": ["Ingress", "Egress"],
        "ingress": [{"from": [{"podSelector": {"matchLabels": {"app": "sandbox-router"}}}]}],
        "egress": [{"to": [
            {"ipBlock": {"cidr": "0.0.0.0/0", "except": list(_BLOCKED_V4)}},
            {"ipBlock": {"cidr": "::/0", "except": list(_BLOCKED_V6)}},
        ]}],
    }


@dataclass
class TemplateReconciler:
    client: Any

    async def reconcile(self, req: Request) -> Result | None:
        c = self.client
        try:
            template = await c.get(keys.TEMPLATES, req.name, req.namespace)
        except errors.NotFound:
            return None
        m = template["metadata"]
        if m.get("deletionTimestamp"):
            return None
        np_name = f"{m['name']}-network-policy"
        spec = template.get("spec") or {}
        if (spec.get("networkPolicyManagement") or "Managed") == "Unmanaged":
            with contextlib.suppress(errors.NotFound):
                await c.delete(keys.NETWORK_POLICIES, np_name, m["namespace"])
            return None
        custom = spec.get("networkPolicy")
        if custom is None:
            desired = default_policy_spec(m["name"])
        else:
            desired = {"podSelector": {"matchLabels": {keys.TEMPLATE_REF_HASH: name_hash(m["name"])}},
                       "policyTypes": ["Ingress", "Egress"]}
            for key in ("ingress", "egress"):
                if custom.get(key):
                    desired[key] = custom[key]
        try:
            existing = await c.get(keys.NETWORK_POLICIES, np_name, m["namespace"])
        except errors.NotFound:
            np = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
                  "metadata": {"name": np_name, "namespace": m["namespace"],
                               "ownerReferences": [controller_ref(template)]},
                  "spec": desired}
            await c.create(keys.NETWORK_POLICIES, np)
            return None
        if semantic_equal(existing.get("spec"), desired):
            return None
        existing["spec"] = desired
        await c.update(keys.NETWORK_POLICIES, existing)
        return None


def setup(mgr: Any, reconciler: TemplateReconciler, workers: int = 1) -> Any:
    return (mgr.controller("sandboxtemplate", reconciler.reconcile, workers=workers)
            .for_(keys.TEMPLATES)
            .owns(keys.NETWORK_POLICIES))
