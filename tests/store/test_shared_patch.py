"""A Pod's strategic merge patch, merge patch and apply share the stored object's unchanged subtrees instead of
copying them (fakekube/verbs/shared_patch.py): answers, stored objects, warnings and errors are those of the
copying path, and no stored version ever changes afterwards."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from fakekube.clock import VirtualClock
from fakekube.kinds.pod import PodStrategy
from fakekube.store import Store

from .conftest import StoredVersions, outcome

SMP = "application/strategic-merge-patch+json"
POD: dict[str, Any] = {
    "metadata": {"name": "p", "labels": {"a": "1"}, "annotations": {"n": "x"}},
    "spec": {
        "containers": [
            {"name": "c0", "image": "img:1", "ports": [{"containerPort": 80}],
             "resources": {"limits": {"cpu": "0.5"}}, "env": [{"name": "E", "value": "1"}]},
            {"name": "c1", "image": "img:1", "readinessProbe": {"httpGet": {"port": 80}}},
        ],
        "initContainers": [{"name": "i0", "image": "init:1"}],
        "volumes": [{"name": "v"}, {"name": "cm", "configMap": {"name": "x"}}],
        "tolerations": [{"key": "k", "operator": "Exists"}],
    },
}
STATUS = {"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"},
                                                        {"type": "PodScheduled", "status": "True"}],
                     "containerStatuses": [{"name": "c0", "ready": True, "restartCount": 0, "image": "img:1",
                                            "imageID": "", "state": {"running": {}}}]}}

MAIN_PATCHES: list[Any] = [
    {"spec": {"containers": [{"name": "c0", "image": "img:2"}]}},
    {"spec": {"containers": [{"name": "c1", "image": "img:latest", "imagePullPolicy": None}]}},
    {"spec": {"initContainers": [{"name": "i0", "image": "init:2"}]}},
    {"spec": {"$setElementOrder/containers": [{"name": "c1"}, {"name": "c0"}],
              "containers": [{"name": "c0", "image": "img:3"}]}},
    {"spec": {"containers": [{"name": "c0", "$patch": "delete"}]}},  # a 422: containers may not be removed
    {"spec": {"containers": [{"name": "c9", "image": "new"}]}},  # a 422 too
    {"spec": {"hostNetwork": True}},  # a 422 whose message shows the defaulted host ports
    {"spec": {"activeDeadlineSeconds": 30}},
    {"spec": {"tolerations": [{"key": "k2", "operator": "Exists"}]}},
    {"spec": {"dnsPolicy": None, "containers": [{"name": "c0", "image": "img:4"}]}},
    {"spec": {"containers": [{"name": "c0", "image": "img:5", "bogus": 1}]}},  # unknown: dropped, or a Strict 422
    {"spec": {"containers": [{"name": "c0", "image": 5}]}},  # wrong type: a 422 on patch
    {"spec": {"$retainKeys": ["containers"], "containers": [{"name": "c0", "image": "img:6"}]}},
    {"spec": {"containers": [{"name": "c0", "$retainKeys": ["name", "image"], "image": "img:7"}]}},
    {"metadata": {"labels": {"b": "2"}}},
    {"metadata": {"labels": None, "annotations": {"n": None}}},
    {"metadata": {"$patch": "replace", "name": "p"}},
    {"status": {"phase": "Failed"}},  # the main resource keeps the stored status
    {"$patch": "replace", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c0", "image": "r"}]}},
    {},
    None,
]
STATUS_PATCHES: list[Any] = [
    {"status": {"conditions": [{"type": "Ready", "status": "False"}]}},
    {"status": {"$setElementOrder/conditions": [{"type": "PodScheduled"}, {"type": "Ready"}],
                "conditions": [{"type": "Ready", "status": "True", "reason": "R"}]}},
    {"status": {"containerStatuses": [{"name": "c0", "restartCount": 1, "state": {"running": None,
                                                                                  "waiting": {}}}]}},
    {"status": {"qosClass": None, "phase": "Succeeded"}},
    {"spec": {"containers": [{"name": "c0", "image": "ignored"}]}, "status": {"phase": "Unknown"}},
    {"metadata": {"labels": {"s": "1"}}, "status": {"podIP": "10.0.0.1"}},
    {"status": {"conditions": [{"type": "Ready", "status": 1}]}},
]


APPLY = "application/apply-patch+yaml"


def _config(spec: Any = None, status: Any = None, **meta: Any) -> dict[str, Any]:
    config: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", **meta}}
    if spec is not None:
        config["spec"] = spec
    if status is not None:
        config["status"] = status
    return config


# (configuration, field manager, force, subresource)
APPLIES: list[tuple[dict[str, Any], str, bool, str | None]] = [
    (_config(labels={"x": "1"}), "a", False, None),
    (_config(labels={"x": "2"}, annotations={"y": "1"}), "a", False, None),
    (_config(labels={"x": "3"}), "a", False, None),  # the annotation it no longer applies is pruned
    (_config(labels={"x": "4"}), "b", False, None),  # a conflict with "a"
    (_config(labels={"x": "4"}), "b", True, None),
    (_config({"containers": [{"name": "c0", "image": "applied:1"}]}), "a", True, None),
    (_config({"containers": [{"name": "c1", "image": "applied:2", "bogus": 1}]}), "c", True, None),
    (_config({"containers": [{"name": "c1", "image": 7}]}), "c", True, None),
    (_config({"activeDeadlineSeconds": 20, "tolerations": [{"key": "t", "operator": "Exists"}]}), "d", True,
     None),
    (_config(labels={"n": None}), "e", False, None),  # a null in the configuration
    (_config(status={"phase": "Failed"}), "a", False, None),  # ignored by the main resource
    (_config(status={"conditions": [{"type": "Ready", "status": "False"}]}), "k", True, "status"),
    (_config(status={"conditions": [{"type": "X", "status": "True", "lastProbeTime": None}]}), "k", True,
     "status"),
    (_config(labels={"x": "5"}), "a", True, None),  # over a status that now holds a null
    (_config(), "a", False, None),
]


def _apply(store: Store, config: dict[str, Any], manager: str, force: bool, subresource: str | None,
           validation: str = "Strict") -> Any:
    return outcome(lambda: store.patch("pods", "p", copy.deepcopy(config), "default", patch_type=APPLY,
                                        field_manager=manager, force=force, subresource=subresource,
                                        field_validation=validation))


def _store(managed_fields: bool) -> Store:
    store = Store(managed_fields=managed_fields, seed=3, clock=VirtualClock())
    store.create("pods", copy.deepcopy(POD), "default")
    store.patch("pods", "p", copy.deepcopy(STATUS), "default", patch_type=SMP, subresource="status")
    return store


def _smp(store: Store, patch: Any, subresource: str | None = None, validation: str = "Strict",
         patch_type: str = SMP) -> Any:
    return outcome(lambda: store.patch("pods", "p", copy.deepcopy(patch), "default", patch_type=patch_type,
                                        subresource=subresource, field_validation=validation))


def _run(managed_fields: bool, steps: list[tuple[Any, ...]], validation: str) -> str:
    store = _store(managed_fields)
    seen = []
    for patch, subresource, *patch_type in steps:
        seen.append(_smp(store, patch, subresource, validation, *patch_type))
        seen.append(store.get("pods", "p", "default"))
    seen.append([(e.verb, e.code, e.warnings, e.notes, e.rv_before, e.rv_after) for e in store.audit.entries])
    return json.dumps(seen)


# Merge patches share the same way (a list is replaced whole, a null deletes).
MERGE_PATCHES: list[tuple[Any, str | None]] = [
    ({"spec": {"activeDeadlineSeconds": 40}}, None),
    ({"spec": {"containers": [{"name": "c0", "image": "only"}]}}, None),  # a 422: the list is replaced
    ({"metadata": {"labels": {"a": None, "m": "1"}, "annotations": None}}, None),
    ({"spec": {"hostNetwork": True, "dnsPolicy": None}}, None),
    ({"spec": {"bogus": {"x": None}}}, None),
    ({"metadata": {"labels": {"m": 2}}}, None),
    ({"status": {"phase": "Failed", "conditions": None}}, "status"),
    ({"status": {"podIP": "10.1.1.1", "containerStatuses": [{"name": "c0", "ready": False}]}}, "status"),
    ({"spec": {"nodeName": "ignored"}, "metadata": {"labels": {"s": "2"}}}, "status"),
    ([], None),
]
MERGE = "application/merge-patch+json"

CASES = [[(p, None)] for p in MAIN_PATCHES] + [[(p, "status")] for p in STATUS_PATCHES] + [
    [(p, sub, MERGE)] for p, sub in MERGE_PATCHES] + [
    [step for (p, sub), m in zip(MERGE_PATCHES, MAIN_PATCHES, strict=False) for step in ((p, sub, MERGE), (m, None))],
    [(p, None) for p in MAIN_PATCHES] + [(p, "status") for p in STATUS_PATCHES],
    [pair for m, s in zip(MAIN_PATCHES, STATUS_PATCHES * 3, strict=False) for pair in ((s, "status"), (m, None))],
]


@pytest.mark.parametrize("validation", ["Strict", "Warn"])
@pytest.mark.parametrize("managed_fields", [True, False])
@pytest.mark.parametrize("steps", CASES)
def test_a_shared_patch_answers_as_the_copying_path_does(monkeypatch: pytest.MonkeyPatch, managed_fields: bool,
                                                         steps: list[tuple[Any, str | None]],
                                                         validation: str) -> None:
    shared = _run(managed_fields, steps, validation)
    monkeypatch.setattr(PodStrategy, "patch_shares_stored", False)
    assert shared == _run(managed_fields, steps, validation)


def _run_applies(managed_fields: bool, steps: list[Any], validation: str) -> str:
    store = _store(managed_fields)
    seen = []
    for step in steps:
        seen.append(_apply(store, *step, validation=validation))
        seen.append(store.get("pods", "p", "default"))
    seen.append([(e.verb, e.code, e.warnings, e.notes, e.rv_before, e.rv_after) for e in store.audit.entries])
    return json.dumps(seen)


@pytest.mark.parametrize("validation", ["Strict", "Warn"])
@pytest.mark.parametrize("managed_fields", [True, False])
@pytest.mark.parametrize("steps", [[step] for step in APPLIES] + [APPLIES, APPLIES[::-1]])
def test_a_shared_apply_answers_as_the_copying_path_does(monkeypatch: pytest.MonkeyPatch, managed_fields: bool,
                                                         steps: list[Any], validation: str) -> None:
    shared = _run_applies(managed_fields, steps, validation)
    monkeypatch.setattr(PodStrategy, "patch_shares_stored", False)
    assert shared == _run_applies(managed_fields, steps, validation)


def test_an_apply_shares_nothing_with_the_configuration() -> None:
    store = _store(True)
    config = _config(labels={"x": "1"}, annotations={"y": "1"})
    store.patch("pods", "p", config, "default", patch_type=APPLY, field_manager="a", force=True)
    status = _config(status={"conditions": [{"type": "Mine", "status": "True"}], "hostIPs": [{"ip": "1.2.3.4"}]})
    store.patch("pods", "p", status, "default", patch_type=APPLY, field_manager="k", subresource="status")
    config["metadata"]["labels"]["x"] = "changed"
    config["metadata"]["annotations"]["y"] = "changed"
    status["status"]["conditions"][0]["status"] = "changed"
    status["status"]["hostIPs"][0]["ip"] = "changed"
    stored = store.get("pods", "p", "default")
    assert stored["metadata"]["labels"]["x"] == "1" and stored["metadata"]["annotations"]["y"] == "1"
    # (Go writes a condition's zero lastProbeTime and lastTransitionTime as null)
    assert {"type": "Mine", "status": "True", "lastProbeTime": None, "lastTransitionTime": None} in stored["status"]["conditions"]
    assert stored["status"]["hostIPs"] == [{"ip": "1.2.3.4"}]


@pytest.mark.parametrize("managed_fields", [True, False])
def test_no_stored_version_changes_after_it_is_written(managed_fields: bool) -> None:
    """Every version the store held, checked against its JSON from when it was written, after every later write
    of every verb (some of which now starts from objects that share subtrees with earlier versions)."""
    store = _store(managed_fields)
    versions = StoredVersions(store, "pods", "default", "p")
    remember = versions.remember

    def put() -> None:
        body = store.get("pods", "p", "default")
        body["metadata"].setdefault("labels", {})["put"] = str(len(versions))
        body["spec"]["containers"][1]["image"] = f"img:{len(versions)}"
        store.update("pods", body, "default")

    writes = [
        lambda: store.patch("pods", "p", {"metadata": {"labels": {"m": "1"}}}, "default"),
        lambda: store.patch("pods", "p", [{"op": "replace", "path": "/spec/containers/0/image", "value": "j"}],
                            "default", patch_type="application/json-patch+json"),
        put,
        lambda: store.patch("pods", "p", {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {
            "applied": "1"}}, "spec": {"containers": [{"name": "c0", "image": "applied"}]}}, "default",
            patch_type="application/apply-patch+yaml", field_manager="applier", force=True),
        lambda: store.update("pods", {**store.get("pods", "p", "default"), "status": {"phase": "Running"}},
                             "default", subresource="status"),
    ]
    remember()
    for round_ in range(3):
        for i, patch in enumerate(MAIN_PATCHES):
            _smp(store, patch)
            remember()
            _smp(store, STATUS_PATCHES[(i + round_) % len(STATUS_PATCHES)], "status")
            remember()
            outcome(writes[(i + round_) % len(writes)])
            remember()
            _apply(store, *APPLIES[(i + round_) % len(APPLIES)])
            remember()
            merge, subresource = MERGE_PATCHES[(i + round_) % len(MERGE_PATCHES)]
            _smp(store, merge, subresource, patch_type=MERGE)
            remember()
    store.patch("pods", "p", {"metadata": {"finalizers": ["example.com/f"]}}, "default", patch_type=SMP)
    remember()
    store.delete("pods", "p", "default")
    remember()
    store.patch("pods", "p", {"metadata": {"finalizers": None}}, "default", patch_type=SMP)
    versions.check()
    assert len(versions) > 40
