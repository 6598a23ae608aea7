from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store


def test_injected_conflict_fires_a_number_of_times(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    kube.faults.fail(409, verb="patch", resource="configmaps", name="c", times=2)
    for _ in range(2):
        with pytest.raises(errors.Conflict) as info:
            kube.patch("configmaps", "c", {"data": {"a": "b"}}, "default")
        assert info.value.status["message"].startswith('Operation cannot be fulfilled on configmaps "c"')
    assert kube.patch("configmaps", "c", {"data": {"a": "b"}}, "default")["data"] == {"a": "b"}
    assert [e.code for e in kube.audit.by_resource("configmaps", "c")][-3:] == [409, 409, 200]


@pytest.mark.parametrize("code", [429, 500, 503])
def test_injected_errors_carry_a_status(kube: Store, code: int) -> None:
    kube.faults.fail(code, verb="get", actor="flaky-*")
    with pytest.raises(errors.ApiError) as info:
        kube.get("namespaces", "default", actor="flaky-controller")
    assert info.value.code == code and info.value.status["code"] == code
    kube.get("namespaces", "default", actor="steady")  # does not match the actor


def test_probability_is_seeded(kube_factory) -> None:
    def outcomes() -> list[int]:
        store = kube_factory(seed=11)
        store.faults.fail(503, verb="get", times=None, probability=0.5)
        codes = []
        for _ in range(30):
            try:
                store.get("namespaces", "default")
                codes.append(200)
            except errors.ApiError as exc:
                codes.append(exc.code)
        return codes

    first = outcomes()
    assert first == outcomes() and 200 in first and 503 in first


def test_delays_go_through_the_delay_hook(kube: Store) -> None:
    slept: list[float] = []
    kube.delay_hook = slept.append
    kube.faults.delay(0.25, verb="list")
    kube.list("configmaps")
    kube.get("namespaces", "default")
    assert slept == [0.25]


def test_a_race_writes_just_before_the_request_so_a_stale_update_conflicts(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "c"}, "data": {"n": "1"}}, "default")
    seen = kube.get("configmaps", "c", "default")  # the client's read, before the other writer's write
    kube.faults.race(lambda store: store.patch("configmaps", "c", {"data": {"other": "x"}}, "default",
                                               actor="other-controller"),
                     verb="update", resource="configmaps", name="c")
    with pytest.raises(errors.Conflict, match="the object has been modified"):
        kube.update("configmaps", {**seen, "data": {"n": "2"}}, "default", actor="my-controller")
    log = [(e.actor, e.verb, e.code) for e in kube.audit.by_resource("configmaps", "c")][-2:]
    assert log == [("other-controller", "patch", 200), ("my-controller", "update", 409)]
    # times=1: the retry, from a fresh read, goes through
    fresh = kube.get("configmaps", "c", "default")
    assert kube.update("configmaps", {**fresh, "data": {**fresh["data"], "n": "2"}}, "default")["data"] == {
        "n": "2", "other": "x"}


def test_a_patch_after_a_race_applies_over_the_newer_object(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "c"}, "data": {"n": "1"}}, "default")
    kube.faults.race(lambda store: store.patch("configmaps", "c", {"data": {"n": "9"}}, "default", actor="other"),
                     verb="patch", resource="configmaps")  # the rule does not match its own patch
    patched = kube.patch("configmaps", "c", {"data": {"mine": "y"}}, "default", actor="me")
    assert patched["data"] == {"n": "9", "mine": "y"}
    assert [e.actor for e in kube.audit.by_resource("configmaps", "c") if e.verb == "patch"] == ["other", "me"]


def test_scripted_answers_stay_until_removed(kube: Store) -> None:
    kube.create("configmaps", {"metadata": {"name": "c"}, "data": {"n": "1"}}, "default")
    canned = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"},
              "data": {"n": "canned"}}
    rule = kube.faults.respond(canned, verb="get", resource="configmaps")
    assert [kube.get("configmaps", "c", "default")["data"]["n"] for _ in range(3)] == ["canned"] * 3
    assert kube.list("configmaps", "default")["items"][0]["data"] == {"n": "1"}  # other verbs are served
    rule.remove()
    assert kube.get("configmaps", "c", "default")["data"] == {"n": "1"}
    assert "injected answer" in kube.audit.by_resource("configmaps", "c")[-2].notes


def test_a_status_answer_is_raised_and_a_function_decides_per_request(kube: Store) -> None:
    gone = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": 410, "reason": "Gone",
            "message": "too old resource version"}

    def answer(request):
        if request.body and request.body.get("metadata", {}).get("name", "").startswith("blocked-"):
            return errors.Forbidden("names starting with blocked- are refused by this test")
        return None

    with kube.faults.respond(answer, verb="create", resource="configmaps"):
        kube.create("configmaps", {"metadata": {"name": "fine"}}, "default")
        with pytest.raises(errors.Forbidden, match="refused by this test"):
            kube.create("configmaps", {"metadata": {"name": "blocked-1"}}, "default")
    kube.create("configmaps", {"metadata": {"name": "blocked-2"}}, "default")  # the with block removed it
    with kube.faults.respond(gone, verb="list", times=1), pytest.raises(errors.ApiError) as info:
        kube.list("configmaps", "default")
    assert info.value.status["code"] == 410 and info.value.reason == "Gone"
    assert not kube.faults.rules


def test_a_watch_is_not_answered_with_an_object(kube: Store) -> None:
    kube.faults.respond({"kind": "ConfigMapList", "items": []}, resource="configmaps")
    watch = kube.watch("configmaps", "default")
    kube.faults.clear()
    kube.create("configmaps", {"metadata": {"name": "w"}}, "default")
    assert next(iter(watch.events(timeout=1.0))).object["metadata"]["name"] == "w"
