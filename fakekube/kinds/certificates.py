"""certificates.k8s.io/v1 kinds (kubernetes ``pkg/registry/certificates/certificates/strategy.go``,
``pkg/apis/certificates/v1/defaults.go``; sources and commits in docs/semantics.md). A CSR's status starts
empty and only ``/status`` and ``/approval`` change it. (A condition's status defaults to True only in
v1beta1's ``defaults.go``; v1, the one served, has no such default: an empty status is a 422.)

``/approval`` (v1.37.2 ``csrApprovalStrategy``) writes the conditions and the metadata, never the spec or the
rest of the status, and stamps each condition's ``lastUpdateTime`` and ``lastTransitionTime`` (the latter
kept from an old condition of the same type and status). Every update checks the conditions as
``pkg/apis/certificates/validation`` does: types and statuses present and supported, no duplicate type, no
Approved, Denied or Failed condition removed, Approved and Denied never together (the declarative rule's
message, appended last); only ``/approval`` may add an Approved or Denied condition. Not emulated: the
message for modifying one (it embeds a go-cmp diff) and the checks of ``spec.request``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube.errors import FieldError, duplicate, forbidden, invalid, not_supported, required
from fakekube.kinds.certvalidation import (
    cluster_trust_bundle_name_rule,
    validate_cluster_trust_bundle,
    validate_csr_spec,
)
from fakekube.kinds.checks import immutable, mapping, seq
from fakekube.kinds.context import WriteContext
from fakekube.kinds.signers import default_pod_certificate_request, validate_pod_certificate_request
from fakekube.strategies import RESET_META_FOR_STATUS, BuiltinStrategy, Strategy

_TRUE_ONLY = ("Approved", "Denied", "Failed")  # trueConditionTypes
_NOT_REMOVED = ("Approved", "Denied", "Failed")
_APPROVAL = ("Approved", "Denied")
_EXCLUSIVE = ('{conditions[{"type": "Approved"}], conditions[{"type": "Denied"}]}',
              'must specify at most one of: `conditions[{"type": "Approved"}]`, `conditions[{"type": "Denied"}]`')


class CertificateSigningRequestStrategy(BuiltinStrategy):
    initial_status = {}
    # csrStrategy.GetResetFields: spec and status, so a create's managedFields hold only its metadata.
    main_resets = ("spec", "status")
    # csrStatusStrategy.GetResetFields: spec and status.conditions (the approval subresource's)
    status_resets = ("status.conditions",)

    update_subresources = frozenset({"approval", "status"})

    def begin_create(self, obj: dict[str, Any], ctx: WriteContext) -> None:
        # PrepareForCreate: the requester's identity replaces whatever the client wrote, omitempty as Go
        # writes it (an empty uid, no groups, no extra: left out).
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            spec = obj["spec"] = {}
        for key in ("username", "uid", "groups", "extra"):
            spec.pop(key, None)
        user = ctx.user
        if user is None:
            return
        spec.update(user.to_json())  # the same field names, omitempty alike

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_csr_spec(mapping(obj.get("spec")))

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any]) -> None:
        # csrStrategy.PrepareForUpdate: the spec is immutable and the status is /status's and /approval's,
        # so a PUT changes the metadata alone (one that changes only those is a no-op).
        new["spec"] = old.get("spec")
        new["status"] = old.get("status")

    def prepare_for_subresource_update(self, subresource: str, new: dict[str, Any], old: dict[str, Any],
                                       ctx: WriteContext | None) -> None:
        conditions = _conditions(new)
        if subresource == "status":
            # csrStatusStrategy.PrepareForUpdate: the spec stays; Approved and Denied conditions stay as they
            # were when their number did not change (a change is refused by validation); then the stamps.
            new["spec"] = old.get("spec")
            for kind in _APPROVAL:
                _preserve_instances(conditions, _conditions(old), kind)
            if ctx is not None:
                _stamp(conditions, _conditions(old), ctx.now())
            return
        if ctx is not None:
            _stamp(conditions, _conditions(old), ctx.now())
        new["spec"] = old.get("spec")
        status = dict(mapping(old.get("status")))
        if conditions:
            status["conditions"] = conditions
        else:
            status.pop("conditions", None)
        new["status"] = status

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        new_conditions, old_conditions = _conditions(new), _conditions(old)
        old_types = [c.get("type") for c in old_conditions]
        errs: list[FieldError] = []
        seen: set[Any] = set()
        for i, condition in enumerate(new_conditions):
            path = f"status.conditions[{i}]"
            kind, status = condition.get("type"), condition.get("status")
            if not kind and "" not in old_types and None not in old_types:
                errs.append(required(f"{path}.type"))
            if not status:
                errs.append(required(f"{path}.status"))
            elif kind in _TRUE_ONLY and status != "True":
                errs.append(not_supported(f"{path}.status", status, ["True"]))
            elif status not in ("False", "True", "Unknown"):
                errs.append(not_supported(f"{path}.status", status, ["False", "True", "Unknown"]))
            if kind in seen and len(set(old_types)) == len(old_types):
                errs.append(duplicate(f"{path}.type", kind))
            seen.add(kind)
        new_types = [c.get("type") for c in new_conditions]
        for kind in _NOT_REMOVED:
            if new_types.count(kind) < old_types.count(kind):
                errs.append(forbidden("status.conditions", f'updates may not remove a condition of type "{kind}"'))
        if subresource != "approval":
            for kind in _APPROVAL:
                if new_types.count(kind) > old_types.count(kind):
                    errs.append(forbidden("status.conditions", f'updates may not add a condition of type "{kind}"'))
        both = all(kind in new_types for kind in _APPROVAL)
        if both and not all(kind in old_types for kind in _APPROVAL):
            errs.append(invalid("status.conditions", *_EXCLUSIVE))
        return errs


def _conditions(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in seq(mapping(obj.get("status")).get("conditions")) if isinstance(c, dict)]


def _preserve_instances(conditions: list[dict[str, Any]], old: list[dict[str, Any]], kind: str) -> None:
    """preserveConditionInstances: the old conditions of ``kind`` in the places the new ones of it hold."""
    new_places = [i for i, c in enumerate(conditions) if c.get("type") == kind]
    old_ones = [c for c in old if c.get("type") == kind]
    if len(new_places) == len(old_ones):
        for place, condition in zip(new_places, old_ones, strict=True):
            conditions[place] = condition


def _stamp(conditions: list[dict[str, Any]], old: list[dict[str, Any]], now: str) -> None:
    """populateConditionTimestamps."""
    for condition in conditions:
        if not condition.get("lastUpdateTime"):
            condition["lastUpdateTime"] = now
        if not condition.get("lastTransitionTime"):
            condition["lastTransitionTime"] = next(
                (o["lastTransitionTime"] for o in old if o.get("type") == condition.get("type")
                 and o.get("status") == condition.get("status") and o.get("lastTransitionTime")), now)


class PodCertificateRequestStrategy(BuiltinStrategy):
    initial_status = {}
    status_keeps = RESET_META_FOR_STATUS

    def default(self, obj: dict[str, Any]) -> None:
        default_pod_certificate_request(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_pod_certificate_request(obj)


class ClusterTrustBundleStrategy(Strategy):
    """clustertrustbundle ``strategy.go``: create and update validation; an update parses the bundle only when
    it changed, and the signer name never changes."""

    def name_rule(self, obj: dict[str, Any]) -> Callable[[str, bool], list[str]]:
        return cluster_trust_bundle_name_rule(obj)

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        return validate_cluster_trust_bundle(obj)

    def validate_update(self, new: dict[str, Any], old: dict[str, Any],
                        subresource: str | None) -> list[FieldError]:
        spec, old_spec = mapping(new.get("spec")), mapping(old.get("spec"))
        changed = spec.get("trustBundle") != old_spec.get("trustBundle")
        # ValidateClusterTrustBundle checks the whole metadata again: the name against the (new) signer.
        name = new["metadata"].get("name") or ""
        errs = [invalid("metadata.name", name, m) for m in cluster_trust_bundle_name_rule(new)(name, False)]
        errs += validate_cluster_trust_bundle(new, parse_bundle=changed)
        signer, old_signer = spec.get("signerName") or "", old_spec.get("signerName") or ""
        return [*errs, *immutable(signer, old_signer, "spec.signerName")]


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "CertificateSigningRequest": CertificateSigningRequestStrategy,
    "ClusterTrustBundle": ClusterTrustBundleStrategy,
    "PodCertificateRequest": PodCertificateRequestStrategy,
}
