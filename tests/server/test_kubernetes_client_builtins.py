"""The official ``kubernetes`` client on kinds its e2e suite exercises beyond the first thirteen, and its
``field_validation`` argument."""

from __future__ import annotations

import pytest

kubernetes = pytest.importorskip("kubernetes")
from kubernetes import client, config, dynamic  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

_LABELS = {"app": "demo"}
_POD_TEMPLATE = client.V1PodTemplateSpec(
    metadata=client.V1ObjectMeta(labels=_LABELS), spec=client.V1PodSpec(containers=[client.V1Container(
        name="app", image="nginx")]))  # restartPolicy Always (defaulted): the only one RCs and DaemonSets accept
_JOB_TEMPLATE = client.V1PodTemplateSpec(
    metadata=client.V1ObjectMeta(labels=_LABELS),
    spec=client.V1PodSpec(containers=[client.V1Container(name="app", image="nginx")], restart_policy="Never"))


@pytest.fixture
def kube_server(either_front):
    """Every test here runs over HTTP and in process (tests/server/conftest.py, ``either_front``)."""
    return either_front


@pytest.fixture
def api_client(kube_server):
    api = config.new_client_from_config(config_file=str(kube_server.kubeconfig))
    yield api
    api.close()


@pytest.mark.slow
def test_the_kinds_the_clients_e2e_suite_uses(api_client) -> None:
    core, apps, batch = client.CoreV1Api(api_client), client.AppsV1Api(api_client), client.BatchV1Api(api_client)
    rbac, registration = client.RbacAuthorizationV1Api(api_client), client.ApiregistrationV1Api(api_client)
    rc = core.create_namespaced_replication_controller("default", client.V1ReplicationController(
        metadata=client.V1ObjectMeta(name="rc"),
        spec=client.V1ReplicationControllerSpec(replicas=1, selector=_LABELS, template=_POD_TEMPLATE)))
    assert rc.spec.replicas == 1
    scale = core.read_namespaced_replication_controller_scale("rc", "default")
    assert (scale.spec.replicas, scale.status.selector) == (1, "app=demo")
    rbac.create_namespaced_role("default", client.V1Role(
        metadata=client.V1ObjectMeta(name="system:reader"),  # RBAC names may hold colons
        rules=[client.V1PolicyRule(api_groups=[""], resources=["pods"], verbs=["get"])]))
    assert [r.metadata.name for r in rbac.list_namespaced_role("default").items] == ["system:reader"]
    apps.create_namespaced_daemon_set("default", client.V1DaemonSet(
        metadata=client.V1ObjectMeta(name="ds"),
        spec=client.V1DaemonSetSpec(selector=client.V1LabelSelector(match_labels=_LABELS), template=_POD_TEMPLATE)))
    assert apps.read_namespaced_daemon_set("ds", "default").metadata.name == "ds"
    batch.create_namespaced_job("default", client.V1Job(metadata=client.V1ObjectMeta(name="job"),
                                                        spec=client.V1JobSpec(template=_JOB_TEMPLATE)))
    assert batch.list_namespaced_job("default", field_selector="status.successful=0").items[0].metadata.name == "job"
    core.create_node(client.V1Node(metadata=client.V1ObjectMeta(name="node-1")))
    assert core.list_node(field_selector="spec.unschedulable=false").items[0].metadata.name == "node-1"
    registration.create_api_service(client.V1APIService(
        metadata=client.V1ObjectMeta(name="v1.demo.example.com"),
        spec=client.V1APIServiceSpec(group="demo.example.com", version="v1", group_priority_minimum=100,
                                     version_priority=10)))
    assert registration.read_api_service("v1.demo.example.com").spec.group == "demo.example.com"


def test_field_validation_strict_warn_and_ignore(api_client, kube_server) -> None:
    """The typed API refuses unknown fields itself (pydantic models); the dynamic client sends them, with the
    directive as a query parameter."""
    deployments = dynamic.DynamicClient(api_client).resources.get(api_version="apps/v1", kind="Deployment")
    body = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"replica": 2, "selector": {"matchLabels": _LABELS},
                     "template": {"metadata": {"labels": _LABELS},
                                  "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}}
    with pytest.raises(ApiException) as refused:
        deployments.create(body=body, namespace="default", query_params=[("fieldValidation", "Strict")])
    assert refused.value.status == 400
    assert 'strict decoding error: unknown field \\"spec.replica\\"' in refused.value.body
    deployments.create(body=body, namespace="default", query_params=[("fieldValidation", "Ignore")])
    assert "replica" not in kube_server.store.get("deployments", "d", "default")["spec"]
    assert kube_server.store.audit.filter(verb="create")[-1].warnings == []
    with pytest.raises(ApiException) as patched:
        deployments.patch(name="d", namespace="default", body={"spec": {"paused2": True}},
                          content_type="application/merge-patch+json", query_params=[("fieldValidation", "Strict")])
    assert patched.value.status == 422 and "unknown field" in patched.value.body
    # The typed API passes the directive for bodies it accepts.
    typed = client.AppsV1Api(api_client)
    typed.patch_namespaced_deployment("d", "default", {"spec": {"paused": True}}, field_validation="Strict")
    assert kube_server.store.get("deployments", "d", "default")["spec"]["paused"] is True
