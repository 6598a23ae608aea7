"""Who is asking, and what they ask to do: the user of a request and the attributes an authorizer decides on.

``UserInfo`` is apiserver's ``user.Info`` (name, uid, groups, extra). The store is told the requesting user on
the verbs that need it (the review APIs answer for it); it never enforces authorization itself — the HTTP front
does, with an :data:`Authorizer`. ``actor`` (the user agent's product, shown in the audit log) is a different
thing and stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

ANONYMOUS_NAME = "system:anonymous"
ALL_AUTHENTICATED = "system:authenticated"
ALL_UNAUTHENTICATED = "system:unauthenticated"


@dataclass(frozen=True)
class UserInfo:
    """apiserver ``pkg/authentication/user`` ``DefaultInfo``."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False, hash=False)

    def to_json(self) -> dict[str, Any]:
        """authentication.k8s.io/v1 ``UserInfo`` (empty fields omitted, as Go's ``omitempty`` does)."""
        out: dict[str, Any] = {}
        if self.name:
            out["username"] = self.name
        if self.uid:
            out["uid"] = self.uid
        if self.groups:
            out["groups"] = list(self.groups)
        if self.extra:
            out["extra"] = {k: list(v) for k, v in sorted(self.extra.items())}
        return out

    def with_authenticated_group(self) -> UserInfo:
        """``AuthenticatedGroupAdder``: every authenticated user but anonymous is in ``system:authenticated``."""
        if self.name == ANONYMOUS_NAME or ALL_AUTHENTICATED in self.groups or ALL_UNAUTHENTICATED in self.groups:
            return self
        return UserInfo(self.name, self.uid, (*self.groups, ALL_AUTHENTICATED), self.extra)


ANONYMOUS = UserInfo(ANONYMOUS_NAME, groups=(ALL_UNAUTHENTICATED,))


@dataclass(frozen=True, slots=True)
class RequestAttributes:
    """What an authorizer decides on (apiserver ``authorizer.AttributesRecord``). ``user`` is the user's name;
    its groups, uid and extra follow. A non-resource request (``resource_request=False``) has a ``path``."""

    user: str
    verb: str  # get list watch create update patch delete deletecollection (or an HTTP verb, lower-case)
    group: str
    resource: str
    subresource: str | None
    namespace: str | None
    name: str | None
    groups: tuple[str, ...] = ()
    uid: str = ""
    version: str = ""
    path: str = ""
    resource_request: bool = True
    extra: Mapping[str, tuple[str, ...]] = field(default_factory=dict, compare=False, hash=False)


Authorizer = Callable[[RequestAttributes], bool]
"""True allows; False is "no opinion", which the front answers with 403 and a review reports as not allowed."""

TokenAuthenticator = Callable[[str], "UserInfo | None"]
"""A bearer token's user, or None when the token is not one of this authenticator's."""
