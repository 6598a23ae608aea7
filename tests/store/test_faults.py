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
