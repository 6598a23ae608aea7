"""Name hashes, types and CRD manifests."""

from __future__ import annotations

import json

from fakekube.agentsandbox import crd_paths, keys
from fakekube.agentsandbox.hashing import fnv1a_32, name_hash, numeric_hash
from fakekube.agentsandbox.objects import semantic_equal, set_status_condition
from fakekube.agentsandbox.tracing import Tracer
from fakekube.agentsandbox.types import SandboxClaim, SandboxWarmPool
from fakekube.store import Store


def test_name_hash_is_fnv1a_32_as_8_hex_digits() -> None:
    # Reference values of FNV-1a 32-bit (offset basis 0x811c9dc5, prime 0x01000193).
    assert numeric_hash("") == 0x811C9DC5
    assert name_hash("a") == "e40c292c"
    assert name_hash("foobar") == "bf9cf968"
    assert len(name_hash("x" * 300)) == 8


def test_fnv1a_goes_on_from_a_prefix_sum() -> None:
    for prefix, suffix in [("", ""), ("", "/t"), ("a", ""), ("3f2c-uid", "/s"), ("é", "ü/t"), ("x" * 70, "yz")]:
        assert fnv1a_32(suffix.encode(), numeric_hash(prefix)) == numeric_hash(prefix + suffix)
    assert fnv1a_32(b"oobar", fnv1a_32(b"f")) == 0xBF9CF968


def test_trace_context_is_the_sums_of_the_uid_and_its_suffixes() -> None:
    # The plain definition: each part hashed whole (the tracer goes on from the uid's sum instead).
    uid = "0b8e9f4e-5d7c-4c1e-9a57-2f0c6d1e8a33"
    trace = f"{numeric_hash(uid):08x}{numeric_hash(uid + '/t'):08x}" * 2
    span = f"{numeric_hash(uid + '/s'):08x}" * 2
    assert json.loads(Tracer().trace_context(uid)) == {"traceparent": f"00-{trace}-{span}-01"}
    assert Tracer().trace_context(uid, "kept") == "kept" and Tracer(enabled=False).trace_context(uid) == ""


def test_crds_register_kinds_with_subresources() -> None:
    store = Store()
    types = {rt.kind: rt for path in crd_paths() for rt in store.load_crds(path)}
    assert set(types) == {"Sandbox", "SandboxClaim", "SandboxTemplate", "SandboxWarmPool"}
    assert types["Sandbox"].has_subresource("status") and types["Sandbox"].has_subresource("scale")
    assert types["SandboxWarmPool"].has_subresource("scale")
    assert types["SandboxClaim"].has_subresource("status")


def test_models_round_trip_through_the_store() -> None:
    store = Store()
    for path in crd_paths():
        store.load_crds(path)
    claim = SandboxClaim.model_validate(
        {"metadata": {"name": "c", "namespace": "default"}, "spec": {"sandboxTemplateRef": {"name": "t"}}})
    created = store.create(keys.CLAIMS, claim.to_obj())
    assert SandboxClaim.model_validate(created).spec.sandbox_template_ref.name == "t"
    pool = SandboxWarmPool.model_validate(
        {"metadata": {"name": "p", "namespace": "default"}, "spec": {"replicas": 3, "sandboxTemplateRef": {"name": "t"}}})
    assert store.create(keys.WARMPOOLS, pool.to_obj())["spec"]["replicas"] == 3


def test_set_status_condition_moves_transition_time_only_on_flip() -> None:
    status: dict = {}
    asked: list[str] = []

    def clock(stamp: str):  # the clock of one call, noting when it is read
        return lambda: asked.append(stamp) or stamp

    set_status_condition(status, {"type": "Ready", "status": "False", "reason": "A", "message": ""}, clock("t1"))
    set_status_condition(status, {"type": "Ready", "status": "False", "reason": "B", "message": "m"}, clock("t2"))
    assert status["conditions"][0]["lastTransitionTime"] == "t1"
    set_status_condition(status, {"type": "Ready", "status": "True", "reason": "C", "message": ""}, clock("t3"))
    assert status["conditions"][0]["lastTransitionTime"] == "t3"
    assert asked == ["t1", "t3"]  # read only when a time is stamped
    given = {"type": "Other", "status": "True", "reason": "D", "lastTransitionTime": "t0"}
    set_status_condition(status, given, clock("t4"))
    assert status["conditions"][1]["lastTransitionTime"] == "t0" and asked == ["t1", "t3"]


def test_semantic_equal_ignores_empty_fields() -> None:
    assert semantic_equal({}, {"conditions": [], "sandbox": {"name": ""}})
    assert not semantic_equal({}, {"sandbox": {"name": "w"}})


def test_a_recipe_claim_is_the_typed_models_byte_for_byte_and_its_own() -> None:
    import orjson

    from fakekube.agentsandbox.scenarios import SCENARIOS, claim_name, claim_object
    from fakekube.agentsandbox.types import ObjectMeta, SandboxClaimSpec, TemplateRef

    params = SCENARIOS["seed-load"].params
    for index in (0, 1, 299, 1499):
        typed = SandboxClaim(metadata=ObjectMeta(name=claim_name(index), namespace=params.namespace),
                             spec=SandboxClaimSpec(sandboxTemplateRef=TemplateRef(name=params.template))).to_obj()
        assert orjson.dumps(claim_object(params, index)) == orjson.dumps(typed)
    first, second = claim_object(params, 0), claim_object(params, 1)
    first["metadata"]["labels"] = {"changed": "by the caller"}
    first["spec"]["sandboxTemplateRef"]["name"] = "other"
    assert claim_object(params, 0)["spec"]["sandboxTemplateRef"]["name"] == params.template
    assert "labels" not in second["metadata"] and "labels" not in claim_object(params, 2)["metadata"]
