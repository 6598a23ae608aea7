"""Namespaces as the real server and namespace controller handle them (observed on kube-apiserver v1.37.2 with
kube-controller-manager's namespace controller; kubernetes pkg/registry/core/namespace,
pkg/controller/namespace/deletion)."""

from __future__ import annotations

import pytest

from fakekube import errors
from fakekube.store import Store


def conditions(ns: dict) -> dict[str, tuple[str, str, str]]:
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in ns["status"].get("conditions", [])}


def test_create_keeps_requested_spec_finalizers_and_appends_kubernetes(kube: Store) -> None:
    ns = kube.create("namespaces", {"metadata": {"name": "x"}, "spec": {"finalizers": ["a.com/b"]}})
    assert ns["spec"]["finalizers"] == ["a.com/b", "kubernetes"]
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "x"}


def test_spec_finalizers_are_validated_against_the_whole_list(kube: Store) -> None:
    with pytest.raises(errors.Invalid) as caught:
        kube.create("namespaces", {"metadata": {"name": "y"}, "spec": {"finalizers": ["bad", "Bad_/x"]}})
    causes = caught.value.status["details"]["causes"]
    assert [c["field"] for c in causes] == ["spec.finalizers", "spec.finalizers"]
    assert causes[0]["message"] == ('Invalid value: "bad": name is neither a standard finalizer name nor is it '
                                    "fully qualified")
    assert causes[1]["message"].startswith('Invalid value: "Bad_/x": prefix part a lowercase RFC 1123 subdomain')


def test_first_delete_marks_without_a_grace_period_and_a_second_answers_unchanged(kube: Store) -> None:
    kube.create("namespaces", {"metadata": {"name": "x"}, "spec": {"finalizers": ["a.com/b"]}})
    first = kube.delete("namespaces", "x")
    assert first["metadata"]["deletionTimestamp"] and "deletionGracePeriodSeconds" not in first["metadata"]
    assert first["status"]["phase"] == "Terminating"
    # The controller emptied it and took its own finalizer; a.com/b keeps it.
    held = kube.get("namespaces", "x")
    assert held["spec"]["finalizers"] == ["a.com/b"]
    again = kube.delete("namespaces", "x", propagation_policy="Foreground")
    assert again == held  # no finalizer added: the registry answers the namespace as it is


def test_namespace_preconditions_have_their_own_messages(kube: Store) -> None:
    created = kube.create("namespaces", {"metadata": {"name": "x"}})
    with pytest.raises(errors.Conflict) as caught:
        kube.delete("namespaces", "x", preconditions={"uid": "abc"})
    assert caught.value.status["message"] == (
        'Operation cannot be fulfilled on namespaces "x": Precondition failed: UID in precondition: abc, UID in '
        f"object meta: {created['metadata']['uid']}")
    assert caught.value.status["details"] == {"name": "x", "kind": "namespaces"}
    with pytest.raises(errors.Conflict, match="ResourceVersion in precondition: 1, ResourceVersion in object meta"):
        kube.delete("namespaces", "x", preconditions={"resourceVersion": "1"})


def test_foreground_delete_of_a_namespace_adds_the_finalizer_to_its_metadata(kube_factory) -> None:
    store = kube_factory(gc="manual")
    store.create("namespaces", {"metadata": {"name": "x"}})
    answer = store.delete("namespaces", "x", propagation_policy="Foreground")
    assert answer["metadata"]["finalizers"] == ["foregroundDeletion"]
    assert "deletionGracePeriodSeconds" not in answer["metadata"]


def test_conditions_report_what_remains_and_the_finalizers_holding_it(kube: Store) -> None:
    kube.create("namespaces", {"metadata": {"name": "x"}})
    kube.create("configmaps", {"metadata": {"name": "hold", "finalizers": ["example.com/hold"]}}, "x")
    kube.delete("namespaces", "x")
    ns = kube.get("namespaces", "x")
    assert list(conditions(ns)) == ["NamespaceDeletionDiscoveryFailure", "NamespaceDeletionGroupVersionParsingFailure",
                                    "NamespaceDeletionContentFailure", "NamespaceContentRemaining",
                                    "NamespaceFinalizersRemaining"]
    assert conditions(ns)["NamespaceDeletionDiscoveryFailure"] == (
        "False", "ResourcesDiscovered", "All resources successfully discovered")
    assert conditions(ns)["NamespaceContentRemaining"] == (
        "True", "SomeResourcesRemain", "Some resources are remaining: configmaps. has 1 resource instances")
    assert conditions(ns)["NamespaceFinalizersRemaining"] == (
        "True", "SomeFinalizersRemain",
        "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances")
    assert ns["metadata"]["managedFields"][-1]["manager"] == "kube-controller-manager"
    kube.patch("configmaps", "hold", {"metadata": {"finalizers": None}}, "x")
    with pytest.raises(errors.NotFound):
        kube.get("namespaces", "x")


def test_conditions_turn_to_their_ok_variants_when_a_spec_finalizer_still_holds(kube: Store) -> None:
    kube.create("namespaces", {"metadata": {"name": "x"}, "spec": {"finalizers": ["a.com/b"]}})
    kube.create("configmaps", {"metadata": {"name": "hold", "finalizers": ["example.com/hold"]}}, "x")
    kube.delete("namespaces", "x")
    kube.patch("configmaps", "hold", {"metadata": {"finalizers": None}}, "x")
    ns = kube.get("namespaces", "x")
    assert conditions(ns)["NamespaceContentRemaining"] == ("False", "ContentRemoved", "All content successfully removed")
    assert conditions(ns)["NamespaceFinalizersRemaining"] == (
        "False", "ContentHasNoFinalizers", "All content-preserving finalizers finished")
    assert ns["spec"]["finalizers"] == ["a.com/b"]


def test_finalize_is_an_update_of_spec_finalizers_and_the_last_one_removes_the_namespace(kube: Store) -> None:
    kube.create("namespaces", {"metadata": {"name": "x"}, "spec": {"finalizers": ["a.com/b"]}})
    kube.delete("namespaces", "x")
    ns = kube.get("namespaces", "x")
    with pytest.raises(errors.Invalid, match=r"spec\.finalizers\[0\]: Invalid value: \"nope\""):
        kube.update("namespaces", {**ns, "spec": {"finalizers": ["nope"]}}, name="x", subresource="finalize")
    status_before = ns["status"]
    answer = kube.update("namespaces", {**ns, "spec": {}, "status": {"phase": "Active"}}, name="x",
                         subresource="finalize")
    assert answer["spec"] == {} and answer["status"] == status_before  # finalize keeps the status
    with pytest.raises(errors.NotFound):
        kube.get("namespaces", "x")


def test_status_phase_must_follow_the_deletion_timestamp(kube: Store) -> None:
    ns = kube.create("namespaces", {"metadata": {"name": "x"}})
    with pytest.raises(errors.Invalid) as caught:
        kube.update("namespaces", {**ns, "status": {"phase": "Terminating"}}, name="x", subresource="status")
    assert caught.value.status["details"]["causes"] == [{
        "reason": "FieldValueInvalid", "field": "status.Phase",
        "message": "Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty"}]


def test_creates_in_a_terminating_namespace_name_the_object(kube_factory) -> None:
    store = kube_factory(gc="manual")
    store.create("namespaces", {"metadata": {"name": "x"}})
    store.delete("namespaces", "x")
    expected = {"late": 'configmaps "late" is forbidden', "g-": 'configmaps "g-" is forbidden',
                "": 'configmaps "Unknown" is forbidden'}
    for name, start in expected.items():
        meta = {"generateName": name} if name == "g-" else {"name": name} if name else {}
        with pytest.raises(errors.Forbidden) as caught:
            store.create("configmaps", {"metadata": meta}, "x")
        assert caught.value.status["message"].startswith(start)
        assert caught.value.status["details"]["name"] == (name or "Unknown")
