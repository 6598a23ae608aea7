"""Who is asking: the audit actor (from the User-Agent), bearer-token authentication and optional authorization.

Without tokens the server is anonymous, as a test fake should be. With tokens, a missing or unknown token gets
the real server's 401 Status; an ``Authorizer`` may deny resource requests with its 403. Discovery
(``/version``, ``/api*``, ``/openapi*``, health) stays open to any authenticated user, as ``system:discovery``
grants upstream.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass

from fakekube import errors
from fakekube.audit.context import actor_from_user_agent


@dataclass(frozen=True, slots=True)
class RequestAttributes:
    """What an authorizer decides on (the attributes of kube-apiserver's RBAC authorizer)."""

    user: str
    verb: str  # get list watch create update patch delete deletecollection
    group: str
    resource: str
    subresource: str | None
    namespace: str | None
    name: str | None


Authorizer = Callable[[RequestAttributes], bool]
__all__ = ["Authenticator", "Authorizer", "RequestAttributes", "actor_from_user_agent", "forbidden"]


class Authenticator:
    """Bearer tokens → user names. ``tokens`` empty means anonymous access."""

    def __init__(self, tokens: dict[str, str] | None = None) -> None:
        self.tokens = dict(tokens or {})

    @property
    def enabled(self) -> bool:
        return bool(self.tokens)

    def user(self, authorization: str | None) -> str:
        if not self.tokens:
            return "system:anonymous"
        scheme, _, token = (authorization or "").partition(" ")
        if scheme.lower() == "bearer":
            token = token.strip()
            for known, user in self.tokens.items():
                if hmac.compare_digest(known.encode(), token.encode()):
                    return user
        raise errors.Unauthorized()


def forbidden(attrs: RequestAttributes) -> errors.Forbidden:
    """The RBAC denial message of the real server (``<resource> is forbidden: User ... cannot ...``)."""
    resource = attrs.resource + (f"/{attrs.subresource}" if attrs.subresource else "")
    shown = f"{resource}.{attrs.group}" if attrs.group else resource
    if attrs.name:
        shown += f' "{attrs.name}"'
    where = f' in the namespace "{attrs.namespace}"' if attrs.namespace else " at the cluster scope"
    message = (f'{shown} is forbidden: User "{attrs.user}" cannot {attrs.verb} resource "{resource}" '
               f'in API group "{attrs.group}"{where}')
    details = {"name": attrs.name or "", "group": attrs.group, "kind": attrs.resource}
    return errors.Forbidden(message, details)
