"""A create decodes and defaults a repeated spec once (fakekube/verbs/defaulted.py): every outcome — answer,
stored object, warnings, error — is the one the full decode-then-default path gives, the first time a spec is
seen and every time after, and nothing is shared between the remembered values, the store and its callers."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from fakekube import errors
from fakekube.clock import VirtualClock
from fakekube.store import Store
from fakekube.verbs import create, defaulted


def _pod(name: str, **spec: Any) -> dict[str, Any]:
    base = {"containers": [{"name": "c", "image": "registry.example.com/app:1", "args": ["--a", "--b"],
                            "ports": [{"containerPort": 80}], "resources": {"limits": {"cpu": "1"}}}]}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"app": "x"}},
            "spec": {**base, **spec}}


def _with_unknown(name: str) -> dict[str, Any]:
    body = _pod(name)
    body["spec"]["containers"][0]["imagee"] = "typo"
    return body


def _with_tuple(name: str) -> dict[str, Any]:
    body = _pod(name)
    body["spec"]["containers"][0]["args"] = ("--a", "--b")  # the same JSON text as the list, not a JSON array
    return body


def _bad_label(name: str) -> dict[str, Any]:
    body = _pod(name)
    body["metadata"]["labels"] = {"app": 5}
    return body


def _spec_first(name: str) -> dict[str, Any]:
    body = _pod(name)
    return {"spec": body["spec"], "kind": "Pod", "metadata": body["metadata"], "status": {"phase": "Running"}}


def _wrong_type(name: str) -> dict[str, Any]:
    return _pod(name, containers="c")


def _bad_namespace(name: str) -> dict[str, Any]:
    body = _pod(name)
    body["metadata"]["namespace"] = "other"
    return body


BODIES = [_pod, _with_unknown, _with_tuple, _bad_label, _spec_first, _wrong_type, _bad_namespace]


def _outcomes(remember: bool, monkeypatch: pytest.MonkeyPatch, validation: str | None) -> list[Any]:
    """Each body created three times (new names), after the plain pod has been seen, with its outcome."""
    defaulted._REMEMBERED.clear()
    with monkeypatch.context() as patched:
        if not remember:
            patched.setattr(create, "decoded_defaulted", lambda rt, body: None)
        store = Store(seed=3, clock=VirtualClock())
        store.create("pods", _pod("seen"), "default")
        out = []
        for make in BODIES:
            for i in range(3):
                try:
                    answer = store.create("pods", make(f"{make.__name__.strip('_').replace('_', '-')}-{i}"),
                                          "default", field_validation=validation)
                    entry = store.last_request()
                    assert entry is not None
                    out.append(["ok", answer, list(entry.warnings)])
                except errors.ApiError as exc:
                    out.append(["error", exc.status])
        out.append(store.objects("pods"))
    return out


@pytest.mark.parametrize("validation", [None, "Strict", "Ignore"])
def test_remembered_specs_give_the_full_paths_outcomes(monkeypatch: pytest.MonkeyPatch,
                                                       validation: str | None) -> None:
    remembered = _outcomes(True, monkeypatch, validation)
    assert remembered == _outcomes(False, monkeypatch, validation)
    # The cases that matter happened: warnings for the typo, 400s for the tuple and the wrong type.
    kinds = [o[0] for o in remembered[:-1]]
    assert kinds.count("error") >= 9


def test_key_order_of_a_body_is_kept(kube: Store) -> None:
    kube.create("pods", _spec_first("first"), "default")
    answer = kube.create("pods", _spec_first("second"), "default")
    assert list(answer) == ["apiVersion", "kind", "metadata", "spec", "status"]


def test_nothing_is_shared_with_callers_or_between_objects(kube: Store) -> None:
    body = _pod("a")
    first = kube.create("pods", body, "default")
    body["spec"]["containers"][0]["image"] = "changed"  # the caller's body is the caller's
    first["spec"]["containers"][0]["args"].append("--mutated")  # and so is the answer
    second = kube.create("pods", _pod("b"), "default")
    stored_a = kube.stored_object("/pods", ("default", "a"))
    stored_b = kube.stored_object("/pods", ("default", "b"))
    assert stored_a is not None and stored_b is not None
    assert stored_a["spec"]["containers"][0]["image"] == "registry.example.com/app:1"
    assert second["spec"]["containers"][0]["args"] == ["--a", "--b"]
    assert stored_a["spec"]["containers"][0] is not stored_b["spec"]["containers"][0]
    assert stored_b["spec"]["containers"][0] is not second["spec"]["containers"][0]
    # Defaulting ran on the remembered spec as on the first one (requests from limits, pull policy, protocol).
    container = second["spec"]["containers"][0]
    assert container["resources"]["requests"] == {"cpu": "1"}
    assert container["imagePullPolicy"] == "IfNotPresent"
    assert container["ports"] == [{"containerPort": 80, "protocol": "TCP"}]


def test_a_spec_changed_in_place_after_it_was_remembered_is_decoded_again(kube: Store) -> None:
    body = _pod("a")
    kube.create("pods", copy.deepcopy(body), "default")
    body["metadata"]["name"] = "b"
    body["spec"]["containers"][0]["ports"][0]["containerPort"] = "80"  # a string where an int32 goes
    with pytest.raises(errors.BadRequest, match="cannot unmarshal string"):
        kube.create("pods", body, "default")


def test_a_spec_is_remembered_the_second_time_it_is_seen_and_served_from_then_on(kube: Store) -> None:
    defaulted._REMEMBERED.clear()
    rt = kube.resolve("pods")
    assert defaulted.decoded_defaulted(rt, _pod("a")) is None  # first sighting: noted, the full path decodes
    first = defaulted.decoded_defaulted(rt, _pod("b"))  # second: decoded, defaulted and remembered
    third = defaulted.decoded_defaulted(rt, _pod("c"))  # third: served from what was remembered
    assert first is not None and third == first
    assert third["spec"] is not first["spec"]
    assert third["spec"]["containers"][0] is not first["spec"]["containers"][0]
    # A spec never seen twice never costs more than the note of its text.
    assert defaulted.decoded_defaulted(rt, _pod("d") | {"spec": {"containers": [{"name": "x", "image": "y"}]}}) \
        is None
