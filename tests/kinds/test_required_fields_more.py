"""Create checks of more kinds, each asserting the answer observed on kube-apiserver v1.37.2 (the differential
corpus' ``*/create/without-*``, ``invalid-name`` and ``no-name`` cases) and following kubernetes
``pkg/apis/<group>/validation`` and ``pkg/registry/<group>/<resource>/strategy.go`` at v1.37.2 (sources in
docs/semantics.md)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube import errors
from fakekube.ipstrings import ip_errors
from fakekube.store import Store

_PARENT = {"group": "", "resource": "services", "namespace": "default", "name": "demo"}


def _create_fails(kube: Store, resource: str, body: dict[str, Any], namespace: str | None = None) -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.create(resource, body, namespace)
    return [f"{c['field']}: {c['message']}" for c in caught.value.status["details"]["causes"]]


def _update_fails(kube: Store, resource: str, body: dict[str, Any], namespace: str | None = None) -> list[str]:
    with pytest.raises(errors.Invalid) as caught:
        kube.update(resource, body, namespace)
    return [f"{c['field']}: {c['message']}" for c in caught.value.status["details"]["causes"]]


def test_a_limit_range_without_a_name_is_named_by_a_uuid(kube: Store) -> None:
    # limitrange strategy.go PrepareForCreate: no 422 for the missing name, a fresh UUID instead.
    made = kube.create("limitranges", {"metadata": {}, "spec": {"limits": [{"type": "Container"}]}}, "default")
    name = made["metadata"]["name"]
    assert len(name) == 36 and name.count("-") == 4 and name != made["metadata"]["uid"]
    assert kube.get("limitranges", name, "default")["metadata"]["uid"] == made["metadata"]["uid"]
    generated = kube.create("limitranges", {"metadata": {"generateName": "lr-"}}, "default")
    assert generated["metadata"]["name"].startswith("lr-")


@pytest.mark.parametrize(("text", "errs"), [
    ("10.0.0.1", []), ("2001:db8::1", []), ("::", []),
    ("Invalid_Name", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]),
    ("1.2.3", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]),
    ("fe80::1%eth0", ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]),
    ("010.0.0.1", ["must not have leading 0s"]),
    ("::ffff:1.2.3.4", ["must not be an IPv4-mapped IPv6 address"]),
    ("2001:DB8::1", ['must be in canonical form ("2001:db8::1")']),
    ("2001:db8:0:0:0:0:0:1", ['must be in canonical form ("2001:db8::1")']),
])
def test_ip_strings(text: str, errs: list[str]) -> None:
    # apimachinery pkg/util/validation/ip.go IsValidIP (validation/ip_test.go TestIsValidIP's kinds of input).
    assert ip_errors(text) == errs


def test_ip_address_name_and_parent(kube: Store) -> None:
    assert _create_fails(kube, "ipaddresses", {"metadata": {"name": "Invalid_Name"}, "spec": {"parentRef": _PARENT}}) == [
        'metadata.name: Invalid value: "Invalid_Name": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']
    assert _create_fails(kube, "ipaddresses", {"metadata": {"name": "10.1.2.3"}}) == ["spec.parentRef: Required value"]
    assert _create_fails(kube, "ipaddresses", {"metadata": {"name": "10.1.2.3"}, "spec": {"parentRef": {
        "group": "Bad_Group", "namespace": "a/b"}}}) == [
        'spec.parentRef.group: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain must consist of lower case '
        "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
        "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        "spec.parentRef.namespace: Invalid value: \"a/b\": may not contain '/'",
        "spec.parentRef.resource: Required value", "spec.parentRef.name: Required value"]
    made = kube.create("ipaddresses", {"metadata": {"name": "10.1.2.3"}, "spec": {"parentRef": _PARENT}})
    made["spec"]["parentRef"] = {**_PARENT, "name": "other"}
    with pytest.raises(errors.Invalid) as caught:
        kube.update("ipaddresses", made)
    assert caught.value.status["message"] == (
        'IPAddress.networking.k8s.io "10.1.2.3" is invalid: spec.parentRef: Invalid value: null: field is immutable')
    made["spec"] = {}
    assert _update_fails(kube, "ipaddresses", made) == [
        "spec.parentRef: Required value", "spec.parentRef: Invalid value: null: field is immutable"]


_LABEL = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
          "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
          "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')")


def test_runtime_class_handler_and_scheduling(kube: Store) -> None:
    # node validation ValidateRuntimeClass: the scheduling checks first, then the declarative handler rules.
    assert _create_fails(kube, "runtimeclasses", {"metadata": {"name": "rc"}}) == ["handler: Required value"]
    toleration = {"key": "k", "operator": "Exists", "effect": "NoSchedule"}
    assert _create_fails(kube, "runtimeclasses", {"metadata": {"name": "rc"}, "handler": "Bad_H", "scheduling": {
        "tolerations": [toleration, toleration]}}) == [
        'scheduling.tolerations[1]: Duplicate value: {"Key":"k","Operator":"Exists","Value":"","Effect":"NoSchedule",'
        '"TolerationSeconds":null}',
        f'handler: Invalid value: "Bad_H": {_LABEL}']
    made = kube.create("runtimeclasses", {"metadata": {"name": "rc"}, "handler": "h"})
    made["handler"] = "Bad"
    assert _update_fails(kube, "runtimeclasses", made) == [
        f'handler: Invalid value: "Bad": {_LABEL}', "handler: Invalid value: null: field is immutable"]


def test_storage_version_migration_resource(kube: Store) -> None:
    # storagemigration validation: each check one error, its messages joined; the spec is immutable.
    assert _create_fails(kube, "storageversionmigrations", {"metadata": {"name": "m"}}) == [
        "spec.resource.resource: Required value: resource is required to be set"]
    causes = _create_fails(kube, "storageversionmigrations", {"metadata": {"name": "m"}, "spec": {"resource": {
        "group": "Bad_G", "resource": "Bad_R"}}})
    assert [c.split(":")[0] for c in causes] == ["spec.resource.resource", "spec.resource.group"]
    made = kube.create("storageversionmigrations", {"metadata": {"name": "m"}, "spec": {"resource": {
        "group": "apps", "resource": "deployments"}}})
    made["spec"]["resource"] = {"group": "", "resource": ""}
    assert _update_fails(kube, "storageversionmigrations", made) == [
        "spec.resource.resource: Required value: resource is required to be set",
        'spec: Invalid value: {"Resource":{"group":"","resource":""}}: field is immutable']


def _pv(name: str, **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name}, "spec": spec}


def test_persistent_volume_without_spec(kube: Store) -> None:
    # core validation ValidatePersistentVolumeSpec: capacity null is also not {"storage": ...}; a source is needed.
    assert _create_fails(kube, "persistentvolumes", _pv("pv")) == [
        "spec.accessModes: Required value", "spec.capacity: Required value",
        'spec.capacity: Unsupported value: null: supported values: "storage"',
        "spec: Required value: must specify a volume type"]
    assert _create_fails(kube, "persistentvolumes", _pv("pv", accessModes=["ReadWriteOnce"], capacity={
        "storage": "1Gi"})) == ["spec: Required value: must specify a volume type"]


def test_persistent_volume_spec_checks_in_upstream_order(kube: Store) -> None:
    # Each list observed on kube-apiserver v1.37.2 for the same body.
    assert _create_fails(kube, "persistentvolumes", _pv(
        "pv", accessModes=["ReadWriteOncePod", "ReadWriteOnce", "Bogus"], capacity={"storage": "-1Gi", "cpu": "1"},
        hostPath={"path": "/a/../b", "type": "Weird"}, nfs={"server": "s", "path": "rel"},
        persistentVolumeReclaimPolicy="Nope")) == [
        'spec.accessModes: Unsupported value: "Bogus": supported values: "ReadOnlyMany", "ReadWriteMany", '
        '"ReadWriteOnce", "ReadWriteOncePod"',
        "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
        'spec.capacity: Unsupported value: {"cpu":"1","storage":"-1Gi"}: supported values: "storage"',
        'spec.capacity[storage]: Invalid value: -1073741824: must be a valid resource quantity',
        'spec.capacity[storage]: Invalid value: "-1Gi": must be greater than zero',
        'spec.persistentVolumeReclaimPolicy: Unsupported value: "Nope": supported values: "Delete", "Recycle", '
        '"Retain"',
        "spec.hostPath.path: Invalid value: \"/a/../b\": must not contain '..'",
        'spec.hostPath.type: Unsupported value: "Weird": supported values: "", "BlockDevice", "CharDevice", '
        '"Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
        "spec.nfs: Forbidden: may not specify more than 1 volume type"]
    assert _create_fails(kube, "persistentvolumes", _pv(
        "pv", accessModes=["ReadWriteOnce"], capacity={"storage": "-500m"}, csi={"driver": "d"},
        local={"path": "/x"}, volumeAttributesClassName="")) == [
        "spec.capacity[storage]: Invalid value: -1: must be a valid resource quantity",
        'spec.capacity[storage]: Invalid value: "-500m": must be greater than zero',
        "spec.nodeAffinity: Required value: Local volume requires node affinity",
        "spec.csi: Forbidden: may not specify more than 1 volume type",
        "spec.volumeAttributesClassName: Required value: an empty string is disallowed"]
    made = kube.create("persistentvolumes", _pv("pv", accessModes=["ReadWriteOnce"], capacity={"storage": "1Gi"},
                                                csi={"driver": "d", "volumeHandle": "h"}))
    made["spec"]["volumeMode"] = "Block"
    assert _update_fails(kube, "persistentvolumes", made) == [
        'volumeMode: Invalid value: "Block": field is immutable']


def _certificate(ca: bool | None) -> str:
    """A self-signed Ed25519 certificate in PEM, with a basicConstraints extension unless ``ca`` is None."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from cryptography.x509.oid import NameOID

    key = ed25519.Ed25519PrivateKey.generate()
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "demo-ca")])
    builder = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
               .serial_number(1).not_valid_before(datetime.datetime(2026, 1, 1))
               .not_valid_after(datetime.datetime(2036, 1, 1)))
    if ca is not None:
        builder = builder.add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    return builder.sign(key, None).public_bytes(serialization.Encoding.PEM).decode()


def _bundle_fails(kube: Store, name: str, bundle: str, signer: str | None = None) -> list[str]:
    spec = {"trustBundle": bundle, **({"signerName": signer} if signer else {})}
    return _create_fails(kube, "clustertrustbundles", {"metadata": {"name": name}, "spec": spec})


def test_cluster_trust_bundle_anchors(kube: Store) -> None:
    # certificates validation validateTrustBundle; each list observed on kube-apiserver v1.37.2.
    ca, leaf, plain = _certificate(True), _certificate(False), _certificate(None)
    omitted = 'spec.trustBundle: Invalid value: "<value omitted>": '
    assert _create_fails(kube, "clustertrustbundles", {"metadata": {"name": "b"}}) == [
        omitted + "at least one trust anchor must be provided"]
    assert _bundle_fails(kube, "b", ca + ca + leaf) == [omitted + "entry 2 does not have the CA bit set"]
    assert _bundle_fails(kube, "b", plain) == [omitted + "entry 0 does not have the CA bit set"]
    with_headers = ca.replace("-----\n", "-----\nProc-Type: 4,ENCRYPTED\n\n", 1)
    assert _bundle_fails(kube, "b", with_headers + "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
                         "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") == [
        omitted + "entry 0 has PEM block headers", omitted + "entry 1 does not parse as X.509",
        omitted + "entry 2 has bad block type: PRIVATE KEY"]
    assert _bundle_fails(kube, "b", ca + "text between blocks is ignored\n" + ca) == [
        omitted + "duplicate trust anchor (indices [0 1])"]
    assert kube.create("clustertrustbundles", {"metadata": {"name": "b"}, "spec": {"trustBundle": ca}})


def test_cluster_trust_bundle_names_follow_the_signer(kube: Store) -> None:
    # core validation names.go ValidateClusterTrustBundleName; the signer is immutable, and an update checks the
    # name against the new one (observed on kube-apiserver v1.37.2).
    ca = _certificate(True)
    assert _bundle_fails(kube, "b:1", ca) == [
        'metadata.name: Invalid value: "b:1": ClusterTrustBundle without signer name must not have ":" in its name']
    assert _bundle_fails(kube, "b", ca, "example.com/s") == [
        'metadata.name: Invalid value: "b": ClusterTrustBundle for signerName example.com/s must be named with '
        'prefix example.com:s:']
    made = kube.create("clustertrustbundles", {"metadata": {"name": "example.com:s:good"}, "spec": {
        "signerName": "example.com/s", "trustBundle": ca}})
    made["spec"]["signerName"] = "other.com/s"
    assert _update_fails(kube, "clustertrustbundles", made) == [
        'metadata.name: Invalid value: "example.com:s:good": ClusterTrustBundle for signerName other.com/s must be '
        'named with prefix other.com:s:',
        'spec.signerName: Invalid value: "other.com/s": field is immutable']


def test_certificate_signing_request_spec(kube: Store) -> None:
    # certificates validation validateCertificateSigningRequest; observed on kube-apiserver v1.37.2.
    pem_error = "PEM block type must be CERTIFICATE REQUEST"
    assert _create_fails(kube, "certificatesigningrequests", {"metadata": {"name": "c"}}) == [
        f"spec.request: Invalid value: null: {pem_error}", "spec.usages: Required value",
        "spec.signerName: Required value"]
    wrong_block = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCkFBQUEKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo="
    causes = _create_fails(kube, "certificatesigningrequests", {"metadata": {"name": "c"}, "spec": {
        "request": wrong_block, "usages": ["bogus", "any", "any"], "signerName": "kubernetes.io/legacy-unknown",
        "expirationSeconds": 10}})
    assert causes[0] == f'spec.request: Invalid value: "{wrong_block}": {pem_error}'
    assert causes[1].startswith('spec.usages[0]: Unsupported value: "bogus": supported values: "any", "cert sign"')
    assert causes[2:] == [
        'spec.usages[2]: Duplicate value: "any"',
        'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via '
        "this API version",
        "spec.expirationSeconds: Invalid value: 10: may not specify a duration less than 600 seconds (10 minutes)"]


def test_crd_name_rule_runs_only_for_a_name(kube: Store) -> None:
    # apiextensions validation ValidateCustomResourceDefinition's name function: called by ValidateObjectMeta
    # for a name that is not empty; no versions is a nil slice (null). Observed on kube-apiserver v1.37.2.
    spec = {"group": "example.com", "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": "v1", "served": True, "storage": True,
                          "schema": {"openAPIV3Schema": {"type": "object"}}}]}
    assert _create_fails(kube, "customresourcedefinitions", {"metadata": {}, "spec": spec}) == [
        "metadata.name: Required value: name or generateName is required"]
    assert _create_fails(kube, "customresourcedefinitions", {"metadata": {"name": "Wrong"}, "spec": spec})[1:] == [
        'metadata.name: Invalid value: "Wrong": must be spec.names.plural+"."+spec.group']
    causes = _create_fails(kube, "customresourcedefinitions", {"metadata": {"name": "gadgets.example.com"}, "spec": {
        **spec, "versions": None}})
    assert causes[0] == "spec.versions: Invalid value: null: must have exactly one version marked as storage version"
