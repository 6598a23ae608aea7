"""What ``fakekube audit`` computes: summaries, GKE-style resource names, related objects."""

from __future__ import annotations

from fakekube.audit import AuditEntry
from fakekube.audit.analysis import Related, matches_names, resource_name, summarize


def _e(verb: str, resource: str, name: str | None, code: int = 200, *, reason: str = "", actor: str = "ctrl",
       group: str = "", sub: str | None = None, generate: str | None = None, body: dict | None = None,
       uid: str | None = None) -> AuditEntry:
    return AuditEntry(seq=0, time=1.0, actor=actor, verb=verb, group=group, resource=resource, namespace="ns",
                      name=name, subresource=sub, code=code, reason=reason, version="v1", generate_name=generate,
                      request_object=body, uid=uid)


def test_summary_splits_409s_by_reason_resource_actor_and_object() -> None:
    entries = [_e("update", "pods", "a", 409, reason="Conflict"), _e("update", "pods", "a", 409, reason="Conflict",
               actor="kubelet", sub="status"), _e("create", "pods", "a", 409, reason="AlreadyExists"),
               _e("get", "pods", "a")]
    s = summarize(entries)
    assert s["requests"] == 4 and s["by_verb"] == {"update": 2, "create": 1, "get": 1}
    assert s["409"]["by_reason"] == {"Conflict": 2, "AlreadyExists": 1}
    assert s["409"]["Conflict"]["by_resource"] == {"pods": 1, "pods/status": 1}
    assert s["409"]["Conflict"]["by_actor"] == {"ctrl": 1, "kubelet": 1}
    assert s["409"]["Conflict"]["by_object"] == {"pods/ns/a": 2}


def test_resource_names_as_cloud_logging_spells_them() -> None:
    assert resource_name(_e("get", "pods", "p", sub="status")) == "core/v1/namespaces/ns/pods/p/status"
    claim = _e("get", "sandboxclaims", "c", group="extensions.agents.x-k8s.io")
    assert resource_name(claim) == "extensions.agents.x-k8s.io/v1/namespaces/ns/sandboxclaims/c"
    # PR #508's filter: resourceName="pods/sandboxclaim-" OR resourceName="sandboxclaims/"
    assert matches_names(claim, ["pods/sandboxclaim-", "sandboxclaims/"])
    assert not matches_names(_e("get", "pods", "other"), ["pods/sandboxclaim-", "sandboxclaims/"])


def test_related_objects() -> None:
    target = _e("create", "replicasets", "web-7d9f8", group="apps", uid="u1")
    owned = _e("update", "pods", "web-7d9f8-x2x4z", body={"metadata": {"ownerReferences": [{"uid": "u1"}]}})
    entries = [target, owned, _e("create", "pods", None, generate="web-7d9f8-"),
               _e("create", "events", "web-7d9f8.1886"), _e("update", "services", "web-7d9f8"),
               _e("update", "pods", "web-other"), _e("create", "pods", "x", body={"metadata": {"ownerReferences": [
                   {"uid": "u1"}]}})]
    related = Related("replicasets", "web-7d9f8")
    for entry in entries:
        related.observe(entry)
    assert [related.includes(e) for e in entries] == [True, True, True, True, True, False, True]
    alone = Related("replicasets", "web-7d9f8", related=False)
    assert [alone.includes(e) for e in entries] == [True, False, False, False, False, False, False]
    # A pod whose create the log shows only by its generateName: the creates that may have made it.
    pod = Related("pods", "web-7d9f8-x2x4z")
    assert pod.includes(_e("create", "pods", None, generate="web-7d9f8-"))
