"""The build switch: the 953032b3 build (what PR #508's tables show) against 26288535, request by request."""

from __future__ import annotations

import pytest

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.builds import BUILDS, DEFAULT_BUILD, get_build
from fakekube.agentsandbox.strategies import WriteStrategies
from fakekube.sim import FifoWorkQueue, WorkQueue


def _claim(name: str) -> dict:
    return {"apiVersion": keys.EXTENSIONS_API, "kind": "SandboxClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"sandboxTemplateRef": {"name": "sandbox-template"}}}


def _cold_claim(factory, build: str):
    env = factory(seed=2, build=build)
    from fakekube.agentsandbox.scenarios import LoadParams, template_object

    params = LoadParams(burst_size=1, qps=1, total_bursts=1, warmpool_size=0, namespace="default",
                        template="sandbox-template")
    env.store.create(keys.TEMPLATES, template_object(params), actor="test")
    env.store.create(keys.CLAIMS, _claim("c1"), actor="test")
    env.sim.run(until=env.sim.now + 30)
    return env


@pytest.fixture(scope="module")
def envs():
    from fakekube.agentsandbox.env import build_env

    return {name: _cold_claim(build_env, name) for name in BUILDS}


def _writes(env, actor=keys.SANDBOX_ACTOR):
    return [e for e in env.store.audit.entries if e.is_write and e.actor == actor]


def test_the_default_build_is_the_one_the_tables_came_from():
    assert DEFAULT_BUILD == "953032b3" and get_build(None) is BUILDS["953032b3"]
    with pytest.raises(ValueError, match="unknown agent-sandbox build"):
        get_build("deadbeef")
    assert get_build("26288535").resolve(WriteStrategies("patch")) == WriteStrategies("patch", "update", "update")
    assert get_build("953032b3").resolve(WriteStrategies()) == WriteStrategies("update", "patch", "update")


def test_pod_name_annotation_is_patched_right_after_the_pod_is_created(envs):
    """#272: CREATE pods/<sb> is followed by PATCH sandboxes/<sb> setting agents.x-k8s.io/pod-name."""
    new, old = envs["953032b3"], envs["26288535"]
    paths = [(e.verb, e.path) for e in _writes(new)]
    create = paths.index(("create", "pods/c1"))
    assert paths[create + 1] == ("patch", "sandboxes/c1")
    assert new.store.get(keys.SANDBOXES, "c1", "default")["metadata"]["annotations"][keys.POD_NAME] == "c1"
    assert keys.POD_NAME not in (old.store.get(keys.SANDBOXES, "c1", "default")["metadata"].get("annotations") or {})


def test_sandbox_status_is_a_merge_patch_and_the_pod_is_put_every_pass(envs):
    new, old = envs["953032b3"], envs["26288535"]
    new_status = {e.verb for e in _writes(new) if e.resource == "sandboxes" and e.subresource == "status"}
    old_status = {e.verb for e in _writes(old) if e.resource == "sandboxes" and e.subresource == "status"}
    assert (new_status, old_status) == ({"patch"}, {"update"})
    # #419: the pod is PUT on every pass that finds it, changed or not (the API server writes nothing then);
    # 26288535 only PUT it when the labels had to change (never, for a pod the sandbox created itself).
    new_puts = [e for e in _writes(new) if e.verb == "update" and e.resource == "pods"]
    assert len(new_puts) >= 3 and any("no-op" in e.notes for e in new_puts)
    assert not [e for e in _writes(old) if e.verb == "update" and e.resource == "pods"]


def test_pod_ips_are_mirrored_into_sandbox_and_claim_status(envs):
    new, old = envs["953032b3"], envs["26288535"]
    pod_ip = new.store.get(keys.PODS, "c1", "default")["status"]["podIP"]
    assert new.store.get(keys.SANDBOXES, "c1", "default")["status"]["podIPs"] == [pod_ip]
    assert new.store.get(keys.CLAIMS, "c1", "default")["status"]["sandbox"] == {"name": "c1", "podIPs": [pod_ip]}
    assert "podIPs" not in old.store.get(keys.SANDBOXES, "c1", "default")["status"]


def test_builds_run_the_queue_and_recorder_of_their_controller_runtime(envs):
    new, old = envs["953032b3"], envs["26288535"]
    assert isinstance(new.controllers["claim"].queue, WorkQueue)  # v0.23.3: priority queue
    assert isinstance(old.controllers["claim"].queue, FifoWorkQueue)  # v0.22.2: classic queue, max-of limiter
    assert {e.group for e in new.store.audit.filter(resource="events")} == {"events.k8s.io"}
    assert {e.group for e in old.store.audit.filter(resource="events")} == {""}


def test_another_controllers_pod_is_refused_and_its_annotation_cleared(agent_sandbox_env_factory):
    """#419 at 953032b3: a pod named after the sandbox but controlled by something else is not adopted."""
    env = agent_sandbox_env_factory(seed=1)
    owner = env.store.create("configmaps", {"metadata": {"name": "x", "namespace": "default"}}, actor="test")
    env.store.create(keys.PODS, {"metadata": {"name": "sb", "namespace": "default", "ownerReferences": [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": owner["metadata"]["uid"], "controller": True}]},
        "spec": {"containers": [{"name": "c", "image": "i"}]}}, actor="test")
    env.store.create(keys.SANDBOXES, {"apiVersion": keys.SANDBOX_API, "kind": "Sandbox",
                                      "metadata": {"name": "sb", "namespace": "default",
                                                   "annotations": {keys.POD_NAME: "sb"}},
                                      "spec": {"podTemplate": {"spec": {"containers": [{"name": "c", "image": "i"}]}},
                                               "replicas": 1}}, actor="test")
    env.sim.run(until=env.sim.now + 2)
    sandbox = env.store.get(keys.SANDBOXES, "sb", "default")
    assert keys.POD_NAME not in (sandbox["metadata"].get("annotations") or {})
    ready = {c["type"]: c for c in sandbox["status"]["conditions"]}["Ready"]
    assert ready["reason"] == "ReconcilerError" and "is owned by ConfigMap/x" in ready["message"]
    assert not env.store.audit.filter(verb="update", resource="pods", name="sb")


def test_a_service_found_is_kept_when_owned_adopted_when_unowned_and_refused_when_foreign() -> None:
    """#419 for the headless Service: the pass keeps its own, PUTs an unowned headless one to adopt it, and
    reports another controller's in its Ready condition (the sandbox's first owner test is asked in-line)."""
    from fakekube.agentsandbox.env import build_env
    from fakekube.agentsandbox.scenarios import LoadParams, template_object

    env = build_env(seed=2, build="953032b3")
    params = LoadParams(burst_size=1, qps=1, total_bursts=1, warmpool_size=0, namespace="default",
                        template="sandbox-template")
    env.store.create(keys.TEMPLATES, template_object(params), actor="test")
    owner = env.store.create("configmaps", {"metadata": {"name": "other-owner"}}, "default", actor="test")
    foreign_ref = {"apiVersion": "v1", "kind": "ConfigMap", "name": "other-owner",
                   "uid": owner["metadata"]["uid"], "controller": True}
    for name, refs in (("unowned", []), ("foreign", [foreign_ref])):
        env.store.create(keys.SERVICES, {"metadata": {"name": name, "ownerReferences": refs},
                                         "spec": {"clusterIP": "None", "ports": [{"port": 80}]}}, "default",
                         actor="test")
    for name in ("own", "unowned", "foreign"):
        env.store.create(keys.CLAIMS, _claim(name), actor="test")
    env.sim.run(until=env.sim.now + 30)

    def service_writes(name: str) -> list[str]:
        return [e.verb for e in _writes(env) if e.path == f"services/{name}"]

    assert service_writes("own") == ["create"]
    assert service_writes("unowned") == ["update"]
    assert service_writes("foreign") == []
    for name in ("own", "unowned"):
        sandbox = env.store.get(keys.SANDBOXES, name, "default")
        svc = env.store.get(keys.SERVICES, name, "default")
        assert [r["uid"] for r in svc["metadata"]["ownerReferences"] if r.get("controller")] == \
            [sandbox["metadata"]["uid"]]
        assert sandbox["status"]["service"] == name
    ready = next(c for c in env.store.get(keys.SANDBOXES, "foreign", "default")["status"]["conditions"]
                 if c["type"] == "Ready")
    assert ready["reason"] == "ReconcilerError" and 'service "foreign" is owned by ConfigMap/other-owner' in ready["message"]


def test_v1_0_1_claim_status_stamps_first_ready_and_carries_the_claims_generation(envs):
    """v1.0.1 (sandboxclaim_controller.go: recordCreationLatencyMetric, computeReadyCondition): the pass whose status
    write made the claim Ready ends with a merge PATCH of the claim stamping claim-first-ready-at; the claim's Ready
    condition carries the claim's generation, not the sandbox's."""
    new, old = envs["953032b3+v1.0.1-claim"], envs["953032b3"]
    for env, stamped in ((new, True), (old, False)):
        claim = env.store.get(keys.CLAIMS, "c1", "default")
        [ready] = [c for c in claim["status"]["conditions"] if c["type"] == keys.READY]
        assert ready["status"] == "True"
        assert (keys.CLAIM_FIRST_READY in (claim["metadata"].get("annotations") or {})) is stamped
        writes = [(e.verb, e.path) for e in _writes(env, keys.CLAIM_ACTOR) if e.resource == "sandboxclaims"]
        if stamped:
            assert ready["observedGeneration"] == claim["metadata"]["generation"]
            last_status = max(i for i, w in enumerate(writes) if w[1].endswith("/status"))
            assert writes[last_status + 1] == ("patch", "sandboxclaims/c1")  # the stamp follows the Ready write
            # (on this cold path a later pass, whose cache has the Ready status but not yet the stamp, backfills
            # "unknown" over it: upstream's backfillFirstReadyAnnotation from a stale view)
