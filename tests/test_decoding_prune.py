"""A custom resource's pruning, and the question whether it would prune, asked without a copy."""

from __future__ import annotations

import copy
from types import SimpleNamespace

import pytest

from fakekube import decoding
from fakekube.apimodel import DEFAULT_KUBERNETES_VERSION, kubernetes_version
from fakekube.schema import StructuralSchema

SCHEMA = StructuralSchema({"type": "object", "properties": {
    "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
}})
VERSION = kubernetes_version(DEFAULT_KUBERNETES_VERSION)


@pytest.mark.parametrize("obj", [
    {"metadata": {"name": "a"}, "spec": {"replicas": 1}},
    {"metadata": {"name": "a", "colour": "red"}, "spec": {"replicas": 1}},  # unknown ObjectMeta field
    {"metadata": {"name": "a"}, "spec": {"replicas": 1, "extra": True}},  # unknown spec field
    {"metadata": {"name": "a"}, "status": {"anything": {"goes": 1}}},  # preserved
    {"metadata": {"name": "a"}, "other": 1},  # unknown top-level field
    {"spec": {}},
])
@pytest.mark.parametrize("version", [VERSION, None])
def test_would_prune_answers_what_prune_does_and_changes_nothing(obj: dict, version: object) -> None:
    rt = SimpleNamespace(schema=SCHEMA)
    before = copy.deepcopy(obj)
    would = decoding.custom_would_prune(version, rt, obj)  # type: ignore[arg-type]
    assert obj == before
    dropped = decoding.prune_custom(version, rt, copy.deepcopy(obj))  # type: ignore[arg-type]
    assert would == bool(dropped)
    if version is None:  # no ObjectMeta definitions to check against: metadata is left as it is
        assert not any(path.startswith("metadata.") for path in dropped)
