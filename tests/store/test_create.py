from __future__ import annotations

import random
import re

import pytest

from fakekube import errors
from fakekube.store import Store

from .conftest import pod, widget


def test_create_fills_system_fields_and_bumps_the_global_counter(kube: Store) -> None:
    before = int(kube.resource_version)
    created = kube.create("pods", pod(), "default")
    meta = created["metadata"]
    assert meta["resourceVersion"] == str(before + 1)
    assert re.fullmatch(r"[0-9a-f-]{36}", meta["uid"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", meta["creationTimestamp"])
    assert meta["generation"] == 1
    assert created["status"] == {"phase": "Pending", "qosClass": "BestEffort"}
    cm = kube.create("configmaps", {"metadata": {"name": "c"}}, "default")
    assert cm["metadata"]["resourceVersion"] == str(before + 2)
    assert "generation" not in cm["metadata"]


def test_client_sent_uid_and_timestamp_are_overwritten(kube: Store) -> None:
    created = kube.create("configmaps", {"metadata": {"name": "c", "uid": "mine", "creationTimestamp": "2000-01-01T00:00:00Z"}}, "default")
    assert created["metadata"]["uid"] != "mine"
    assert created["metadata"]["creationTimestamp"] != "2000-01-01T00:00:00Z"


def test_already_exists_has_the_upstream_status(kube: Store) -> None:
    kube.create("pods", pod(), "default")
    with pytest.raises(errors.AlreadyExists) as info:
        kube.create("pods", pod(), "default")
    assert info.value.status == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": 'pods "p1" already exists', "reason": "AlreadyExists",
        "details": {"name": "p1", "kind": "pods"}, "code": 409,
    }


def test_generate_name_uses_the_real_alphabet(kube: Store) -> None:
    created = kube.create("configmaps", {"metadata": {"generateName": "cfg-"}}, "default")
    name = created["metadata"]["name"]
    assert re.fullmatch(r"cfg-[bcdfghjklmnpqrstvwxz2456789]{5}", name)


def test_generate_name_retries_collisions_then_gives_up(kube: Store) -> None:
    # Same seed → the store will draw the same suffixes as this replica of its generator.
    kube.name_rng = random.Random(7)
    twin = random.Random(7)
    from fakekube.namerules import generate_name

    taken = [generate_name("x-", twin) for _ in range(3)]
    for name in taken[:2]:
        kube.create("configmaps", {"metadata": {"name": name}}, "default")
    created = kube.create("configmaps", {"metadata": {"generateName": "x-"}}, "default")
    assert created["metadata"]["name"] == taken[2]

    kube.name_rng = random.Random(9)
    twin = random.Random(9)
    for _ in range(8):
        kube.create("configmaps", {"metadata": {"name": generate_name("y-", twin)}}, "default")
    kube.name_rng = random.Random(9)
    with pytest.raises(errors.ApiError) as info:
        kube.create("configmaps", {"metadata": {"generateName": "y-"}}, "default")
    assert info.value.code == 409 and info.value.reason == "AlreadyExists"
    assert "not able to generate a unique name" in info.value.message
    assert info.value.status["details"]["retryAfterSeconds"] == 1


def test_resource_version_on_create_is_a_500(kube: Store) -> None:
    with pytest.raises(errors.ApiError) as info:
        kube.create("configmaps", {"metadata": {"name": "c", "resourceVersion": "5"}}, "default")
    assert info.value.code == 500
    assert info.value.message == "resourceVersion should not be set on objects to be created"
    assert kube.count("configmaps") == 0


# kube-apiserver v1.37.2 (the oracle): the storage refuses a resourceVersion only after validation, a dry run
# never reaches that check and answers with the resourceVersion it was given, "0" is no version, and a
# generation the kind's strategy does not manage is kept (controller-runtime's DryRunClient tests create a
# copy of a stored Deployment this way).
def test_an_invalid_object_with_a_resource_version_is_invalid_first(kube: Store) -> None:
    with pytest.raises(errors.ApiError) as info:
        kube.create("configmaps", {"metadata": {"name": "Bad_Name", "resourceVersion": "5"}}, "default")
    assert info.value.code == 422


def test_a_dry_run_create_with_a_resource_version_answers_with_it(kube: Store) -> None:
    answer = kube.create("configmaps", {"metadata": {"name": "c", "resourceVersion": "123", "generation": 5}},
                         "default", dry_run=True)
    assert answer["metadata"]["resourceVersion"] == "123" and answer["metadata"]["generation"] == 5
    assert kube.count("configmaps") == 0
    created = kube.create("configmaps", {"metadata": {"name": "c", "resourceVersion": "0", "generation": 5}}, "default")
    assert created["metadata"]["resourceVersion"] != "0" and created["metadata"]["generation"] == 5
    deployment = {"metadata": {"name": "d", "generation": 7}, "spec": {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}}}}
    assert kube.create("deployments", deployment, "default")["metadata"]["generation"] == 1


def test_namespace_mismatch_is_a_bad_request(kube: Store) -> None:
    with pytest.raises(errors.BadRequest):
        kube.create("configmaps", {"metadata": {"name": "c", "namespace": "other"}}, "default")


def test_cluster_scoped_objects_drop_a_namespace(kube: Store) -> None:
    ns = kube.create("namespaces", {"metadata": {"name": "team", "namespace": "default"}})
    assert "namespace" not in ns["metadata"]
    assert ns["status"] == {"phase": "Active"}
    assert ns["spec"] == {"finalizers": ["kubernetes"]}


def test_missing_namespace_is_not_found(kube: Store) -> None:
    with pytest.raises(errors.NotFound) as info:
        kube.create("configmaps", {"metadata": {"name": "c"}}, "nowhere")
    assert info.value.message == 'namespaces "nowhere" not found'


@pytest.mark.parametrize(
    ("name", "field"),
    [("Bad_Name", "metadata.name"), ("", "metadata.name"), ("a" * 254, "metadata.name")],
)
def test_invalid_names_are_422_with_causes(kube: Store, name: str, field: str) -> None:
    with pytest.raises(errors.Invalid) as info:
        kube.create("configmaps", {"metadata": {"name": name}}, "default")
    status = info.value.status
    assert status["code"] == 422 and status["reason"] == "Invalid"
    assert status["details"]["kind"] == "ConfigMap"
    assert status["details"]["causes"][0]["field"] == field
    assert kube.count("configmaps") == 0


def test_service_names_follow_the_relaxed_dns_label_rule(kube: Store) -> None:
    # Observed on kube-apiserver v1.37.2: RelaxedServiceNameValidation (KEP-5311, on by default) makes a
    # Service's name an RFC 1123 label (pkg/apis/core/validation/validation.go ValidateServiceCreate), so a
    # leading digit passes and a dot is "must not contain dots".
    with pytest.raises(errors.Invalid) as info:
        kube.create("services", {"metadata": {"name": "de.mo"}, "spec": {}}, "default")
    assert 'metadata.name: Invalid value: "de.mo": must not contain dots' in info.value.message
    with pytest.raises(errors.Invalid) as info:
        kube.create("services", {"metadata": {"name": "Demo"}, "spec": {}}, "default")
    assert "a lowercase RFC 1123 label must consist of" in info.value.message


def test_invalid_labels_are_rejected(kube: Store) -> None:
    with pytest.raises(errors.Invalid) as info:
        kube.create("configmaps", {"metadata": {"name": "c", "labels": {"bad key!": "v"}}}, "default")
    assert info.value.status["details"]["causes"][0]["field"].startswith("metadata.labels")


@pytest.mark.parametrize("body", [[], "text", 3, None])
def test_non_object_bodies_are_bad_requests(kube: Store, body: object) -> None:
    with pytest.raises(errors.BadRequest):
        kube.create("configmaps", body, "default")  # type: ignore[arg-type]


def test_wrong_kind_and_api_version(kube: Store) -> None:
    with pytest.raises(errors.BadRequest, match="kind in the data"):
        kube.create("configmaps", {"kind": "Secret", "metadata": {"name": "c"}}, "default")
    with pytest.raises(errors.BadRequest, match="API version"):
        kube.create("configmaps", {"apiVersion": "apps/v1", "metadata": {"name": "c"}}, "default")


def test_unknown_resource(kube: Store) -> None:
    with pytest.raises(errors.NotFound):
        kube.create("gizmos", {"metadata": {"name": "g"}}, "default")


def test_custom_resource_create_drops_status_and_sets_generation(crd_kube: Store) -> None:
    body = widget()
    body["status"] = {"phase": "Done"}
    created = crd_kube.create("widgets", body, "default")
    assert "status" not in created
    assert created["metadata"]["generation"] == 1
    assert created["spec"]["size"] == "medium"  # schema default


def test_schema_violations_are_422_and_unknown_fields_pruned(crd_kube: Store) -> None:
    with pytest.raises(errors.Invalid) as info:
        crd_kube.create("widgets", widget(color="purple"), "default")
    causes = info.value.status["details"]["causes"]
    assert causes[0]["field"] == "spec.color" and causes[0]["reason"] == "FieldValueNotSupported"
    assert info.value.status["details"]["kind"] == "Widget"
    created = crd_kube.create("widgets", widget(unknown=1, extra={"kept": True}), "default")
    assert "unknown" not in created["spec"]
    assert created["spec"]["extra"] == {"kept": True}


def test_secret_string_data_is_folded_into_data(kube: Store) -> None:
    secret = kube.create("secrets", {"metadata": {"name": "s"}, "stringData": {"k": "v"}}, "default")
    assert secret["data"] == {"k": "dg=="}
    assert "stringData" not in secret


def test_the_store_never_hands_out_its_own_data(kube: Store) -> None:
    body = {"metadata": {"name": "c", "labels": {"a": "b"}}, "data": {"k": "v"}}
    created = kube.create("configmaps", body, "default")
    body["data"]["k"] = "changed-by-caller"
    created["data"]["k"] = "changed-by-caller"
    fetched = kube.get("configmaps", "c", "default")
    fetched["data"]["k"] = "changed-again"
    assert kube.get("configmaps", "c", "default")["data"] == {"k": "v"}
