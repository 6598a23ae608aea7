"""The built-in API with the real kubectl: api-resources, explain, field validation, version emulation."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from fakekube.apimodel.definitions import definitions
from fakekube.apimodel.table import resources_in
from fakekube.server.app import ApiServer
from fakekube.store import Store

MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replica: 2
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers:
      - {{name: nginx, image: nginx, imagee: typo}}
"""


def _api_resources(stdout: str) -> set[tuple[str, str]]:
    lines = stdout.splitlines()
    header = lines[0]
    name_end = header.index("SHORTNAMES")
    version_at = header.index("APIVERSION")
    return {(line[:name_end].strip(), line[version_at:].split()[0]) for line in lines[1:] if line.strip()}


def test_api_resources_lists_every_ga_resource(kubectl) -> None:
    listed = _api_resources(kubectl("api-resources").stdout)
    preferred: dict[str, str] = {}
    for r in resources_in("1.37"):
        preferred.setdefault(r.group, r.version)  # the table lists a group's preferred version first
    # kubectl lists each group's preferred version only (autoscaling/v2 for horizontalpodautoscalers).
    expected = {(r.plural, f"{r.group}/{r.version}" if r.group else r.version)
                for r in resources_in("1.37") if r.version == preferred[r.group]}
    assert ("horizontalpodautoscalers", "autoscaling/v2") in expected
    assert listed == expected


def test_explain_prints_the_field_documentation(kubectl) -> None:
    out = kubectl("explain", "deployment.spec.strategy").stdout
    assert "GROUP:      apps" in out and "KIND:       Deployment" in out
    doc = definitions()["io.k8s.api.apps.v1.DeploymentStrategy"]["properties"]["type"]["description"]
    assert "FIELD: strategy <DeploymentStrategy>" in out
    assert "rollingUpdate\t<RollingUpdateDeployment>" in out
    assert " ".join(doc.split()[:6]) in " ".join(out.split())
    nested = kubectl("explain", "pods.spec.containers.ports").stdout
    assert "containerPort\t<integer> -required-" in nested


def test_apply_field_validation_modes(kubectl, kube_server) -> None:
    strict = kubectl("apply", "-f", "-", input=MANIFEST.format(name="strict"), check=False)
    assert strict.code != 0
    assert ('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field '
            '"spec.replica", unknown field "spec.template.spec.containers[0].imagee"') in strict.stderr
    warned = kubectl("apply", "--validate=warn", "-f", "-", input=MANIFEST.format(name="warned"))
    assert 'Warning: unknown field "spec.replica"' in warned.stderr
    assert 'Warning: unknown field "spec.template.spec.containers[0].imagee"' in warned.stderr
    ignored = kubectl("apply", "--validate=ignore", "-f", "-", input=MANIFEST.format(name="ignored"))
    assert "deployment.apps/ignored created" in ignored.stdout and "Warning" not in ignored.stderr
    stored = kube_server.store.get("deployments", "ignored", "default")
    assert "replica" not in stored["spec"]
    assert "imagee" not in stored["spec"]["template"]["spec"]["containers"][0]


def test_client_side_apply_computes_its_patch_from_the_served_schemas(kubectl, kube_server) -> None:
    clean = MANIFEST.format(name="web").replace("  replica: 2\n", "  replicas: 2\n").replace(", imagee: typo", "")
    kubectl("apply", "-f", "-", input=clean)
    sidecar = clean.replace("      - {name: nginx, image: nginx}\n",
                            "      - {name: nginx, image: nginx:2}\n      - {name: envoy, image: envoy}\n")
    assert sidecar != clean
    out = kubectl("apply", "-v=8", "-f", "-", input=sidecar)
    assert "application/strategic-merge-patch+json" in out.stderr  # from the OpenAPI v3 PATCH operation
    assert "$setElementOrder/containers" in out.stderr  # containers merge by name, as the schema says
    live = kube_server.store.get("deployments", "web", "default")
    assert [(c["name"], c["image"]) for c in live["spec"]["template"]["spec"]["containers"]] == [
        ("nginx", "nginx:2"), ("envoy", "envoy")]


def test_get_of_a_kind_without_a_printer_shows_name_and_age(kubectl, kube_server) -> None:
    kube_server.store.create("roles", {"metadata": {"name": "reader"}, "rules": []}, "default")
    header = kubectl("get", "roles").stdout.splitlines()[0].split()
    assert header == ["NAME", "AGE"]


def test_an_older_release_serves_only_its_kinds(tmp_path: Path) -> None:
    binary = shutil.which("kubectl")
    if binary is None:
        pytest.skip("kubectl is not installed")
    with ApiServer(Store(kubernetes_version="1.30")) as server:
        kubeconfig = server.write_kubeconfig(tmp_path / "kubeconfig")
        env = {**os.environ, "KUBECONFIG": str(kubeconfig), "KUBECACHEDIR": str(tmp_path / "cache")}
        proc = subprocess.run([binary, "api-resources"], capture_output=True, text=True, env=env, timeout=60)
        assert proc.returncode == 0, proc.stderr
        listed = {name for name, _ in _api_resources(proc.stdout)}
        assert "validatingadmissionpolicies" in listed  # GA in 1.30
        assert "resourceclaims" not in listed and "servicecidrs" not in listed  # GA in 1.34 and 1.33
        version = subprocess.run([binary, "version", "-o", "yaml"], capture_output=True, text=True, env=env,
                                 timeout=60)
        assert yaml.safe_load(version.stdout)["serverVersion"]["minor"] == "30"


def test_explain_a_custom_resource(kubectl, widgets) -> None:
    out = kubectl("explain", "widgets").stdout
    assert "GROUP:      example.com" in out and "KIND:       Widget" in out
    assert "spec\t<Object>" in out and "metadata\t<ObjectMeta>" in out
