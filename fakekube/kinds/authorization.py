"""authorization.k8s.io/v1 access reviews: answered by the store's authorizer, never stored.

Each strategy is one upstream REST storage (kubernetes ``pkg/registry/authorization/<kind>/rest.go``) with its
validation (``pkg/apis/authorization/validation/validation.go``) and its attributes
(``pkg/registry/authorization/util/helpers.go``). The authorizer is ``store.authorizer``: None is
kube-apiserver's ``AlwaysAllow`` (allowed, no reason; every rule for a rules review); a function returning
False is a "no opinion" (not allowed, not denied, as RBAC answers a request it has no rule for).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fakekube import errors
from fakekube.errors import FieldError
from fakekube.identity import RequestAttributes, UserInfo
from fakekube.strategies import CreateRequest, Strategy

GROUP = "authorization.k8s.io"


def authorize(store: Any, attrs: RequestAttributes) -> tuple[bool, str]:
    """The store's authorizer's decision and its reason (``AlwaysAllow`` when it has none: no reason). An
    authorizer with a ``decide`` method (fakekube.rbac_authorizer) gives its reason; a plain function none."""
    authorizer = getattr(store, "authorizer", None)
    if authorizer is None:
        return True, ""
    decide = getattr(authorizer, "decide", None)
    return decide(attrs) if decide is not None else (bool(authorizer(attrs)), "")


def attributes_for(user: UserInfo, spec: dict[str, Any]) -> RequestAttributes:
    """``ResourceAttributesFrom`` / ``NonResourceAttributesFrom``: an empty version matches every version."""
    resource = spec.get("resourceAttributes")
    if isinstance(resource, dict):
        return RequestAttributes(
            user.name, resource.get("verb") or "", resource.get("group") or "", resource.get("resource") or "",
            resource.get("subresource") or None, resource.get("namespace") or None, resource.get("name") or None,
            groups=user.groups, uid=user.uid, version=resource.get("version") or "*", extra=user.extra,
        )
    other = spec.get("nonResourceAttributes") or {}
    return RequestAttributes(user.name, other.get("verb") or "", "", "", None, None, None, groups=user.groups,
                             uid=user.uid, path=other.get("path") or "", resource_request=False, extra=user.extra)


def _user_from_spec(spec: dict[str, Any]) -> UserInfo:
    extra = spec.get("extra") or {}
    return UserInfo(spec.get("user") or "", spec.get("uid") or "", tuple(spec.get("groups") or ()),
                    {k: tuple(v or ()) for k, v in extra.items()} if isinstance(extra, dict) else {})


def _exactly_one_attributes(spec: dict[str, Any]) -> list[FieldError]:
    resource, other = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    # v1.37.2 validation.ValidateSubjectAccessReviewSpec: one union error on spec, valued nonResourceAttributes.
    if (resource is None) == (other is None):
        # The value is the internal struct, which has no JSON tags: its Go field names, every field.
        shown = ({"Path": other.get("path") or "", "Verb": other.get("verb") or ""}
                 if isinstance(other, dict) else other)
        return [errors.invalid("spec", shown,
                               "exactly one of nonResourceAttributes or resourceAttributes must be specified")]
    return []


def _metadata_errors(meta: dict[str, Any], allowed: tuple[str, ...], detail: str) -> list[FieldError]:
    rest = {k: v for k, v in meta.items() if k not in ("managedFields", *allowed) and v not in (None, "", {}, [])}
    return [errors.invalid("metadata", errors.GoLiteral(_object_meta_json(meta)), detail)] if rest else []


# Go struct field order of ObjectMeta, OwnerReference and ManagedFieldsEntry: field.Invalid prints the struct
# as JSON, so in this order (a map's keys sorted), and the field manager's entry is in it.
_META_ORDER = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
               "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
               "ownerReferences", "finalizers", "managedFields")
_OWNER_ORDER = ("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")
_ENTRY_ORDER = ("manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource")


def _object_meta_json(meta: dict[str, Any]) -> str:
    def ordered(value: Any, order: tuple[str, ...]) -> Any:
        if not isinstance(value, dict):
            return value
        return {k: value[k] for k in (*order, *sorted(k for k in value if k not in order)) if k in value}

    out = ordered(meta, _META_ORDER)
    for key in ("labels", "annotations"):
        if isinstance(out.get(key), dict):
            out[key] = dict(sorted(out[key].items()))
    for key, order in (("ownerReferences", _OWNER_ORDER), ("managedFields", _ENTRY_ORDER)):
        if isinstance(out.get(key), list):
            out[key] = [ordered(item, order) for item in out[key]]
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False)


def _respond(obj: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
    # The request is echoed with its status; ObjectMeta's zero creationTimestamp is not written (omitzero
    # since apimachinery v0.37).
    meta = {**obj["metadata"]}
    return {"kind": obj["kind"], "apiVersion": obj["apiVersion"], "metadata": meta,
            "spec": obj.get("spec") or {}, "status": status}


def _invalid(errs: list[FieldError]) -> errors.Invalid:
    # The REST storage names the kind of the decoded internal object, whose TypeMeta is empty.
    return errors.Invalid("", GROUP, "", errs)


class _AccessReview(Strategy):
    answers_create = True
    metadata_allowed: tuple[str, ...] = ()
    metadata_detail = "must be empty"

    def validate_review(self, obj: dict[str, Any], request: CreateRequest) -> list[FieldError]:
        return _exactly_one_attributes(obj.get("spec") or {})

    def subject(self, obj: dict[str, Any], request: CreateRequest) -> UserInfo:
        return _user_from_spec(obj.get("spec") or {})

    def answer(self, obj: dict[str, Any], request: CreateRequest) -> dict[str, Any]:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            obj["spec"] = spec = {}
        errs = self.validate_review(obj, request)
        errs += _metadata_errors(obj["metadata"], self.metadata_allowed, self.metadata_detail)
        if errs:
            raise _invalid(errs)
        self.check_request(obj, request)
        allowed, reason = authorize(request.store, attributes_for(self.subject(obj, request), spec))
        return _respond(obj, {"allowed": allowed, **({"reason": reason} if reason else {})})

    def check_request(self, obj: dict[str, Any], request: CreateRequest) -> None:
        """Checks the REST storage makes after validation."""


class SubjectAccessReviewStrategy(_AccessReview):
    """``subjectaccessreview/rest.go``: may ``spec.user`` (with ``spec.groups``...) do it?"""

    def validate_review(self, obj: dict[str, Any], request: CreateRequest) -> list[FieldError]:
        spec = obj.get("spec") or {}
        errs = _exactly_one_attributes(spec)
        if not spec.get("user") and not spec.get("groups"):
            errs.append(errors.invalid("spec.user", spec.get("user") or "",
                                       "at least one of user or group must be specified"))
        return errs


class LocalSubjectAccessReviewStrategy(SubjectAccessReviewStrategy):
    """``localsubjectaccessreview/rest.go``: a SubjectAccessReview confined to the request's namespace."""

    metadata_allowed = ("namespace",)
    metadata_detail = "must be empty except for namespace"

    def validate_review(self, obj: dict[str, Any], request: CreateRequest) -> list[FieldError]:
        namespace = obj["metadata"].get("namespace") or request.namespace or ""
        if request.namespace and obj["metadata"].get("namespace") not in (None, "", request.namespace):
            raise errors.BadRequest("the namespace of the provided object does not match the namespace sent on "
                                    "the request")
        obj["metadata"]["namespace"] = namespace
        spec = obj.get("spec") or {}
        errs = super().validate_review(obj, request)
        resource = spec.get("resourceAttributes")
        if isinstance(resource, dict) and (resource.get("namespace") or "") != namespace:
            errs.append(errors.invalid("spec.resourceAttributes.namespace", resource.get("namespace") or "",
                                       "must match metadata.namespace"))
        if spec.get("nonResourceAttributes") is not None:
            errs.append(errors.invalid("spec.nonResourceAttributes", spec["nonResourceAttributes"],
                                       "disallowed on this kind of request"))
        return errs

    def check_request(self, obj: dict[str, Any], request: CreateRequest) -> None:
        if not request.namespace:
            raise errors.BadRequest("namespace is required on this type: ")


class SelfSubjectAccessReviewStrategy(_AccessReview):
    """``selfsubjectaccessreview/rest.go``: may the requesting user do it?"""

    def subject(self, obj: dict[str, Any], request: CreateRequest) -> UserInfo:
        return request.user


class SelfSubjectRulesReviewStrategy(Strategy):
    """``selfsubjectrulesreview/rest.go``: what may the requesting user do in a namespace? ``AlwaysAllow``
    lists every verb on every resource and URL; an authorizer with ``rules_for`` (RBAC) lists the rules of the
    bindings that name the user; a function authorizer cannot list its rules, so the answer is empty and
    ``incomplete``, as a webhook authorizer's is."""

    answers_create = True

    def answer(self, obj: dict[str, Any], request: CreateRequest) -> dict[str, Any]:
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        if not spec.get("namespace"):
            raise errors.BadRequest("no namespace on request")
        authorizer = getattr(request.store, "authorizer", None)
        rules_for = getattr(authorizer, "rules_for", None)
        if rules_for is not None:
            status: dict[str, Any] = rules_for(request.user, spec["namespace"]).status()
        elif authorizer is None:
            status = {
                "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
                "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
                "incomplete": False,
            }
        else:
            status = {"resourceRules": [], "nonResourceRules": [], "incomplete": True}
        # A new object: neither the request's metadata nor its spec is echoed.
        return _respond({"kind": obj["kind"], "apiVersion": obj["apiVersion"], "metadata": {}}, status)


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "SubjectAccessReview": SubjectAccessReviewStrategy,
    "LocalSubjectAccessReview": LocalSubjectAccessReviewStrategy,
    "SelfSubjectAccessReview": SelfSubjectAccessReviewStrategy,
    "SelfSubjectRulesReview": SelfSubjectRulesReviewStrategy,
}
