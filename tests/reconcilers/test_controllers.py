"""Small cases per controller, on the agent-sandbox fixtures."""

from __future__ import annotations

from fakekube.agentsandbox import keys
from fakekube.agentsandbox.hashing import name_hash
from fakekube.agentsandbox.objects import controller_of, is_ready


def _claim(name: str, template: str = "sandbox-template") -> dict:
    return {"apiVersion": keys.EXTENSIONS_API, "kind": "SandboxClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"sandboxTemplateRef": {"name": template}}}


def _pool(replicas: int) -> dict:
    return {"apiVersion": keys.EXTENSIONS_API, "kind": "SandboxWarmPool",
            "metadata": {"name": "pool", "namespace": "default"},
            "spec": {"replicas": replicas, "sandboxTemplateRef": {"name": "sandbox-template"}}}


def _settle(env, seconds: float = 30.0) -> None:
    env.sim.run(until=env.sim.now + seconds)


def test_template_controller_creates_the_shared_network_policy(agent_sandbox_env, sandbox_template) -> None:
    _settle(agent_sandbox_env, 2)
    nps = agent_sandbox_env.store.objects(keys.NETWORK_POLICIES, "default")
    assert [np["metadata"]["name"] for np in nps] == ["sandbox-template-network-policy"]
    assert nps[0]["spec"]["podSelector"]["matchLabels"] == {keys.TEMPLATE_REF_HASH: name_hash("sandbox-template")}
    assert controller_of(nps[0])["kind"] == "SandboxTemplate"


def test_cold_claim_creates_a_sandbox_named_after_it_which_becomes_ready(agent_sandbox_env, sandbox_template) -> None:
    env = agent_sandbox_env
    env.store.create(keys.CLAIMS, _claim("c1"), actor="test")
    _settle(env)
    sandbox = env.store.get(keys.SANDBOXES, "c1", "default")
    assert controller_of(sandbox)["name"] == "c1" and is_ready(sandbox)
    pod = env.store.get(keys.PODS, "c1", "default")
    assert pod["metadata"]["labels"][keys.SANDBOX_NAME_HASH] == name_hash("c1")
    assert env.store.get(keys.SERVICES, "c1", "default")["spec"]["clusterIP"] == "None"
    claim = env.store.get(keys.CLAIMS, "c1", "default")
    assert claim["status"]["sandbox"]["name"] == "c1" and is_ready(claim)
    assert keys.TRACE_CONTEXT in claim["metadata"]["annotations"]
    # The cold path deleted the (absent) per-claim policy first: a 404 in the audit log.
    assert env.store.audit.filter(verb="delete", resource="networkpolicies", code=404)


def test_claim_without_template_reports_template_not_found(agent_sandbox_env) -> None:
    env = agent_sandbox_env
    env.store.create(keys.CLAIMS, _claim("c1", template="missing"), actor="test")
    _settle(env, 2)
    ready = env.store.get(keys.CLAIMS, "c1", "default")["status"]["conditions"][0]
    assert (ready["status"], ready["reason"]) == ("False", "TemplateNotFound")


def test_warm_pool_fills_and_a_claim_adopts_a_member(agent_sandbox_env, sandbox_template) -> None:
    env = agent_sandbox_env
    env.store.create(keys.WARMPOOLS, _pool(2), actor="test")
    _settle(env)
    members = [s for s in env.store.objects(keys.SANDBOXES, "default")
               if s["metadata"]["labels"].get(keys.WARM_POOL_SANDBOX) == name_hash("pool")]
    assert len(members) == 2 and all(is_ready(s) for s in members)
    pool = env.store.get(keys.WARMPOOLS, "pool", "default")
    assert pool["status"]["readyReplicas"] == 2
    env.store.create(keys.CLAIMS, _claim("c1"), actor="test")
    _settle(env)
    claim = env.store.get(keys.CLAIMS, "c1", "default")
    adopted = env.store.get(keys.SANDBOXES, claim["status"]["sandbox"]["name"], "default")
    assert adopted["metadata"]["name"].startswith("pool-")
    assert controller_of(adopted)["name"] == "c1"
    # (its last label gone, a custom resource has no labels at all: the ObjectMeta round trip omits them)
    assert keys.WARM_POOL_SANDBOX not in adopted["metadata"].get("labels", {})
    assert adopted["spec"]["podTemplate"]["metadata"]["labels"][keys.CLAIM_UID] == claim["metadata"]["uid"]
    # The sandbox controller propagated the claim-uid label to the existing pod.
    pod = env.store.get(keys.PODS, adopted["metadata"]["name"], "default")
    assert pod["metadata"]["labels"][keys.CLAIM_UID] == claim["metadata"]["uid"]
    # The pool replaced the adopted member.
    assert env.store.get(keys.WARMPOOLS, "pool", "default")["status"]["readyReplicas"] == 2


def test_warm_pool_scales_down_by_deleting_members(agent_sandbox_env, sandbox_template) -> None:
    env = agent_sandbox_env
    env.store.create(keys.WARMPOOLS, _pool(3), actor="test")
    _settle(env)
    pool = env.store.get(keys.WARMPOOLS, "pool", "default")
    pool["spec"]["replicas"] = 1
    env.store.update(keys.WARMPOOLS, pool, actor="test")
    _settle(env)
    members = [s for s in env.store.objects(keys.SANDBOXES, "default")
               if s["metadata"]["labels"].get(keys.WARM_POOL_SANDBOX) == name_hash("pool")]
    assert len(members) == 1
    assert env.store.audit.filter(verb="delete", resource="sandboxes", actor=keys.WARMPOOL_ACTOR)


def test_warm_pool_status_is_server_side_apply(agent_sandbox_env, sandbox_template) -> None:
    env = agent_sandbox_env
    env.store.create(keys.WARMPOOLS, _pool(1), actor="test")
    _settle(env)
    writes = env.store.audit.filter(resource="sandboxwarmpools", subresource="status", actor=keys.WARMPOOL_ACTOR)
    assert writes and all(e.verb == "patch" and "apply" in (e.patch_type or "") for e in writes)


def test_sandbox_replicas_zero_deletes_the_pod(agent_sandbox_env, sandbox_template) -> None:
    env = agent_sandbox_env
    env.store.create(keys.CLAIMS, _claim("c1"), actor="test")
    _settle(env)
    sandbox = env.store.get(keys.SANDBOXES, "c1", "default")
    sandbox["spec"]["replicas"] = 0
    env.store.update(keys.SANDBOXES, sandbox, actor="test")
    _settle(env)
    assert not env.store.objects(keys.PODS, "default")
    ready = env.store.get(keys.SANDBOXES, "c1", "default")["status"]["conditions"][0]
    assert ready["status"] == "True"  # 2026-04-02: "Pod does not exist, replicas is 0" counts as ready
