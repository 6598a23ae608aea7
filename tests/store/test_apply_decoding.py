"""Server-side apply over a stored built-in object decodes its result only when the configuration did not
decode cleanly (verbs/write.py ``_apply``): these tests pin both sides of that shortcut."""

from __future__ import annotations

import json
from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store

APPLY = "application/apply-patch+yaml"


def _config(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, **fields}


@pytest.mark.parametrize(("fields", "detail"), [
    ({"data": {"k": 1}}, ".data.k: expected string, got &value.valueUnstructured{Value:1}"),
    ({"metadata": {"name": "c", "labels": {"a": 2}}},
     ".metadata.labels.a: expected string, got &value.valueUnstructured{Value:2}"),
    ({"immutable": "yes"}, ".immutable: expected boolean, got &{yes}"),
    ({"data": ["x"]}, ".data: expected map, got &{[x]}"),
])
def test_a_configuration_of_the_wrong_type_fails_the_typed_conversion(kube: Store, fields: dict[str, Any],
                                                                      detail: str) -> None:
    """Observed on kube-apiserver v1.37.2: the applied configuration is converted to its smd type first, and a
    value of the wrong type is a 500 in structured-merge-diff's words (typed/validate.go), not dropped."""
    kube.patch("configmaps", "c", _config(metadata={"name": "c", "labels": {"a": "1"}}, data={"k": "v"}),
               "default", patch_type=APPLY, field_manager="m")
    stored = kube.get("configmaps", "c", "default")
    with pytest.raises(errors.InternalError) as caught:
        kube.patch("configmaps", "c", _config(**fields), "default", patch_type=APPLY, field_manager="m")
    assert caught.value.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "code": 500,
        "message": f"failed to create typed patch object (/c; /v1, Kind=ConfigMap): {detail}"}
    assert kube.get("configmaps", "c", "default") == stored


def test_the_result_of_a_clean_configuration_has_nothing_left_to_decode(kube: Store) -> None:
    """What the shortcut assumes: merged field by field and item by item, the result of configurations that
    decode cleanly is a document the typed decoder finds nothing in."""
    def deployment(containers: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
        return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "labels": {"app": "a"}},
                "spec": {"selector": {"matchLabels": {"app": "a"}}, **spec,
                         "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": containers}}}}

    kube.patch("deployments", "d", deployment([{"name": "a", "image": "a:1", "ports": [{"containerPort": 80}]}]),
               "default", patch_type=APPLY, field_manager="first")
    second = deployment([{"name": "b", "image": "b:1", "env": [{"name": "E", "value": "1"}]},
                         {"name": "a", "image": "a:2"}], replicas=3, minReadySeconds=5)
    second["metadata"]["annotations"] = {"n": "1"}
    kube.patch("deployments", "d", second, "default", patch_type=APPLY, field_manager="second", force=True)
    stored = kube.get("deployments", "d", "default")
    decoder = kube.resolve("deployments").model.decoder
    assert decoder.in_place(stored, prune=False).locations == []
    assert sorted(c["image"] for c in stored["spec"]["template"]["spec"]["containers"]) == ["a:2", "b:1"]
    assert stored["spec"]["replicas"] == 3 and stored["metadata"]["annotations"] == {"n": "1"}
    assert [m["manager"] for m in stored["metadata"]["managedFields"]] == ["first", "second"]


def test_an_apply_neither_changes_nor_keeps_the_callers_configuration(kube: Store) -> None:
    config = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "1"}},
              "spec": {"containers": [{"name": "c", "image": "i:1"}]}, "status": {"phase": "Running"}}
    sent = json.loads(json.dumps(config))
    for _ in range(2):  # a create, then an update
        answer = kube.patch("pods", "p", config, "default", patch_type=APPLY, field_manager="m")
        assert config == sent  # status (ignored on the main resource) is still in the caller's dict
    config["metadata"]["labels"]["a"] = "changed"
    config["spec"]["containers"][0]["image"] = "changed"
    stored = kube.get("pods", "p", "default")
    assert stored["metadata"]["labels"] == {"a": "1"} and stored["spec"]["containers"][0]["image"] == "i:1"
    assert answer["metadata"]["labels"] == {"a": "1"}
