"""``default_pod(pod, old)``: an update's pod that shares parts of the stored (defaulted) pod by identity gets
exactly what defaulting a private copy of it gives, and nothing it shares is written to."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from fakekube.kinds.podspec import default_pod


def _container(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "image": "img:1", "ports": [{"containerPort": 80}],
            "resources": {"limits": {"cpu": "0.5", "memory": "1Gi"}},
            "livenessProbe": {"httpGet": {"port": 80}}, **extra}


def _stored(host_network: bool = False) -> dict[str, Any]:
    pod = {"metadata": {"name": "p"}, "spec": {
        "containers": [_container("a"), _container("b", env=[{"name": "E", "valueFrom": {"fieldRef": {
            "fieldPath": "metadata.name"}}}])],
        "initContainers": [_container("i")],
        "ephemeralContainers": [{"name": "e", "image": "dbg", "resources": {"limits": {"cpu": "1"}}}],
        "volumes": [{"name": "v"}, {"name": "cm", "configMap": {"name": "x"}},
                    {"name": "t", "projected": {"sources": [{"serviceAccountToken": {"path": "t"}}]}}],
        "overhead": {"cpu": "0.25"},
        "serviceAccountName": "sa",
    }}
    if host_network:
        pod["spec"]["hostNetwork"] = True
    default_pod(pod)
    return pod


def _new_spec(old: dict[str, Any]) -> dict[str, Any]:
    """What a copy-on-write patch makes: a new spec dict whose values are the stored ones."""
    return {**old["spec"]}


def _changed_container(old: dict[str, Any]) -> dict[str, Any]:
    new = _new_spec(old)
    new["containers"] = [{**old["spec"]["containers"][0], "image": "img:latest", "imagePullPolicy": ""},
                         old["spec"]["containers"][1]]
    return new


def _added_volume(old: dict[str, Any]) -> dict[str, Any]:
    new = _new_spec(old)
    new["volumes"] = [*old["spec"]["volumes"], {"name": "s", "secret": {"secretName": "s"}}, {"name": "bare"}]
    return new


def _fresh_init_container(old: dict[str, Any]) -> dict[str, Any]:
    new = _new_spec(old)
    new["initContainers"] = [_container("i2")]
    return new


def _dropped_scalars(old: dict[str, Any]) -> dict[str, Any]:
    new = _new_spec(old)
    for key in ("dnsPolicy", "restartPolicy", "schedulerName", "securityContext", "enableServiceLinks"):
        del new[key]
    new["serviceAccount"] = new.pop("serviceAccountName")
    return new


def _fresh_overhead(old: dict[str, Any]) -> dict[str, Any]:
    new = _new_spec(old)
    new["overhead"] = {"cpu": "0.5", "memory": "1024Mi"}
    return new


def _host_network_on(old: dict[str, Any]) -> dict[str, Any]:
    new = _changed_container(old)
    new["hostNetwork"] = True  # every container's ports get host ports, the shared ones included
    return new


def _host_network_kept(old: dict[str, Any]) -> dict[str, Any]:
    new = _changed_container(old)
    new["containers"][0]["ports"] = [{"containerPort": 81}]
    return new


def _replaced_lists(old: dict[str, Any]) -> dict[str, Any]:
    new = _new_spec(old)
    new["containers"] = [_container("z")]
    new["ephemeralContainers"] = [{"name": "e2", "image": "dbg:latest"}]
    return new


CHANGES: list[tuple[str, Callable[[dict[str, Any]], dict[str, Any]], bool]] = [
    ("changed container", _changed_container, False),
    ("added volumes", _added_volume, False),
    ("fresh init container", _fresh_init_container, False),
    ("dropped spec defaults", _dropped_scalars, False),
    ("fresh overhead", _fresh_overhead, False),
    ("hostNetwork turned on", _host_network_on, False),
    ("hostNetwork kept on", _host_network_kept, True),
    ("replaced lists", _replaced_lists, False),
]


@pytest.mark.parametrize(("change", "host_network"), [(c, h) for _, c, h in CHANGES],
                         ids=[name for name, _, _ in CHANGES])
def test_sharing_defaults_as_a_private_copy_does(change: Callable[[dict[str, Any]], dict[str, Any]],
                                                  host_network: bool) -> None:
    old = _stored(host_network)
    before = json.dumps(old)
    new = {**old, "spec": change(old)}
    alone = copy.deepcopy(new)
    default_pod(alone)
    default_pod(new, old)
    assert json.dumps(new) == json.dumps(alone)  # same values, same key order
    assert json.dumps(old) == before  # nothing shared was written to


def test_turning_host_network_on_reaches_the_shared_containers() -> None:
    old = _stored()
    new = {**old, "spec": _host_network_on(old)}
    default_pod(new, old)
    shared = new["spec"]["containers"][1]
    assert shared["ports"][0]["hostPort"] == 80
    assert shared is not old["spec"]["containers"][1]  # defaulted on a copy
    assert "hostPort" not in old["spec"]["containers"][1]["ports"][0]


def test_the_stored_spec_itself_is_left_alone() -> None:
    old = _stored()
    before = json.dumps(old)
    new = {**old}
    default_pod(new, old)
    assert new["spec"] is old["spec"] and json.dumps(old) == before
