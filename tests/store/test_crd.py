from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store

from .conftest import WIDGET_CRD, widget


def test_creating_the_crd_object_serves_its_kind(kube: Store) -> None:
    with pytest.raises(errors.NotFound):
        kube.resolve("widgets")
    crd = kube.create("customresourcedefinitions", WIDGET_CRD)
    # Observed on kube-apiserver v1.37.2: the create's answer has only what the registry writes; the naming and
    # establishing controllers fill the status afterwards (apiextensions-apiserver pkg/controller/status,
    # pkg/controller/establish).
    assert crd["status"] == {"acceptedNames": {"plural": "", "kind": ""}, "conditions": None,
                             "storedVersions": ["v1"]}
    assert crd["spec"]["conversion"] == {"strategy": "None"} and crd["spec"]["names"]["listKind"] == "WidgetList"
    status = kube.get("customresourcedefinitions", "widgets.example.com")["status"]
    assert [(c["type"], c["status"], c["reason"]) for c in status["conditions"]] == [
        ("NamesAccepted", "True", "NoConflicts"), ("Established", "True", "InitialNamesAccepted")]
    assert status["acceptedNames"] == {"plural": "widgets", "singular": "widget", "shortNames": ["wd"],
                                       "kind": "Widget", "listKind": "WidgetList"}
    writers = [(e.actor, e.subresource) for e in kube.audit
               if e.resource == "customresourcedefinitions" and e.verb != "get"]
    assert writers == [("fakekube", None), ("apiextensions-controller", "status"),
                       ("apiextensions-controller", "status")]
    assert kube.resolve("wd").kind == "Widget"
    assert kube.resolve("widgets.example.com").group == "example.com"
    assert kube.create("widgets", widget(), "default")["apiVersion"] == "example.com/v1"


def test_deleting_the_crd_removes_its_objects(crd_kube: Store) -> None:
    crd_kube.create("widgets", widget(), "default")
    watch = crd_kube.watch("widgets", resource_version=crd_kube.resource_version)
    marked = crd_kube.delete("customresourcedefinitions", "widgets.example.com")
    # Observed on kube-apiserver v1.37.2: the registry only marks the CRD; its finalizer controller deletes the
    # custom resources, then drops its finalizer with a status write, which removes the CRD.
    assert marked["metadata"]["finalizers"] == ["customresourcecleanup.apiextensions.k8s.io"]
    assert marked["status"]["conditions"][-1]["reason"] == "InstanceDeletionPending"
    with pytest.raises(errors.NotFound):
        crd_kube.resolve("widgets")
    with pytest.raises(errors.NotFound):
        crd_kube.get("customresourcedefinitions", "widgets.example.com")
    writes = [e for e in crd_kube.audit if e.verb != "get"]
    steps = [(e.verb, e.path, e.actor) for e in writes][-5:]
    assert steps == [
        ("delete", "customresourcedefinitions/widgets.example.com", "fakekube"),
        ("update", "customresourcedefinitions/widgets.example.com/status", "apiextensions-controller"),
        ("delete", "widgets/w1", "apiextensions-controller"),  # (audited before the collection it is part of)
        ("deletecollection", "widgets", "apiextensions-controller"),
        ("update", "customresourcedefinitions/widgets.example.com/status", "apiextensions-controller")]
    cleanup = writes[-3]
    events = watch.drain()
    assert [(e.type, e.resource_version) for e in events] == [("DELETED", cleanup.rv_after)]


def test_a_deleting_crd_waits_for_its_objects_and_refuses_new_ones(crd_kube: Store) -> None:
    crd_kube.create("widgets", {**widget(), "metadata": {"name": "w1", "finalizers": ["example.com/f"]}}, "default")
    crd_kube.delete("customresourcedefinitions", "widgets.example.com")
    crd = crd_kube.get("customresourcedefinitions", "widgets.example.com")
    assert crd["status"]["conditions"][-1]["reason"] == "InstanceDeletionInProgress"
    with pytest.raises(errors.Forbidden) as caught:
        crd_kube.create("widgets", widget("w2"), "default")
    assert caught.value.status["message"] == ('widgets.example.com "w2" is forbidden: create not allowed while custom '
                                              "resource definition is terminating")
    crd_kube.patch("widgets", "w1", {"metadata": {"finalizers": None}}, "default")
    with pytest.raises(errors.NotFound):
        crd_kube.get("customresourcedefinitions", "widgets.example.com")


def test_crd_from_yaml_text(kube: Store) -> None:
    import yaml

    kube.load_crds(yaml.safe_dump(WIDGET_CRD))
    assert kube.resolve("widget").plural == "widgets"


def test_crd_name_must_match_its_names(kube: Store) -> None:
    bad = {**WIDGET_CRD, "metadata": {"name": "gadgets.example.com"}}
    with pytest.raises(errors.Invalid):
        kube.create("customresourcedefinitions", bad)
    with pytest.raises(errors.NotFound):
        kube.resolve("widgets")


def test_crd_update_needs_a_resource_version(crd_kube: Store) -> None:
    crd = crd_kube.get("customresourcedefinitions", "widgets.example.com")
    del crd["metadata"]["resourceVersion"]
    with pytest.raises(errors.Invalid):
        crd_kube.update("customresourcedefinitions", crd)


def test_events_are_served_in_both_groups(kube: Store) -> None:
    kube.create("events.events.k8s.io", {
        "metadata": {"name": "e1"}, "regarding": {"kind": "Pod", "name": "p"}, "note": "hello",
        "reason": "Started", "type": "Normal", "reportingController": "kubelet",
        "eventTime": "2026-01-01T00:00:00.000000Z", "action": "Started", "reportingInstance": "n1",
    }, "default")
    core = kube.get("events", "e1", "default")
    assert core["apiVersion"] == "v1" and core["involvedObject"]["name"] == "p" and core["message"] == "hello"
    new = kube.get("events.events.k8s.io", "e1", "default")
    assert new["apiVersion"] == "events.k8s.io/v1" and new["note"] == "hello"
    assert [e["metadata"]["name"] for e in kube.list("events", field_selector="involvedObject.name=p")["items"]] == ["e1"]


def test_unchanged_fields_are_not_revalidated_on_update(crd_kube: Store) -> None:
    """Validation ratcheting: a value that was valid when stored may stay after the schema tightens."""
    import copy

    crd_kube.create("widgets", widget(color="red"), "default")
    stricter = copy.deepcopy(WIDGET_CRD)
    props = stricter["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    props["color"]["enum"] = ["green", "blue"]
    crd = crd_kube.get("customresourcedefinitions", "widgets.example.com")
    crd_kube.update("customresourcedefinitions", {**stricter, "metadata": crd["metadata"]})
    w = crd_kube.get("widgets", "w1", "default")
    w["status"] = {"phase": "Ready"}
    assert crd_kube.update("widgets", w, "default", subresource="status")["status"] == {"phase": "Ready"}
    w = crd_kube.get("widgets", "w1", "default")
    w["spec"]["replicas"] = 2
    with pytest.raises(errors.Invalid, match="spec.color"):
        crd_kube.update("widgets", w, "default")


def test_a_version_checked_against_an_older_schema_is_walked_again(crd_kube: Store) -> None:
    """An update skips the members it leaves as stored only when the stored version passed the schema in force:
    writes after the CRD tightens must not make the old color count as checked against the new schema."""
    import copy

    crd_kube.create("widgets", widget(color="red"), "default")
    w = crd_kube.get("widgets", "w1", "default")
    w["status"] = {"phase": "Pending"}
    crd_kube.update("widgets", w, "default", subresource="status")
    stricter = copy.deepcopy(WIDGET_CRD)
    props = stricter["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    props["color"]["enum"] = ["green", "blue"]
    crd = crd_kube.get("customresourcedefinitions", "widgets.example.com")
    crd_kube.update("customresourcedefinitions", {**stricter, "metadata": crd["metadata"]})
    for phase in ("Ready", "Done"):  # status writes over a version checked against the old schema
        w = crd_kube.get("widgets", "w1", "default")
        w["status"] = {"phase": phase}
        crd_kube.update("widgets", w, "default", subresource="status")
    w = crd_kube.get("widgets", "w1", "default")
    w["spec"]["replicas"] = 2
    with pytest.raises(errors.Invalid, match="spec.color"):
        crd_kube.update("widgets", w, "default")
    w["spec"]["color"] = "green"
    crd_kube.update("widgets", w, "default")
    w = crd_kube.get("widgets", "w1", "default")
    w["spec"]["replicas"], w["spec"]["color"] = 3, "red"  # now checked against the new schema: still refused
    with pytest.raises(errors.Invalid, match="spec.color"):
        crd_kube.update("widgets", w, "default")


def test_load_registers_crds_before_creating_their_objects(kube: Store) -> None:
    import yaml

    text = yaml.safe_dump_all([widget("first"), WIDGET_CRD])  # the custom resource comes first in the file
    created = kube.load(text)
    assert [o["metadata"]["name"] for o in created] == ["first"]
    assert kube.get("widgets", "first", "default")["spec"]["size"] == "medium"
    kube.load(WIDGET_CRD)  # loading an existing CRD again updates it
