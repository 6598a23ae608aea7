"""Who is asking: the audit actor (from the User-Agent), authentication and the optional authorizer.

Authentication follows kube-apiserver's union of request authenticators (kubernetes
``pkg/kubeapiserver/authenticator/config.go``): a verified client certificate first (user = CN, groups = O,
``x509.CommonNameUserConversion``), then a bearer token the store knows — a static token (``--token``) or a
service-account token it issued — and every authenticated user but anonymous is in ``system:authenticated``.
A bearer token nobody issued is 401 ``Unauthorized`` whatever the mode, as the union authenticator answers when
every authenticator failed (an empty ``Bearer`` or another scheme is no credential: the request is anonymous).
Without static tokens the plain-HTTP server is open, as a test fake should be: a request without credentials
is ``system:anonymous`` and may do anything. With static tokens, a request without one (and no certificate)
gets the real server's 401. Over TLS, or with an authorizer, anonymous requests get only what RBAC grants
``system:anonymous`` and ``system:unauthenticated`` — with the bootstrap policy, ``system:public-info-viewer``'s
health and version paths — and a 403 elsewhere, paths included (``forbidden: User "system:anonymous" cannot get
path "/api"``, observed on kube-apiserver v1.37.2). An ``Authorizer`` may deny resource requests with its 403.
Discovery (``/version``, ``/api*``, ``/openapi*``, health) stays open to any authenticated user, as
``system:discovery`` grants upstream.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from fakekube import errors
from fakekube.audit.context import actor_from_user_agent
from fakekube.identity import ANONYMOUS, Authorizer, RequestAttributes, UserInfo
from fakekube.tokens import CREDENTIAL_ID_KEY

if TYPE_CHECKING:
    from fakekube.store import Store

__all__ = ["PUBLIC_INFO_PATHS", "Authenticator", "Authorizer", "RequestAttributes", "actor_from_user_agent",
           "forbidden", "granted_to_every_user", "path_attributes", "path_granted", "path_forbidden", "user_from_certificate"]


def user_from_certificate(subject: Any, der: bytes) -> UserInfo | None:
    """A verified client certificate's user (``ssl.getpeercert()``'s subject and the DER bytes): the
    CommonName, the Organizations as groups, and the certificate's SHA-256 as its credential id."""
    names: list[str] = []
    organizations: list[str] = []
    for rdn in subject or ():
        for key, value in rdn:
            if key == "commonName":
                names.append(value)
            elif key == "organizationName":
                organizations.append(value)
    if not names or not names[0]:
        return None
    credential = "X509SHA256=" + hashlib.sha256(der).hexdigest()
    return UserInfo(names[0], groups=tuple(organizations), extra={CREDENTIAL_ID_KEY: (credential,)})


class Authenticator:
    """Requests → users. ``tokens`` (token → user name or UserInfo) are the static tokens; they go to the
    store's token authority, so TokenReview knows them too, and make credentials required."""

    def __init__(self, store: Store, tokens: Mapping[str, str | UserInfo] | None = None) -> None:
        self.store = store
        self.required = bool(tokens)
        for token, user in (tokens or {}).items():
            store.tokens.static[token] = user if isinstance(user, UserInfo) else UserInfo(user)

    @property
    def enabled(self) -> bool:
        return self.required

    def authenticate(self, authorization: str | None, certificate: UserInfo | None = None) -> UserInfo:
        """The user of a request: its certificate's, else its bearer token's; anonymous or 401 otherwise."""
        if certificate is not None:
            return certificate.with_authenticated_group()
        scheme, _, token = (authorization or "").partition(" ")
        token = token.strip()
        if scheme.lower() == "bearer" and token:
            user = self.store.tokens.authenticate(token)
            if user is None:
                raise errors.Unauthorized()
            return user
        if self.required:
            raise errors.Unauthorized()
        return ANONYMOUS


# What the bootstrap ClusterRole system:basic-user grants every authenticated user: asking about themselves
# (kubernetes plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go). The front allows it whatever the
# authorizer says, as it leaves discovery open.
_SELF_REVIEWS = frozenset({("authorization.k8s.io", "selfsubjectaccessreviews"),
                           ("authorization.k8s.io", "selfsubjectrulesreviews"),
                           ("authentication.k8s.io", "selfsubjectreviews")})


def granted_to_every_user(attrs: RequestAttributes) -> bool:
    """True for what any authenticated user may do without the authorizer's say (system:basic-user)."""
    return (attrs.verb == "create" and (attrs.group, attrs.resource) in _SELF_REVIEWS
            and "system:authenticated" in attrs.groups)


# system:public-info-viewer, bound to system:unauthenticated by the bootstrap policy (kubernetes
# plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go): what an anonymous request may read even where the
# store holds no bootstrap policy.
PUBLIC_INFO_PATHS = frozenset({"/healthz", "/livez", "/readyz", "/version", "/version/"})

# system:discovery, bound to system:authenticated: GET on discovery, OpenAPI and health paths. Other paths
# (/metrics, /logs, an unknown path) need a role that grants them, as upstream (a 403 before the 404).
_DISCOVERY_URLS = ("/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz",
                   "/version", "/version/")


def path_granted(attrs: RequestAttributes) -> bool:
    """True for the paths the bootstrap policy opens to the request's user whatever the store holds:
    system:public-info-viewer's to everyone, system:discovery's to authenticated users."""
    if attrs.verb != "get":
        return False
    if attrs.path in PUBLIC_INFO_PATHS:
        return True
    return "system:authenticated" in attrs.groups and any(
        attrs.path == url or (url.endswith("*") and attrs.path.startswith(url[:-1])) for url in _DISCOVERY_URLS)


def path_attributes(user: UserInfo, method: str, path: str) -> RequestAttributes:
    """A non-resource request's attributes: the lower-case HTTP method as the verb (apiserver RequestInfo)."""
    return RequestAttributes(user.name, method.lower(), "", "", None, None, None, groups=user.groups, uid=user.uid,
                             path=path, resource_request=False, extra=user.extra)


def _sanitize(text: str) -> str:
    """responsewriters' ``sanitizer``: the "User ... cannot ..." part is HTML-escaped (observed on kube-apiserver
    v1.37.2 for an impersonated user named ``a<b>&c``), the resource, name and reason are not."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def path_forbidden(attrs: RequestAttributes, reason: str = "") -> errors.Forbidden:
    """apiserver ``responsewriters.Forbidden`` for a non-resource request (empty details)."""
    message = "forbidden: " + _sanitize(f'User "{attrs.user}" cannot {attrs.verb} path "{attrs.path}"')
    return errors.Forbidden(message + (f": {reason}" if reason else ""), {})


def forbidden(attrs: RequestAttributes, reason: str = "") -> errors.Forbidden:
    """The RBAC denial message of the real server (``<resource> is forbidden: User ... cannot ...``), the
    authorizer's reason after a colon when it gave one (apiserver ``responsewriters.Forbidden``)."""
    resource = attrs.resource + (f"/{attrs.subresource}" if attrs.subresource else "")
    # the Status names the group-resource without the subresource (``pods "x" is forbidden: ... "pods/log"``)
    shown = f"{attrs.resource}.{attrs.group}" if attrs.group else attrs.resource
    if attrs.name:
        shown += f' "{attrs.name}"'
    where = f' in the namespace "{attrs.namespace}"' if attrs.namespace else " at the cluster scope"
    message = f"{shown} is forbidden: " + _sanitize(f'User "{attrs.user}" cannot {attrs.verb} resource "{resource}" '
                                                     f'in API group "{attrs.group}"{where}')
    if reason:
        message += f": {reason}"
    details = {"name": attrs.name or "", "group": attrs.group, "kind": attrs.resource}
    return errors.Forbidden(message, details)
