"""Signer names and the PodCertificateRequest's create checks (kubernetes ``pkg/apis/core/validation/names.go``
``ValidateSignerName``, ``pkg/apis/certificates/validation/validation.go`` ``ValidatePodCertificateRequestCreate``
at v1.37.2; sources in docs/semantics.md). The stub PKCS#10 request and the PKIX key are not parsed: only their
presence is checked."""

from __future__ import annotations

from typing import Any

from fakekube.errors import FieldError, invalid, required, too_long
from fakekube.gotext import go_quote
from fakekube.kinds.checks import dns_subdomain, is_int, mapping
from fakekube.namerules import is_dns1123_label, is_dns1123_subdomain

_MIN_EXPIRATION = 3600  # certificates.MinMaxExpirationSeconds
_KUBE_MAX_EXPIRATION = 24 * 3600  # KubernetesMaxMaxExpirationSeconds
_MAX_EXPIRATION = 91 * 24 * 3600  # MaxMaxExpirationSeconds
_UID_MAX = 128
_SIGNER_MAX = 253 + (253 + 63 + 1) + 1


def is_kubernetes_signer(name: str) -> bool:
    host = name.split("/", 1)[0]
    return host == "kubernetes.io" or host.endswith(".kubernetes.io")


def signer_name(name: Any, path: str) -> list[FieldError]:
    """``ValidateSignerName``: ``example.com/signer-name``, each domain label an RFC 1123 label, each path part a
    subdomain; the first bad label of each half is reported, then stop."""
    name = name if isinstance(name, str) else ""
    if not name:
        return [required(path, "")]
    parts = name.split("/")
    if len(parts) != 2:
        return [invalid(path, name, "must be a fully qualified domain and path of the form "
                                    "'example.com/signer-name'")]
    domain, rest = parts
    errs: list[FieldError] = []
    if len(domain) > 253:
        errs.append(too_long(path, 253))
    labels = domain.split(".")
    for label in labels:
        msgs = is_dns1123_label(label)
        if msgs:
            errs.extend(invalid(path, domain, f"validating label {go_quote(label)}: {m}") for m in msgs)
            break
    if len(labels) < 2:
        errs.append(invalid(path, domain, "should be a domain with at least two segments separated by dots"))
    for label in rest.split("."):
        msgs = is_dns1123_subdomain(label)
        if msgs:
            errs.extend(invalid(path, rest, f"validating label {go_quote(label)}: {m}") for m in msgs)
            break
    if len(name) > _SIGNER_MAX:
        errs.append(too_long(path, _SIGNER_MAX))
    return errs


def _uid(spec: dict[str, Any], key: str) -> list[FieldError]:
    value = spec.get(key)
    value = value if isinstance(value, str) else ""
    path = f"spec.{key}"
    errs = [invalid(path, value, "must not be empty")] if not value else []
    if len(value) > _UID_MAX:
        errs.append(too_long(path, _UID_MAX))
    return errs


def validate_pod_certificate_request(obj: dict[str, Any]) -> list[FieldError]:
    """``ValidatePodCertificateRequestCreate`` after the metadata: signer, pod, service account and node
    identities, the expiration bound (a day for kubernetes.io signers, 91 days otherwise), then exactly one of
    the stub request or the key with its proof of possession."""
    spec = mapping(obj.get("spec"))
    signer = spec.get("signerName") if isinstance(spec.get("signerName"), str) else ""
    errs = signer_name(signer, "spec.signerName")
    for name_key, uid_key in (("podName", "podUID"), ("serviceAccountName", "serviceAccountUID"),
                              ("nodeName", "nodeUID")):
        value = spec.get(name_key)
        errs.extend(dns_subdomain(value if isinstance(value, str) else "", f"spec.{name_key}"))
        errs.extend(_uid(spec, uid_key))
    expiration = spec.get("maxExpirationSeconds")
    if not is_int(expiration):
        errs.append(required("spec.maxExpirationSeconds", "must be set"))
        return errs
    upper = _KUBE_MAX_EXPIRATION if is_kubernetes_signer(signer) else _MAX_EXPIRATION
    if not _MIN_EXPIRATION <= expiration <= upper:
        errs.append(invalid("spec.maxExpirationSeconds", expiration,
                            f"must be in the range [{_MIN_EXPIRATION}, {upper}]"))
    stub, key, proof = spec.get("stubPKCS10Request"), spec.get("pkixPublicKey"), spec.get("proofOfPossession")
    if not ((stub and not key and not proof) or (not stub and key and proof)):
        errs.append(FieldError("FieldValueInvalid", "spec", "exactly one of (stubPKCS10Request) or "
                                                            "(pkixPublicKey, proofOfPossession) must be set"))
    return errs


def default_pod_certificate_request(obj: dict[str, Any]) -> None:
    """The ``+default=86400`` of ``maxExpirationSeconds`` (``zz_generated.defaults.go``): a day's expiration bound when none is given."""
    spec = obj.get("spec")
    if spec is None:
        spec = obj["spec"] = {}  # a non-pointer struct: defaulted even when the body has none
    if isinstance(spec, dict) and spec.get("maxExpirationSeconds") is None:
        spec["maxExpirationSeconds"] = _KUBE_MAX_EXPIRATION
