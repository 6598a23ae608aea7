"""Impersonation: ``Impersonate-User``, ``-Group``, ``-Uid`` and ``-Extra-<key>`` headers, honoured for requestors
the authorizer allows, as kube-apiserver v1.37.2 does with ConstrainedImpersonation (beta, on by default; apiserver
``pkg/endpoints/filters/impersonation/constrained_impersonation.go`` and ``mode.go``).

- The headers are read after authentication: a uid, group or extra without a user name is 400 ``requested
  &user.DefaultInfo{...} without impersonating a user name`` (Go's ``%#v`` of the wanted user).
- Five modes are tried in order — ``associated-node``, ``arbitrary-node``, ``serviceaccount``, ``user-info``
  (constrained) and ``legacy`` — each only for the users it covers (a node name alone, a service account name
  alone, any other user). A constrained mode first asks for ``impersonate-on:<mode>:<verb>`` on the request's
  own attributes, then ``impersonate:<mode>`` on ``users`` (``nodes``, ``serviceaccounts``), ``uids``, ``groups``
  and ``userextras/<key>`` in ``authentication.k8s.io``; it refuses the empty group, ``system:masters`` and
  malformed extras. Legacy asks ``impersonate`` on core ``users``, ``groups``, ``serviceaccounts`` and
  ``authentication.k8s.io`` ``uids``, ``userextras``. The first mode that succeeds wins; if none does, the
  first refusal is the 403.
- The mode that last succeeded for a requestor (by name) is tried first next time (``modeIndexCache``), so which
  refusal a requestor sees can depend on what it impersonated before, as upstream. The 10-second caches of
  successful checks are not kept: a changed Role takes effect at once here.
- The user: the wanted fields, a service account's groups when none were asked, ``system:nodes`` for a node
  in a constrained mode, then ``system:authenticated`` (``system:unauthenticated`` for ``system:anonymous``)
  unless ``system:unauthenticated`` was asked. The audit event records it as ``impersonatedUser`` and a
  constrained mode's verb as ``authenticationMetadata.impersonationConstraint``.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from fakekube import errors
from fakekube.errors import invalid, required
from fakekube.gotext import go_quote
from fakekube.identity import (
    ALL_AUTHENTICATED,
    ALL_UNAUTHENTICATED,
    ANONYMOUS_NAME,
    RequestAttributes,
    UserInfo,
)
from fakekube.namerules import is_dns1123_label, is_dns1123_subdomain
from fakekube.server.auth import forbidden, path_forbidden
from fakekube.server.messages import RequestHeaders

__all__ = ["Impersonator", "WantedUser", "requested_user"]

USER_HEADER = "Impersonate-User"
UID_HEADER = "Impersonate-Uid"
GROUP_HEADER = "Impersonate-Group"
EXTRA_PREFIX = "impersonate-extra-"

AUTHN_GROUP = "authentication.k8s.io"
PRIVILEGED_GROUP = "system:masters"
NODES_GROUP = "system:nodes"
SA_PREFIX = "system:serviceaccount:"
NODE_PREFIX = "system:node:"
NODE_NAME_KEY = "authentication.kubernetes.io/node-name"
MANY_CHECKS = 4  # manyAuthorizationChecksInLoop: from this many, one wildcard check is tried first
_HTTP_PATH = re.compile(r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+")  # apimachinery httpPathFmt

Decide = Callable[[RequestAttributes], tuple[bool, str]]


@dataclass(frozen=True)
class WantedUser:
    """The headers as they came (no defaulting): ``groups``/``extra`` are None when no such header was sent."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] | None = None
    extra: dict[str, tuple[str, ...]] | None = field(default=None, compare=False)

    def go_repr(self) -> str:
        """Go's ``%#v`` of the ``*user.DefaultInfo``."""
        groups = ("[]string(nil)" if self.groups is None
                  else "[]string{" + ", ".join(go_quote(g) for g in self.groups) + "}")
        if self.extra is None:
            extra = "map[string][]string(nil)"
        else:
            extra = "map[string][]string{" + ", ".join(
                f"{go_quote(k)}:[]string{{" + ", ".join(go_quote(v) for v in self.extra[k]) + "}"
                for k in sorted(self.extra)) + "}"
        return (f"&user.DefaultInfo{{Name:{go_quote(self.name)}, UID:{go_quote(self.uid)}, Groups:{groups}, "
                f"Extra:{extra}}}")


def _path_unescape(text: str) -> str:
    """Go ``url.PathUnescape``, which leaves a malformed escape as it was (the key is kept encoded)."""
    if re.search(r"%(?![0-9A-Fa-f]{2})", text):
        return text
    return re.sub(rb"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]),
                  text.encode()).decode("utf-8", "replace")


def requested_user(headers: RequestHeaders) -> WantedUser | None:
    """The user the headers ask for, None when they ask for none; 400 for a uid, group or extra without a user
    (``processImpersonationHeaders``). Go's server trims values; the first ``Impersonate-User`` counts."""
    # One pass over the headers: most requests carry none of these, and a lookup per name costs more.
    found: dict[str, list[str]] = {}
    extra: dict[str, tuple[str, ...]] = {}
    for header, value in headers.items():
        lower = header.lower()
        if not lower.startswith("impersonate-"):
            continue
        if lower.startswith(EXTRA_PREFIX):
            key = _path_unescape(header[len(EXTRA_PREFIX):].lower())
            extra[key] = (*extra.get(key, ()), value.strip(" \t"))
        else:
            found.setdefault(lower, []).append(value.strip(" \t"))
    if not found and not extra:
        return None
    users = found.get(USER_HEADER.lower(), [])
    uids = found.get(UID_HEADER.lower(), [])
    name, uid = (users[0] if users else ""), (uids[0] if uids else "")
    group_values = found.get(GROUP_HEADER.lower())
    groups = tuple(group_values) if group_values else None
    wanted = WantedUser(name, uid, groups, extra or None)
    if not name and (uid or groups is not None or extra):
        raise errors.BadRequest(f"requested {wanted.go_repr()} without impersonating a user name")
    return wanted if name else None


def _service_account(username: str) -> tuple[str, str] | None:
    """``serviceaccount.SplitUsername``: (namespace, name) of ``system:serviceaccount:<ns>:<name>``."""
    if not username.startswith(SA_PREFIX):
        return None
    parts = username[len(SA_PREFIX):].split(":")
    if len(parts) != 2 or is_dns1123_label(parts[0]) or is_dns1123_subdomain(parts[1]):
        return None
    return parts[0], parts[1]


def _node(username: str) -> str | None:
    if not username.startswith(NODE_PREFIX):
        return None
    name = username[len(NODE_PREFIX):]
    return None if is_dns1123_subdomain(name) else name


def _only_name(wanted: WantedUser) -> bool:
    return not wanted.uid and not wanted.groups and not wanted.extra


def _extra_problem(extra: dict[str, tuple[str, ...]]) -> str | None:
    """``validateExtra``: what constrained impersonation refuses in extra keys and values."""
    for key, values in extra.items():
        if not key:
            return "impersonating the empty string key in extra is not allowed"
        problems = _domain_prefixed_path(key)
        if problems:
            text = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
            return f"impersonating an invalid key in extra is not allowed: {text}"
        if key != key.lower():
            return f"impersonating a non-lowercase key in extra is not allowed: {go_quote(key)}"
        if not values:
            return "impersonating empty values in extra is not allowed"
        if "" in values:
            return "impersonating the empty string value in extra is not allowed"
    return None


def _domain_prefixed_path(value: str) -> list[str]:
    """apimachinery ``IsDomainPrefixedPath`` on the field ``extra.key``, as error texts."""
    where = "extra.key"
    if not value:
        return [str(required(where))]
    host, _, rest = value.partition("/")
    if not host or not rest:
        return [str(invalid(where, value, 'must be a domain-prefixed path (such as "acme.io/foo")'))]
    out = [str(invalid(where, host, m)) for m in is_dns1123_subdomain(host)]
    if not _HTTP_PATH.fullmatch(rest):
        out.append(str(invalid(where, rest, f"Invalid path (regex used for validation is '{_HTTP_PATH.pattern}')")))
    return out


def _refusal(attrs: RequestAttributes, reason: str = "") -> errors.ApiError:
    return forbidden(attrs, reason) if attrs.resource_request else path_forbidden(attrs, reason)


class _Mode:
    """One mode's checks: ``verb`` is ``impersonate`` (legacy) or ``impersonate:<mode>``."""

    def __init__(self, mode: str | None) -> None:
        self.mode = mode
        self.constrained = mode is not None
        self.verb = f"impersonate:{mode}" if mode else "impersonate"
        # users and groups are core (v1) in legacy impersonation, authentication.k8s.io in the constrained modes
        self.name_group, self.name_version = (AUTHN_GROUP, "v1") if self.constrained else ("", "v1")

    def applies(self, wanted: WantedUser, requestor: UserInfo) -> bool:
        if self.mode == "associated-node":
            node = _node(wanted.name)
            return (_only_name(wanted) and node is not None and _service_account(requestor.name) is not None
                    and tuple(requestor.extra.get(NODE_NAME_KEY, ())) == (node,))
        if self.mode == "arbitrary-node":
            return _only_name(wanted) and _node(wanted.name) is not None
        if self.mode == "serviceaccount":
            return _only_name(wanted) and _service_account(wanted.name) is not None
        if self.mode == "user-info":
            return _node(wanted.name) is None and _service_account(wanted.name) is None
        return True

    def _attrs(self, requestor: UserInfo, resource: str, name: str, *, group: str | None = None,
               namespace: str | None = None, subresource: str | None = None) -> RequestAttributes:
        return RequestAttributes(requestor.name, self.verb, self.name_group if group is None else group, resource,
                                 subresource, namespace, name, groups=requestor.groups, uid=requestor.uid,
                                 version=self.name_version, extra=requestor.extra)

    def check(self, decide: Decide, wanted: WantedUser, request: RequestAttributes,
              requestor: UserInfo) -> UserInfo:
        """The impersonated user, or the Forbidden error of the first check that failed."""
        if self.constrained:
            on = replace(request, verb=f"impersonate-on:{self.mode}:{request.verb}")
            allowed, reason = decide(on)
            if not allowed:
                raise _refusal(on, reason)
        groups = list(wanted.groups or ())
        self._check_name(decide, wanted, requestor, groups)
        if wanted.uid:
            self._require(decide, self._attrs(requestor, "uids", wanted.uid, group=AUTHN_GROUP))
        if wanted.groups:
            self._check_groups(decide, requestor, list(wanted.groups))
        if wanted.extra:
            self._check_extra(decide, requestor, wanted.extra)
        if wanted.name == ANONYMOUS_NAME:
            if ALL_UNAUTHENTICATED not in groups:
                groups.append(ALL_UNAUTHENTICATED)
        elif ALL_UNAUTHENTICATED not in groups and ALL_AUTHENTICATED not in groups:
            groups.append(ALL_AUTHENTICATED)
        return UserInfo(wanted.name, wanted.uid, tuple(groups), dict(wanted.extra or {}))

    def _check_name(self, decide: Decide, wanted: WantedUser, requestor: UserInfo, groups: list[str]) -> None:
        attrs = self._attrs(requestor, "users", wanted.name)
        node = _node(wanted.name) if self.constrained else None
        if node is not None:
            attrs = replace(attrs, resource="nodes", name="*" if self.mode == "associated-node" else node)
            if wanted.groups:
                raise _refusal(attrs, "when impersonating a node, cannot impersonate groups "
                                      + _go_quoted_list(wanted.groups))
            groups[:] = [NODES_GROUP]
        account = _service_account(wanted.name)
        if account is not None:
            attrs = replace(attrs, resource="serviceaccounts", namespace=account[0], name=account[1])
            if self.constrained and wanted.groups:
                raise _refusal(attrs, "when impersonating a service account, cannot impersonate groups "
                                      + _go_quoted_list(wanted.groups))
            if not wanted.groups:
                groups[:] = ["system:serviceaccounts", f"system:serviceaccounts:{account[0]}"]
        self._require(decide, attrs)

    def _check_groups(self, decide: Decide, requestor: UserInfo, groups: list[str]) -> None:
        attrs = self._attrs(requestor, "groups", "")
        if self.constrained:
            if "" in groups:
                raise _refusal(attrs, "impersonating the empty string group is not allowed")
            if PRIVILEGED_GROUP in groups:
                raise _refusal(replace(attrs, name=PRIVILEGED_GROUP),
                               "impersonating the system:masters group is not allowed")
            if len(groups) >= MANY_CHECKS and decide(replace(attrs, name="*"))[0]:
                return
        for group in groups:
            self._require(decide, replace(attrs, name=group))

    def _check_extra(self, decide: Decide, requestor: UserInfo, extra: dict[str, tuple[str, ...]]) -> None:
        attrs = self._attrs(requestor, "userextras", "", group=AUTHN_GROUP)
        if self.constrained:
            problem = _extra_problem(extra)
            if problem is not None:
                raise _refusal(attrs, problem)
            large = len(extra) >= MANY_CHECKS or sum(len(v) for v in extra.values()) >= MANY_CHECKS
            if large and decide(replace(attrs, subresource="*", name="*"))[0]:
                return
        for key, values in extra.items():
            for value in values:
                self._require(decide, replace(attrs, subresource=key, name=value))

    @staticmethod
    def _require(decide: Decide, attrs: RequestAttributes) -> None:
        allowed, reason = decide(attrs)
        if not allowed:
            raise _refusal(attrs, reason)


def _go_quoted_list(values: tuple[str, ...]) -> str:
    """Go's ``%q`` of a ``[]string``: ``["a" "b"]``."""
    return "[" + " ".join(go_quote(v) for v in values) + "]"


@dataclass(frozen=True)
class Impersonated:
    user: UserInfo
    constraint: str  # the constrained mode's verb, empty for legacy


class Impersonator:
    """The modes, and per requestor the one that last succeeded (an LRU of 10,000 names, as upstream)."""

    def __init__(self, capacity: int = 10_000) -> None:
        self.modes = [_Mode("associated-node"), _Mode("arbitrary-node"), _Mode("serviceaccount"),
                      _Mode("user-info"), _Mode(None)]
        self.capacity = capacity
        self._last: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()  # handler threads share it

    def impersonate(self, decide: Decide, wanted: WantedUser, request: RequestAttributes,
                    requestor: UserInfo) -> Impersonated:
        """Who the request acts as; the first refusal (a Forbidden ApiError) when no mode allows it."""
        first: errors.ApiError | None = None
        with self._lock:
            cached = self._last.get(requestor.name)
        order = ([cached] if cached is not None else []) + [i for i in range(len(self.modes)) if i != cached]
        for index in order:
            mode = self.modes[index]
            if not mode.applies(wanted, requestor):
                continue
            try:
                user = mode.check(decide, wanted, request, requestor)
            except errors.ApiError as exc:
                first = first or exc
                continue
            self._remember(requestor.name, index)
            return Impersonated(user, mode.verb if mode.constrained else "")
        raise first if first is not None else errors.Forbidden("all impersonation modes failed", {})

    def _remember(self, name: str, index: int) -> None:
        with self._lock:
            self._last[name] = index
            self._last.move_to_end(name)
            while len(self._last) > self.capacity:
                self._last.popitem(last=False)
