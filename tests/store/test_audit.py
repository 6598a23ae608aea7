from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store

from .conftest import widget


def test_every_request_is_an_entry_reads_included(crd_kube: Store) -> None:
    crd_kube.audit.clear()
    w = crd_kube.create("widgets", widget("agent-claim-4"), "default", actor="claim-controller")
    crd_kube.get("widgets", "agent-claim-4", "default", actor="claim-controller")
    crd_kube.list("widgets", "default", actor="kubectl")
    w["status"] = {"phase": "Ready"}
    crd_kube.update("widgets", w, "default", subresource="status", actor="claim-controller")
    with pytest.raises(errors.Conflict):
        crd_kube.update("widgets", w, "default", subresource="status", actor="claim-controller")
    crd_kube.patch("widgets", "agent-claim-4", {"spec": {"replicas": 3}}, "default", actor="kubectl")
    first = crd_kube.audit[0].seq
    rows = [(e.seq - first + 1, e.actor, e.verb, e.path, e.code, e.reason) for e in crd_kube.audit]
    assert rows == [
        (1, "claim-controller", "create", "widgets/agent-claim-4", 201, ""),
        (2, "claim-controller", "get", "widgets/agent-claim-4", 200, ""),
        (3, "kubectl", "list", "widgets", 200, ""),
        (4, "claim-controller", "update", "widgets/agent-claim-4/status", 200, ""),
        (5, "claim-controller", "update", "widgets/agent-claim-4/status", 409, "Conflict"),
        (6, "kubectl", "patch", "widgets/agent-claim-4", 200, ""),
    ]
    update, conflict, patch = crd_kube.audit[3], crd_kube.audit[4], crd_kube.audit[5]
    assert int(update.rv_after) == int(update.rv_before) + 1
    assert conflict.rv_after is None and conflict.rv_before == update.rv_after
    assert patch.patch_type == "application/merge-patch+json"
    assert [e.seq - first + 1 for e in crd_kube.audit.conflicts()] == [5]
    assert crd_kube.audit.conflict_counts() == {"widgets/status": 1}
    assert crd_kube.audit.conflict_counts("actor") == {"claim-controller": 1}
    assert len(crd_kube.audit.by_actor("kubectl")) == 2
    assert len(crd_kube.audit.by_resource("widgets", "agent-claim-4")) == 5


def test_audit_jsonl_is_stable_for_a_seeded_store(kube_factory) -> None:
    from datetime import UTC, datetime

    from fakekube.clock import VirtualClock

    def run() -> str:
        store = kube_factory(seed=3, clock=VirtualClock(datetime(2026, 4, 2, tzinfo=UTC)))
        store.create("configmaps", {"metadata": {"generateName": "c-"}}, "default")
        store.list("configmaps")
        return store.audit.to_jsonl()

    assert run() == run()
