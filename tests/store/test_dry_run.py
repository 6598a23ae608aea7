from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store

from .conftest import widget


def test_dry_run_writes_nothing_but_validates(crd_kube: Store) -> None:
    rv = crd_kube.resource_version
    preview = crd_kube.create("widgets", widget(), "default", dry_run=True)
    assert preview["metadata"]["name"] == "w1" and "resourceVersion" not in preview["metadata"]
    assert crd_kube.count("widgets") == 0 and crd_kube.resource_version == rv
    with pytest.raises(errors.Invalid):
        crd_kube.create("widgets", widget(color="pink"), "default", dry_run=True)

    w = crd_kube.create("widgets", widget(), "default")
    rv = crd_kube.resource_version
    crd_kube.update("widgets", {**w, "spec": {**w["spec"], "replicas": 7}}, "default", dry_run=True)
    crd_kube.patch("widgets", "w1", {"spec": {"replicas": 8}}, "default", dry_run=True)
    crd_kube.delete("widgets", "w1", "default", dry_run=True)
    assert crd_kube.get("widgets", "w1", "default") == w
    assert crd_kube.resource_version == rv
    assert all(e.dry_run for e in crd_kube.audit if e.verb in ("update", "patch", "delete") and e.resource == "widgets")


def test_dry_run_conflicts_are_still_reported(crd_kube: Store) -> None:
    w = crd_kube.create("widgets", widget(), "default")
    crd_kube.patch("widgets", "w1", {"spec": {"replicas": 2}}, "default")
    with pytest.raises(errors.Conflict):
        crd_kube.update("widgets", w, "default", dry_run=True)
