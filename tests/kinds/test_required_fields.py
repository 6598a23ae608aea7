"""Required fields and per-kind checks of kinds whose validation came late, each asserting the answer observed on
kube-apiserver v1.37.2 (the differential corpus' ``*/create/without-spec*`` cases) and following kubernetes
``pkg/apis/<group>/validation/validation.go`` at v1.37.2 (sources in docs/semantics.md)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.store import Store

_SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
              "must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")


def _create_fails(kube: Store, resource: str, body: dict[str, Any], namespace: str | None = None) -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.create(resource, body, namespace)
    return [f"{c['field']}: {c['message']}" for c in caught.value.status["details"]["causes"]]


def test_pod_certificate_request_without_spec(kube: Store) -> None:
    # pkg/apis/certificates/validation ValidatePodCertificateRequestCreate; maxExpirationSeconds defaults to 86400.
    assert _create_fails(kube, "podcertificaterequests", {"metadata": {"name": "demo"}}, "default") == [
        "spec.signerName: Required value",
        f'spec.podName: Invalid value: "": {_SUBDOMAIN}',
        'spec.podUID: Invalid value: "": must not be empty',
        f'spec.serviceAccountName: Invalid value: "": {_SUBDOMAIN}',
        'spec.serviceAccountUID: Invalid value: "": must not be empty',
        f'spec.nodeName: Invalid value: "": {_SUBDOMAIN}',
        'spec.nodeUID: Invalid value: "": must not be empty',
        "spec: Invalid value: exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set"]


def test_pod_certificate_request_signer_and_expiration(kube: Store) -> None:
    spec = {"signerName": "kubernetes.io/x", "podName": "p", "podUID": "u", "serviceAccountName": "sa",
            "serviceAccountUID": "u", "nodeName": "n", "nodeUID": "u", "stubPKCS10Request": "eA==",
            "maxExpirationSeconds": 90000}
    assert _create_fails(kube, "podcertificaterequests", {"metadata": {"name": "demo"}, "spec": spec},
                         "default") == ["spec.maxExpirationSeconds: Invalid value: 90000: must be in the range "
                                        "[3600, 86400]"]
    spec.update(signerName="nodots/x", maxExpirationSeconds=3600)
    assert _create_fails(kube, "podcertificaterequests", {"metadata": {"name": "demo"}, "spec": spec},
                         "default") == ['spec.signerName: Invalid value: "nodots": should be a domain with at least '
                                        'two segments separated by dots']


def test_volume_attachment_without_spec(kube: Store) -> None:
    # storage validation ValidateVolumeAttachment; the declarative spec.attacher check comes last.
    assert _create_fails(kube, "volumeattachments", {"metadata": {"name": "va"}}) == [
        "spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName",
        f'spec.nodeName: Invalid value: "": {_SUBDOMAIN}',
        "spec.attacher: Required value"]


def test_volume_attributes_class_and_storage_capacity(kube: Store) -> None:
    assert _create_fails(kube, "volumeattributesclasses", {"metadata": {"name": "v"}, "driverName": "d"}) == [
        "parameters: Required value: must contain at least one key/value pair"]
    assert _create_fails(kube, "csistoragecapacities", {"metadata": {"name": "c"}}, "default") == [
        f'storageClassName: Invalid value: "": {_SUBDOMAIN}']


def test_admission_policies_without_spec(kube: Store) -> None:
    # admissionregistration validation: failurePolicy is defaulted even when the spec is absent.
    assert _create_fails(kube, "validatingadmissionpolicies", {"metadata": {"name": "p"}}) == [
        "spec.matchConstraints: Required value",
        "spec.validations: Required value: validations or auditAnnotations must contain at least one item",
        "spec.auditAnnotations: Required value: validations or auditAnnotations must contain at least one item"]
    assert _create_fails(kube, "mutatingadmissionpolicies", {"metadata": {"name": "p"}}) == [
        "spec.matchConstraints: Required value",
        "spec.mutations: Required value: mutations must contain at least one item",
        "spec.reinvocationPolicy: Required value"]
    assert _create_fails(kube, "validatingadmissionpolicybindings", {"metadata": {"name": "b"}}) == [
        "spec.policyName: Required value", "spec.validationActions: Required value"]
    assert _create_fails(kube, "validatingadmissionpolicybindings", {
        "metadata": {"name": "b"}, "spec": {"policyName": "p", "validationActions": ["Deny", "Warn"]}}) == [
        'spec.validationActions: Invalid value: ["Deny","Warn"]: must not contain both Deny and Warn (repeating the '
        "same validation failure information in the API response and headers serves no purpose)"]
    assert _create_fails(kube, "mutatingadmissionpolicybindings", {"metadata": {"name": "b"}}) == [
        "spec.policyName: Required value"]


def test_flow_control_without_spec(kube: Store) -> None:
    # flowcontrol validation; the v1.37.2 declarative mode rules (+k8s:modeDiscriminator) carry no detail.
    assert _create_fails(kube, "flowschemas", {"metadata": {"name": "f"}}) == [
        "spec.priorityLevelConfiguration.name: Required value: must reference a priority level"]
    assert _create_fails(kube, "prioritylevelconfigurations", {"metadata": {"name": "p"}}) == [
        "spec.type: Required value"]
    assert _create_fails(kube, "prioritylevelconfigurations", {"metadata": {"name": "p"}, "spec": {
        "limited": {"nominalConcurrencyShares": 1}}}) == ["spec.limited: Forbidden", "spec.type: Required value"]
    assert _create_fails(kube, "prioritylevelconfigurations", {"metadata": {"name": "p"}, "spec": {
        "type": "Limited"}}) == ["spec.limited: Required value"]


def test_ingress_class_service_cidr_and_controller_revision(kube: Store) -> None:
    assert _create_fails(kube, "ingressclasses", {"metadata": {"name": "i"}}) == ["spec.controller: Required value"]
    assert _create_fails(kube, "ingressclasses", {"metadata": {"name": "i"}, "spec": {"controller": "nohost"}}) == [
        'spec.controller: Invalid value: "nohost": must be a domain-prefixed path (such as "acme.io/foo")']
    assert _create_fails(kube, "servicecidrs", {"metadata": {"name": "s"}}) == [
        "spec.cidrs: Required value: at least one CIDR required"]
    assert _create_fails(kube, "controllerrevisions", {"metadata": {"name": "r"}, "revision": 1}, "default") == [
        "data: Required value: data is mandatory"]


def test_api_service_without_spec(kube: Store) -> None:
    # kube-aggregator pkg/apis/apiregistration/validation ValidateAPIService.
    assert _create_fails(kube, "apiservices", {"metadata": {"name": "v1.example.com"}, "spec": {
        "version": "v1", "groupPriorityMinimum": 100, "versionPriority": 10}}) == [
        'metadata.name: Invalid value: "v1.example.com": must be `spec.version+"."+spec.group`: "v1."']
    assert _create_fails(kube, "apiservices", {"metadata": {"name": "v1.example.com"}, "spec": {
        "version": "v1", "group": "example.com"}}) == [
        "spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
        "spec.versionPriority: Invalid value: 0: must be positive and less than 1000"]


def test_resource_slice_and_device_taint_rule_without_spec(kube: Store) -> None:
    # resource validation: validateResourceSliceSpec, validateDeviceTaint (an empty key fails both name checks).
    assert _create_fails(kube, "resourceslices", {"metadata": {"name": "s"}}) == [
        "spec.driver: Required value", "spec.pool.name: Required value",
        "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
        "spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
        "required"]
    causes = _create_fails(kube, "devicetaintrules", {"metadata": {"name": "t"}})
    assert causes[0] == 'spec.taint.key: Invalid value: "": name part must be non-empty'
    assert causes[2:] == ["spec.taint.effect: Required value"]


@pytest.mark.parametrize("version", ["autoscaling/v1", "autoscaling/v2"])
def test_hpa_without_spec(kube: Store, version: str) -> None:
    # pkg/apis/autoscaling/validation validateHorizontalPodAutoscalerSpec, then the v1.37 beta declarative
    # required/minimum tags of maxReplicas (api/autoscaling/v2/types.go), reported last; observed on
    # kube-apiserver v1.37.2 (minReplicas defaults to 1).
    body = {"apiVersion": version, "kind": "HorizontalPodAutoscaler", "metadata": {"name": "demo"}}
    assert _create_fails(kube, "horizontalpodautoscalers", body, "default") == [
        "spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`",
        "spec.scaleTargetRef.kind: Required value", "spec.scaleTargetRef.name: Required value",
        'spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group',
        "spec.maxReplicas: Required value"]


def test_hpa_negative_max_replicas_is_a_declarative_minimum(kube: Store) -> None:
    spec = {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "maxReplicas": -1,
            "minReplicas": 0}
    body = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "demo"},
            "spec": spec}
    assert _create_fails(kube, "horizontalpodautoscalers", body, "default") == [
        "spec.maxReplicas: Invalid value: -1: must be greater than or equal to `minReplicas`",
        "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
        "spec.maxReplicas: Invalid value: -1: must be greater than or equal to 1"]
