"""pods/eviction against PodDisruptionBudgets (kubernetes pkg/registry/core/pod/storage/eviction.go)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store

PDBS = "poddisruptionbudgets.policy"


def running_pod(store: Store, name: str, *, ready: bool = True, phase: str = "Running",
                labels: dict[str, str] | None = None) -> dict[str, Any]:
    pod = store.create("pods", {"metadata": {"name": name, "labels": labels or {"app": "web"}},
                                "spec": {"terminationGracePeriodSeconds": 30, "nodeName": "node-1",
                                         "containers": [{"name": "c", "image": "x"}]}}, "default")
    status = {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}
    return store.update("pods", {**pod, "status": status}, "default", subresource="status")


def budget(store: Store, name: str = "web", *, allowed: int, healthy: int = 2, desired: int = 2,
           **spec: Any) -> dict[str, Any]:
    pdb = store.create(PDBS, {"metadata": {"name": name},
                              "spec": {"selector": {"matchLabels": {"app": "web"}}, "minAvailable": desired, **spec}},
                       "default")
    status = {"disruptionsAllowed": allowed, "currentHealthy": healthy, "desiredHealthy": desired,
              "expectedPods": healthy, "observedGeneration": pdb["metadata"].get("generation", 0)}
    return store.update(PDBS, {**pdb, "status": status}, "default", subresource="status")


def eviction(name: str, **delete_options: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"apiVersion": "policy/v1", "kind": "Eviction",
                            "metadata": {"name": name, "namespace": "default"}}
    if delete_options:
        body["deleteOptions"] = delete_options
    return body


def test_without_a_budget_the_pod_is_deleted_gracefully_with_the_disruption_target_condition(kube: Store):
    running_pod(kube, "a")
    assert kube.evict("a", eviction("a"), "default") == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
    pod = kube.get("pods", "a", "default")
    assert pod["metadata"]["deletionTimestamp"] and pod["metadata"]["deletionGracePeriodSeconds"] == 30
    target = next(c for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget")
    assert (target["status"], target["reason"], target["message"]) == (
        "True", "EvictionByEvictionAPI", "Eviction API: evicting")
    [entry] = [e for e in kube.audit if e.subresource == "eviction"]
    assert (entry.verb, entry.resource, entry.code) == ("create", "pods", 201)


def test_a_budget_that_allows_none_answers_429_with_the_real_message(kube: Store):
    running_pod(kube, "a")
    running_pod(kube, "b")
    budget(kube, allowed=0)
    with pytest.raises(errors.ApiError) as caught:
        kube.evict("a", eviction("a"), "default")
    assert caught.value.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "Cannot evict pod as it would violate the pod's disruption budget.",
        "reason": "TooManyRequests",
        "details": {"causes": [{"reason": "DisruptionBudget",
                                "message": "The disruption budget web needs 2 healthy pods and has 2 currently"}]},
        "code": 429}
    assert "deletionTimestamp" not in kube.get("pods", "a", "default")["metadata"]


def test_an_allowed_eviction_spends_the_budget(kube: Store):
    running_pod(kube, "a")
    running_pod(kube, "b")
    budget(kube, allowed=1, healthy=2, desired=1)
    kube.evict("a", eviction("a"), "default")
    status = kube.get(PDBS, "web", "default")["status"]
    assert status["disruptionsAllowed"] == 0 and list(status["disruptedPods"]) == ["a"]
    assert [(c["type"], c["status"], c["reason"]) for c in status["conditions"]] == [
        ("DisruptionAllowed", "False", "InsufficientPods")]
    writes = [(e.actor, e.resource, e.subresource) for e in kube.audit if e.is_write][-2:]
    assert writes == [("kube-apiserver", "poddisruptionbudgets", "status"), ("fakekube", "pods", "eviction")]
    with pytest.raises(errors.ApiError, match="violate the pod's disruption budget") as caught:
        kube.evict("b", eviction("b"), "default")
    assert caught.value.code == 429


def test_budgets_not_yet_processed_and_unhealthy_pods(kube: Store):
    running_pod(kube, "sick", ready=False)
    running_pod(kube, "a")
    pdb = budget(kube, allowed=0, healthy=1, desired=1)
    # An unready pod of a healthy budget is evicted without spending it (IfHealthyBudget).
    kube.evict("sick", eviction("sick"), "default")
    assert kube.get("pods", "sick", "default")["metadata"]["deletionTimestamp"]
    pdb["spec"]["minAvailable"] = 2
    kube.update(PDBS, pdb, "default")  # a new generation the controller has not observed
    if not kube.get(PDBS, "web", "default")["metadata"].get("generation"):
        pytest.skip("this store's PodDisruptionBudget strategy does not track generation")
    with pytest.raises(errors.ApiError) as caught:
        kube.evict("a", eviction("a"), "default")
    assert caught.value.details["causes"][0]["message"] == \
        "The disruption budget web is still being processed by the server."
    assert caught.value.details["retryAfterSeconds"] == 10


def test_pending_and_finished_pods_skip_the_budget(kube: Store):
    running_pod(kube, "pending", phase="Pending", ready=False)
    running_pod(kube, "done", phase="Succeeded", ready=False)
    budget(kube, allowed=0)
    kube.evict("pending", eviction("pending"), "default")
    kube.evict("done", eviction("done", gracePeriodSeconds=0), "default")
    with pytest.raises(errors.NotFound):
        kube.get("pods", "done", "default")
    assert kube.get("pods", "pending", "default")["metadata"]["deletionTimestamp"]


def test_bad_requests(kube: Store):
    running_pod(kube, "a")
    running_pod(kube, "b", labels={"app": "web", "tier": "x"})
    with pytest.raises(errors.BadRequest, match="name in URL does not match name in Eviction object"):
        kube.evict("a", eviction("b"), "default")
    with pytest.raises(errors.BadRequest, match="not a Eviction object"):
        kube.evict("a", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}, "default")
    with pytest.raises(errors.NotFound):
        kube.evict("zz", eviction("zz"), "default")
    with pytest.raises(errors.Conflict):
        kube.evict("a", eviction("a", preconditions={"uid": "not-the-uid"}), "default")
    kube.evict("a", eviction("a", dryRun=["All"]), "default")
    assert "deletionTimestamp" not in kube.get("pods", "a", "default")["metadata"]
    budget(kube, "one", allowed=1)
    budget(kube, "two", allowed=1)
    with pytest.raises(errors.ApiError, match="more than one PodDisruptionBudget") as caught:
        kube.evict("b", eviction("b"), "default")
    assert caught.value.code == 500
