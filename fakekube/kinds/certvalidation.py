"""Create checks of a CertificateSigningRequest's spec and a ClusterTrustBundle (kubernetes v1.37.2
``pkg/apis/certificates/validation/validation.go`` ``validateCertificateSigningRequest``,
``ValidateClusterTrustBundle``, ``validateTrustBundle``; ``pkg/apis/core/validation/names.go``
``ValidateClusterTrustBundleName``; sources in docs/semantics.md).

A CSR's request must hold a ``CERTIFICATE REQUEST`` PEM block (the PKCS#10 inside and its signature are not
checked: that needs Go's x509 parser). A trust bundle's blocks must be header-less ``CERTIFICATE`` blocks of CA
certificates (read with :func:`fakekube.pemcerts.certificate_outline`), at least one, none twice.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from fakekube import pemcerts
from fakekube.errors import FieldError, GoLiteral, duplicate, invalid, not_supported, required, too_long
from fakekube.kinds.checks import is_int, mapping, seq
from fakekube.kinds.signers import signer_name
from fakekube.namerules import name_is_dns_subdomain

USAGES = sorted([
    "signing", "digital signature", "content commitment", "key encipherment", "key agreement", "data encipherment",
    "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth", "client auth", "code signing",
    "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing",
    "microsoft sgc", "netscape sgc"])
LEGACY_SIGNER = "kubernetes.io/legacy-unknown"
MAX_TRUST_BUNDLE = 1024 * 1024
_OMITTED = GoLiteral('"<value omitted>"')


def _request_bytes(value: Any) -> bytes | None:
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None  # the decoder refuses what is not base64 before validation


def validate_csr_spec(spec: dict[str, Any]) -> list[FieldError]:
    """``validateCertificateSigningRequest``'s spec checks on create: request, usages (required, known, no
    duplicate), signer name (not the legacy one), expiration of at least 600 s."""
    errs: list[FieldError] = []
    request = spec.get("request")
    raw = _request_bytes(request)
    block, _ = pemcerts.decode(raw or b"")
    if block is None or block.type != "CERTIFICATE REQUEST":
        # a []byte bad value: json.Marshal writes it in base64 (null when absent)
        shown: Any = GoLiteral("null") if raw is None else base64.b64encode(raw).decode()
        errs.append(invalid("spec.request", shown, "PEM block type must be CERTIFICATE REQUEST"))
    usages = seq(spec.get("usages"))
    if not usages:
        errs.append(required("spec.usages", ""))
    errs.extend(not_supported(f"spec.usages[{i}]", u, USAGES) for i, u in enumerate(usages) if u not in USAGES)
    seen: set[Any] = set()
    for i, usage in enumerate(usages):
        if usage in seen:
            errs.append(duplicate(f"spec.usages[{i}]", usage))
        seen.add(usage)
    signer = spec.get("signerName") if isinstance(spec.get("signerName"), str) else ""
    if signer == LEGACY_SIGNER:
        errs.append(invalid("spec.signerName", signer, "the legacy signerName is not allowed via this API version"))
    else:
        errs.extend(signer_name(signer, "spec.signerName"))
    expiration = spec.get("expirationSeconds")
    if is_int(expiration) and expiration < 600:
        errs.append(invalid("spec.expirationSeconds", expiration,
                            "may not specify a duration less than 600 seconds (10 minutes)"))
    return errs


def cluster_trust_bundle_name_rule(obj: dict[str, Any]) -> Any:
    """``ValidateClusterTrustBundleName(signerName)``: a bundle of a signer is named ``<signer with : for />:``
    and a subdomain; one without a signer has no ``:`` in its name."""
    signer = mapping(obj.get("spec")).get("signerName")
    signer = signer if isinstance(signer, str) else ""

    def rule(name: str, prefix: bool) -> list[str]:
        if not signer:
            if ":" in name:
                return ['ClusterTrustBundle without signer name must not have ":" in its name']
            return name_is_dns_subdomain(name, prefix)
        wanted = signer.replace("/", ":") + ":"
        if not name.startswith(wanted):
            return [f"ClusterTrustBundle for signerName {signer} must be named with prefix {wanted}"]
        return name_is_dns_subdomain(name[len(wanted):], prefix)

    return rule


def validate_trust_bundle(text: str, path: str = "spec.trustBundle") -> list[FieldError]:
    """``validateTrustBundle``: each block a header-less CA certificate; then at least one, none repeated."""
    if len(text.encode()) > MAX_TRUST_BUNDLE:
        return [too_long(path, MAX_TRUST_BUNDLE)]
    errs: list[FieldError] = []
    indices: dict[bytes, list[int]] = {}
    for i, block in enumerate(pemcerts.blocks(text.encode())):
        outline = pemcerts.certificate_outline(block.data) if block.type == "CERTIFICATE" else None
        if block.type != "CERTIFICATE":
            detail = f"entry {i} has bad block type: {block.type}"
        elif block.headers:
            detail = f"entry {i} has PEM block headers"
        elif outline is None:
            detail = f"entry {i} does not parse as X.509"
        elif not outline[0]:
            detail = f"entry {i} does not have the CA bit set"
        elif not outline[1]:
            detail = f"entry {i} has invalid basic constraints"
        else:
            indices.setdefault(block.data, []).append(i)
            continue
        errs.append(invalid(path, _OMITTED, detail))
    if errs:
        return errs
    if not indices:
        errs.append(invalid(path, _OMITTED, "at least one trust anchor must be provided"))
    for places in indices.values():  # Go walks a map here; in order of first appearance
        if len(places) > 1:
            errs.append(invalid(path, _OMITTED, f"duplicate trust anchor (indices [{' '.join(map(str, places))}])"))
    return errs


def validate_cluster_trust_bundle(obj: dict[str, Any], *, parse_bundle: bool = True) -> list[FieldError]:
    """``ValidateClusterTrustBundle`` after the metadata (whose name rule is :func:`cluster_trust_bundle_name_rule`)."""
    spec = mapping(obj.get("spec"))
    errs: list[FieldError] = []
    signer = spec.get("signerName")
    if isinstance(signer, str) and signer:
        errs.extend(signer_name(signer, "spec.signerName"))
    if parse_bundle:
        bundle = spec.get("trustBundle")
        errs.extend(validate_trust_bundle(bundle if isinstance(bundle, str) else ""))
    return errs
