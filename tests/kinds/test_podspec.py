"""Pod spec defaulting, with cases restated from kubernetes ``pkg/apis/core/v1/defaults_test.go``
(TestWorkloadDefaults, TestPodDefaults, TestPodHostNetworkDefaults, TestSetDefaultPodSpecHostNetwork,
TestSetDefaultReplicationControllerInitContainers, TestSetDefaultSecretVolumeSource and its siblings,
TestSetDefaultEphemeral)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.kinds.podspec import default_pod, default_pod_template, image_tag, pull_policy_for

# TestWorkloadDefaults: an empty PodTemplateSpec whose every defaultable part exists gets exactly these values.
WORKLOAD_DEFAULTS = {
    "spec.dnsPolicy": "ClusterFirst",
    "spec.restartPolicy": "Always",
    "spec.schedulerName": "default-scheduler",
    "spec.securityContext": {},
    "spec.terminationGracePeriodSeconds": 30,
    "spec.volumes[0].azureDisk.cachingMode": "ReadWrite",
    "spec.volumes[0].azureDisk.fsType": "ext4",
    "spec.volumes[0].azureDisk.kind": "Shared",
    "spec.volumes[0].azureDisk.readOnly": False,
    "spec.volumes[0].configMap.defaultMode": 420,
    "spec.volumes[0].downwardAPI.defaultMode": 420,
    "spec.volumes[0].downwardAPI.items[0].fieldRef.apiVersion": "v1",
    "spec.volumes[0].ephemeral.volumeClaimTemplate.spec.volumeMode": "Filesystem",
    "spec.volumes[0].hostPath.type": "",
    "spec.volumes[0].iscsi.iscsiInterface": "default",
    "spec.volumes[0].projected.defaultMode": 420,
    "spec.volumes[0].projected.sources[0].downwardAPI.items[0].fieldRef.apiVersion": "v1",
    "spec.volumes[0].projected.sources[0].serviceAccountToken.expirationSeconds": 3600,
    "spec.volumes[0].rbd.keyring": "/etc/ceph/keyring",
    "spec.volumes[0].rbd.pool": "rbd",
    "spec.volumes[0].rbd.user": "admin",
    "spec.volumes[0].scaleIO.fsType": "xfs",
    "spec.volumes[0].scaleIO.storageMode": "ThinProvisioned",
    "spec.volumes[0].secret.defaultMode": 420,
}
CONTAINER_DEFAULTS = {
    "env[0].valueFrom.fieldRef.apiVersion": "v1",
    "imagePullPolicy": "IfNotPresent",
    "lifecycle.postStart.httpGet.path": "/",
    "lifecycle.postStart.httpGet.scheme": "HTTP",
    "lifecycle.preStop.httpGet.path": "/",
    "lifecycle.preStop.httpGet.scheme": "HTTP",
    "ports[0].protocol": "TCP",
    "terminationMessagePath": "/dev/termination-log",
    "terminationMessagePolicy": "File",
    **{f"{probe}.{key}": value for probe in ("livenessProbe", "readinessProbe", "startupProbe")
       for key, value in (("failureThreshold", 3), ("periodSeconds", 10), ("successThreshold", 1),
                          ("timeoutSeconds", 1), ("httpGet.path", "/"), ("httpGet.scheme", "HTTP"),
                          ("grpc.service", ""))},
}


def _every_part() -> dict[str, Any]:
    """A pod spec where every struct that has defaults is present and empty (detectDefaults' walk)."""
    def container() -> dict[str, Any]:
        probe = {"httpGet": {}, "grpc": {}}
        return {"env": [{"valueFrom": {"fieldRef": {}}}], "ports": [{}],
                "lifecycle": {"postStart": {"httpGet": {}}, "preStop": {"httpGet": {}}},
                "livenessProbe": dict(probe, httpGet={}, grpc={}), "readinessProbe": {"httpGet": {}, "grpc": {}},
                "startupProbe": {"httpGet": {}, "grpc": {}}}

    volume = {"azureDisk": {}, "configMap": {}, "downwardAPI": {"items": [{"fieldRef": {}}]},
              "ephemeral": {"volumeClaimTemplate": {"spec": {}}}, "hostPath": {}, "iscsi": {},
              "projected": {"sources": [{"downwardAPI": {"items": [{"fieldRef": {}}]}, "serviceAccountToken": {}}]},
              "rbd": {}, "scaleIO": {}, "secret": {}, "emptyDir": {}}
    return {"containers": [container()], "initContainers": [container()], "ephemeralContainers": [container()],
            "volumes": [volume]}


def _at(obj: Any, path: str) -> Any:
    for part in path.replace("]", "").replace("[", ".").split("."):
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    return obj


def _expected(pod: bool) -> dict[str, Any]:
    expected = dict(WORKLOAD_DEFAULTS)
    for kind in ("containers", "initContainers", "ephemeralContainers"):
        expected.update({f"spec.{kind}[0].{k}": v for k, v in CONTAINER_DEFAULTS.items()})
    if pod:
        expected["spec.enableServiceLinks"] = True
    return expected


@pytest.mark.parametrize("kind", ["template", "pod"])
def test_every_default_of_a_pod_spec(kind: str) -> None:
    obj = {"metadata": {}, "spec": _every_part()}
    (default_pod if kind == "pod" else default_pod_template)(obj)
    expected = _expected(kind == "pod")
    got = {path: _at(obj, path) for path in expected}
    assert got == expected
    # A template gets none of SetDefaults_Pod (kubernetes#69445): no enableServiceLinks.
    assert ("enableServiceLinks" in obj["spec"]) == (kind == "pod")


def test_a_container_without_resources_serialises_an_empty_object() -> None:
    obj = {"spec": {"containers": [{"name": "a", "image": "nginx"}]}}
    default_pod_template(obj)
    assert obj["spec"]["containers"][0]["resources"] == {}


@pytest.mark.parametrize(("host_network", "kind", "host_port"), [
    # TestPodHostNetworkDefaults with DefaultHostNetworkHostPortsInPodTemplates off (its default).
    (False, "pod", None), (True, "pod", 12345), (False, "template", None), (True, "template", None),
])
def test_host_network_copies_container_ports_to_host_ports_in_pods_only(host_network: bool, kind: str,
                                                                        host_port: int | None) -> None:
    obj = {"spec": {"hostNetwork": host_network, "containers": [{"ports": [{"containerPort": 12345}]}],
                    "initContainers": [{"ports": [{"containerPort": 12345}]}]}}
    (default_pod if kind == "pod" else default_pod_template)(obj)
    for key in ("containers", "initContainers"):
        assert obj["spec"][key][0]["ports"][0].get("hostPort") == host_port


@pytest.mark.parametrize(("image", "policy"), [
    ("busybox", "Always"),  # TestSetDefaultReplicationControllerInitContainers "imagePullIPolicy"
    ("nginx:latest", "Always"),
    ("nginx:1.27", "IfNotPresent"),
    ("registry.example.com:5000/app", "Always"),  # a registry port is not a tag
    ("registry.example.com:5000/app:v2", "IfNotPresent"),
    ("nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "IfNotPresent"),
    ("", "IfNotPresent"),  # TestWorkloadDefaults: an empty image
])
def test_image_pull_policy_follows_the_tag(image: str, policy: str) -> None:
    assert pull_policy_for(image) == policy


def test_image_tag_of_a_digest_with_a_tag() -> None:
    assert image_tag("nginx:1.27@sha256:abc") == "1.27"


def test_requests_default_to_limits_in_pods_only() -> None:
    limits = {"cpu": "500m", "memory": "1Gi"}
    pod = {"spec": {"containers": [{"name": "a", "resources": {"limits": dict(limits), "requests": {"cpu": "100m"}}}]}}
    default_pod(pod)
    assert pod["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "100m", "memory": "1Gi"}
    template = {"spec": {"containers": [{"name": "a", "resources": {"limits": dict(limits)}}]}}
    default_pod_template(template)
    assert "requests" not in template["spec"]["containers"][0]["resources"]


def test_resource_quantities_are_stored_in_canonical_form() -> None:
    pod = {"spec": {"containers": [{"name": "a", "resources": {
        "limits": {"cpu": "1000m", "memory": "1024Mi"}, "requests": {"cpu": "0.25", "memory": 1073741824}}}]}}
    default_pod(pod)
    assert pod["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "250m", "memory": "1073741824"}}


def test_a_volume_without_a_source_is_an_empty_dir() -> None:
    pod = {"spec": {"volumes": [{"name": "scratch"}]}}
    default_pod_template(pod)
    assert pod["spec"]["volumes"] == [{"name": "scratch", "emptyDir": {}}]


def test_service_account_is_the_deprecated_alias_of_service_account_name() -> None:
    old_style = {"spec": {"serviceAccount": "builder"}}
    default_pod_template(old_style)
    assert old_style["spec"]["serviceAccountName"] == "builder"
    new_style = {"spec": {"serviceAccountName": "runner", "serviceAccount": "stale"}}
    default_pod_template(new_style)
    assert new_style["spec"]["serviceAccount"] == "runner"
