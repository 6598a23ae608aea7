"""authentication.k8s.io/v1: TokenRequest (``serviceaccounts/<name>/token``), TokenReview, SelfSubjectReview.

None of them is stored; each is one upstream REST storage: kubernetes
``pkg/registry/core/serviceaccount/storage/token.go`` (TokenRequest, with ``pkg/apis/authentication/validation``
and ``v1`` defaults), ``pkg/registry/authentication/tokenreview/storage.go`` and
``pkg/registry/authentication/selfsubjectreview/rest.go``. Tokens are issued and checked by the store's
:class:`fakekube.tokens.TokenAuthority`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from fakekube import errors
from fakekube.clock import rfc3339
from fakekube.strategies import CreateRequest, Strategy
from fakekube.tokens import stored

GROUP = "authentication.k8s.io"
API_VERSION = f"{GROUP}/v1"
MIN_EXPIRATION_SECONDS = 10 * 60
MAX_EXPIRATION_SECONDS = 1 << 32
DEFAULT_EXPIRATION_SECONDS = 60 * 60
# A pod-bound token asked for with kubelet's 3607 s is valid a year and warns after 3607 s
# (--service-account-extend-token-expiration, on by default; pkg/serviceaccount/claims.go).
WARN_ONLY_BOUND_EXPIRATION_SECONDS = 60 * 60 + 7
EXTENDED_EXPIRATION_SECONDS = 24 * 365 * 60 * 60


class TokenRequestStrategy(Strategy):
    """POST ``serviceaccounts/<name>/token``: a bound service-account token for ``spec.audiences`` (the API
    audiences when empty), valid ``spec.expirationSeconds`` (3600 by default, at least 600), optionally bound to
    a pod, a secret or a node."""

    answers_create = True
    body_api_version = API_VERSION
    body_kind = "TokenRequest"

    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.get("spec")
        if not isinstance(spec, dict):
            obj["spec"] = spec = {}
        if spec.get("expirationSeconds") is None:
            spec["expirationSeconds"] = DEFAULT_EXPIRATION_SECONDS

    def answer(self, obj: dict[str, Any], request: CreateRequest) -> dict[str, Any]:
        store, namespace, name = request.store, request.namespace or "", request.name or ""
        meta, spec = obj["metadata"], obj["spec"]
        for field_name, value, detail in (("name", name, "must match the service account name if specified"),
                                          ("namespace", namespace,
                                           "must match the service account namespace if specified")):
            if meta.get(field_name) and meta[field_name] != value:
                raise errors.Invalid("TokenRequest", GROUP, name,
                                     [errors.invalid(f"metadata.{field_name}", meta[field_name], detail)])
        service_account = stored(store, "serviceaccounts", namespace, name)
        if service_account is None:
            raise errors.NotFound("serviceaccounts", "", name)
        # The request names its service account by uid too (TokenRequestServiceAccountUIDValidation, on by
        # default since 1.34); the answer carries the account's uid (observed on kube-apiserver v1.37.2).
        account_uid = service_account["metadata"]["uid"]
        if meta.get("uid") and meta["uid"] != account_uid:
            raise errors.Conflict("TokenRequest", GROUP, name, f"the UID in the token request ({meta['uid']}) does not "
                                                               f"match the UID of the service account ({account_uid})")
        authority = store.tokens
        if not spec.get("audiences"):
            spec["audiences"] = list(authority.api_audiences)
        meta["name"], meta["namespace"] = meta.get("name") or name, meta.get("namespace") or namespace
        meta["uid"] = account_uid
        now = store.clock.now().replace(microsecond=0)
        meta["creationTimestamp"] = rfc3339(now)
        spec.setdefault("boundObjectRef", None)
        expiration = spec["expirationSeconds"]
        if isinstance(expiration, bool) or not isinstance(expiration, int):
            raise errors.BadRequest("spec.expirationSeconds must be an integer")
        field_errors = []
        if expiration < MIN_EXPIRATION_SECONDS:
            field_errors.append(errors.invalid("spec.expirationSeconds", expiration,
                                               "may not specify a duration less than 10 minutes"))
        if expiration > MAX_EXPIRATION_SECONDS:
            field_errors.append(errors.invalid("spec.expirationSeconds", expiration,
                                               "may not specify a duration larger than 2^32 seconds"))
        if field_errors:
            raise errors.Invalid("TokenRequest", GROUP, "", field_errors)
        bound = _bound_objects(store, namespace, name, spec.get("boundObjectRef"))
        token_seconds, warn_after = expiration, 0
        if (bound.get("pod") is not None and expiration == WARN_ONLY_BOUND_EXPIRATION_SECONDS
                and set(spec["audiences"]) <= set(authority.api_audiences)):
            token_seconds, warn_after = EXTENDED_EXPIRATION_SECONDS, expiration
        token = authority.issue(service_account, spec["audiences"], token_seconds, now, warn_after=warn_after,
                                **bound)
        obj["spec"] = {"audiences": spec["audiences"], "expirationSeconds": expiration,
                       "boundObjectRef": spec["boundObjectRef"],
                       **{k: v for k, v in spec.items() if k not in ("audiences", "expirationSeconds", "boundObjectRef")}}
        obj["status"] = {"token": token, "expirationTimestamp": rfc3339(now + timedelta(seconds=expiration))}
        return obj


def _bound_objects(store: Any, namespace: str, name: str, ref: Any) -> dict[str, Any]:
    """The pod (with its node), secret or node a ``boundObjectRef`` names, checked as upstream does."""
    if not ref:
        return {}
    if not isinstance(ref, dict):
        raise errors.BadRequest("spec.boundObjectRef must be an object")
    api_version, kind, ref_name = ref.get("apiVersion") or "", ref.get("kind") or "", ref.get("name") or ""
    group, _, version = api_version.rpartition("/")
    resources = {"Pod": "pods", "Secret": "secrets", "Node": "nodes"}
    if group or kind not in resources:
        raise errors.BadRequest(f"cannot bind token to object of type {group}/{version}, Kind={kind}")
    resource = resources[kind]
    obj = stored(store, resource, namespace, ref_name)
    if obj is None:
        raise errors.NotFound(resource, "", ref_name)
    bound: dict[str, Any] = {kind.lower(): obj}
    if kind == "Pod":
        spec = obj.get("spec") or {}
        if spec.get("serviceAccountName") != name:
            raise errors.BadRequest(f'cannot bind token for serviceaccount "{name}" to pod running with different '
                                    "serviceaccount name.")
        node_name = spec.get("nodeName")
        if node_name:
            # A node that does not exist (or is not served) still names the pod's node, without a uid.
            bound["node"] = stored(store, "nodes", "", node_name) or {"metadata": {"name": node_name}}
    uid = obj["metadata"].get("uid")
    if ref.get("uid") and ref["uid"] != uid:
        raise errors.Conflict(kind, "", ref_name,
                              f"the UID in the bound object reference ({ref['uid']}) does not match the UID in "
                              "record. The object might have been deleted and then recreated")
    return bound


class TokenReviewStrategy(Strategy):
    """Who does ``spec.token`` authenticate as, for ``spec.audiences`` (the API audiences when empty)?"""

    answers_create = True

    def answer(self, obj: dict[str, Any], request: CreateRequest) -> dict[str, Any]:
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        token = spec.get("token")
        if not token:
            raise errors.BadRequest("token is required for TokenReview in authentication")
        result = request.store.tokens.review(str(token), tuple(spec.get("audiences") or ()))
        status: dict[str, Any] = {}
        if result.user is not None:
            status = {"authenticated": True, "user": result.user.to_json(), "audiences": list(result.audiences)}
        else:
            status = {"user": {}}
        if result.error:
            status["error"] = result.error
        meta = {**obj["metadata"]}  # a zero creationTimestamp is not written (omitzero since apimachinery v0.37)
        return {"kind": obj["kind"], "apiVersion": obj["apiVersion"], "metadata": meta, "spec": spec,
                "status": status}


class SelfSubjectReviewStrategy(Strategy):
    """``kubectl auth whoami``: the requesting user as the server authenticated them."""

    answers_create = True

    def answer(self, obj: dict[str, Any], request: CreateRequest) -> dict[str, Any]:
        return {"kind": obj["kind"], "apiVersion": obj["apiVersion"],
                "metadata": {"creationTimestamp": rfc3339(request.store.clock.now())},
                "status": {"userInfo": request.user.to_json()}}


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "TokenReview": TokenReviewStrategy,
    "SelfSubjectReview": SelfSubjectReviewStrategy,
}

# Creates answered on a subresource of another group's kind: (group, kind) → {subresource: strategy}.
SUBRESOURCE_STRATEGIES: dict[tuple[str, str], dict[str, Callable[[], Strategy]]] = {
    ("", "ServiceAccount"): {"token": TokenRequestStrategy},
}
