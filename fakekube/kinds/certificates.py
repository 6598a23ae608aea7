"""certificates.k8s.io/v1 kinds (kubernetes ``pkg/registry/certificates/certificates/strategy.go``,
``pkg/apis/certificates/v1/defaults.go``; sources and commits in docs/semantics.md). A CSR's status starts
empty, only ``/status`` and ``/approval`` change it, and its conditions default to ``status: "True"``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, required
from fakekube.kinds.checks import mapping, seq
from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy


class CertificateSigningRequestStrategy(BuiltinStrategy):
    initial_status = {}

    def default(self, obj: dict[str, Any]) -> None:
        for condition in seq(mapping(obj.get("status")).get("conditions")):
            if isinstance(condition, dict) and not condition.get("status"):
                condition["status"] = "True"

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = mapping(obj.get("spec"))
        errs: list[FieldError] = []
        if not spec.get("request"):
            errs.append(required("spec.request", ""))
        if not spec.get("signerName"):
            errs.append(required("spec.signerName", ""))
        return errs


class PodCertificateRequestStrategy(BuiltinStrategy):
    initial_status = {}
    status_keeps = RESET_META_FOR_STATUS


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "CertificateSigningRequest": CertificateSigningRequestStrategy,
    "PodCertificateRequest": PodCertificateRequestStrategy,
}
