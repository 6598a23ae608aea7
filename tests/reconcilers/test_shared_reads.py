"""The ports read the informer caches without copying (``shared_get``, ``copy=False`` lists, the summaries)
and build what they write around those shared objects. Nothing may ever change a published object: every
version is compared, when it is replaced and at the end of the run, with its JSON at the commit."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.builds import BUILDS
from fakekube.agentsandbox.claim import ClaimReconciler
from fakekube.agentsandbox.objects import editable_status
from fakekube.agentsandbox.scenarios import run_scenario
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.sim import Simulation


@pytest.mark.parametrize(("mode", "build"), [("update", None), ("patch", None), ("update", "953032b3")])
def test_no_pass_changes_an_object_the_caches_share(mode: str, build: str | None) -> None:
    """The 953032b3 build is the one whose claims hold the sandbox's podIPs (a nested dict the pass edits)."""
    sim = Simulation(seed=3)
    at_commit: dict[tuple[str, str], bytes] = {}
    changed: list[str] = []

    def key(obj: dict[str, Any]) -> tuple[str, str]:
        meta = obj["metadata"]
        return meta.get("uid", ""), meta.get("resourceVersion", "")

    def check(obj: dict[str, Any], when: str) -> None:
        seen = at_commit.get(key(obj))
        if seen is not None and orjson.dumps(obj) != seen:
            changed.append(f"{obj.get('kind')} {obj['metadata'].get('name')} rv {key(obj)[1]} ({when})")

    def hook(entry: Any, old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        if old is not None:
            check(old, "when replaced")
        if new is not None:
            at_commit[key(new)] = orjson.dumps(new)

    sim.store.commit_hooks.append(hook)
    run = run_scenario("seed-timeline", WriteStrategies(mode), sim=sim, build=build)
    assert run.finished
    cached = 0
    for manager in sim.managers.values():
        for informer in manager.informers.values():
            for bucket in informer.by_ns.values():
                for obj in bucket.values():
                    check(obj, "cached at the end")
                    cached += 1
    assert cached > 20 and len(at_commit) > 100  # the run did adopt, patch and write status
    assert changed == []


def test_the_check_sees_a_change_to_a_cached_object() -> None:
    """The test above could not fail if a mutation went unnoticed: change one cached object and look."""
    sim = Simulation(seed=3)
    store = sim.store
    at_commit: dict[str, bytes] = {}
    store.commit_hooks.append(lambda entry, old, new: at_commit.__setitem__(
        new["metadata"]["resourceVersion"], orjson.dumps(new)) if new is not None else None)
    store.create("configmaps", {"metadata": {"name": "a"}, "data": {"k": "v"}}, "default")
    informer = sim.manager("m").informer("configmaps")
    shared = informer.get_raw("default", "a")
    shared["data"]["k"] = "corrupted"  # what a pass must never do
    assert orjson.dumps(shared) != at_commit[shared["metadata"]["resourceVersion"]]


def test_a_claim_pass_edits_its_own_copy_of_the_cached_status() -> None:
    """What the run above cannot show: a pass that changes a value nested in the cached status (the held
    sandbox's name and podIPs) must not change it in the cached claim (``editable_status`` shares nested dicts)."""
    cached = {"apiVersion": keys.EXTENSIONS_API, "kind": "SandboxClaim",
              "metadata": {"name": "c", "namespace": "default", "uid": "u-1", "generation": 1},
              "status": {"conditions": [{"type": "Ready", "status": "False", "reason": "SandboxNotReady",
                                         "message": "", "lastTransitionTime": "t0"}],
                         "sandbox": {"name": "old", "podIPs": ["10.0.0.1"]}}}
    at_read = orjson.dumps(cached)
    sandbox = {"metadata": {"name": "new", "namespace": "default"},
               "status": {"podIPs": ["10.0.0.2"], "conditions": [
                   {"type": "Ready", "status": "True", "reason": "DependenciesReady", "message": "",
                    "lastTransitionTime": "t1"}]}}
    reconciler = ClaimReconciler(client=None, recorder=None, now=lambda: "t2", clock_seconds=lambda: 0.0,
                                 build=BUILDS["953032b3"])
    claim = {**cached, "status": editable_status(cached["status"])}  # as ClaimReconciler.reconcile copies it
    reconciler._compute_and_set_status(claim, sandbox, None, False)
    assert claim["status"]["sandbox"] == {"name": "new", "podIPs": ["10.0.0.2"]}
    assert claim["status"]["conditions"][0]["status"] == "True"
    assert orjson.dumps(cached) == at_read
