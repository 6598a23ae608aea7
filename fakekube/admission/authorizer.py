"""The ``authorizer`` CEL variable of admission policies: the request's user asking the server's authorizer.

After k8s.io/apiserver ``pkg/cel/library/authz.go`` (v0.37.2): ``authorizer.group(g).resource(r)``,
``.subresource(s)``, ``.namespace(n)``, ``.name(n)``, ``authorizer.path(p)``, ``.check(verb)`` giving a
decision with ``allowed()``, ``reason()``, ``errored()``, ``error()``; ``authorizer.serviceAccount(ns, name)``
asks for a service account instead; ``authorizer.requestResource`` is the check of the request's own resource.
The authorizer asked is the store's (``Store.authorizer``, what ``fakekube serve --authorization-mode`` enforces;
none allows everything, as AlwaysAllow). Its decisions carry no reason text (fakekube's authorizers answer a
yes or a no), so ``reason()`` is empty.

As ``fakekube.cel.k8slib`` does for URLs and IPs, each of these types is a container of a type no Kubernetes
object holds (a map keyed by bool or int), the value JSON text inside: the type checker tells them apart and
from the data.
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cel_expr_python import cel

from fakekube.identity import RequestAttributes

T = cel.Type
AUTHORIZER, PATH_CHECK, GROUP_CHECK = T.Map(T.BOOL, T.STRING), T.Map(T.BOOL, T.BYTES), T.Map(T.INT, T.BYTES)
# cel-cpp dispatches a call by its arguments' kinds (map, list...), so the two receivers of ``check`` are a map
# (a path check) and a list (a resource check).
RESOURCE_CHECK, DECISION = T.List(T.Map(T.BOOL, T.BYTES)), T.Map(T.INT, T.List(T.STRING))

_current: contextvars.ContextVar[Any] = contextvars.ContextVar("fakekube_policy_authorizer", default=None)


@contextmanager
def authorizing(authorizer: Any) -> Iterator[None]:
    """Checks made while evaluating ask ``authorizer`` (a ``fakekube.identity.Authorizer``; None allows all)."""
    token = _current.set(authorizer)
    try:
        yield
    finally:
        _current.reset(token)


def authorizer_value(user: str, groups: tuple[str, ...], uid: str = "",
                     extra: dict[str, list[str]] | None = None) -> dict[bool, str]:
    return {True: json.dumps({"user": user, "groups": list(groups), "uid": uid, "extra": extra or {}})}


def _resource_check(fields: dict[str, Any]) -> list[dict[bool, bytes]]:
    return [{True: json.dumps(fields).encode()}]


def resource_check_value(authz: dict[bool, str], group: str, resource: str, subresource: str, namespace: str,
                         name: str) -> list[dict[bool, bytes]]:
    """``authorizer.requestResource``."""
    return _resource_check({**json.loads(authz[True]), "group": group, "resource": resource,
                            "subresource": subresource, "namespace": namespace, "name": name})


def _load(value: Any) -> dict[str, Any]:
    if isinstance(value, list):
        value = value[0]
    return json.loads(value[True] if True in value else value[0])


def _with(check: list[dict[bool, bytes]], key: str, text: str) -> list[dict[bool, bytes]]:
    return _resource_check({**_load(check), key: text})


def _decide(fields: dict[str, Any], verb: str, resource_request: bool) -> dict[int, list[str]]:
    authorizer = _current.get()
    attrs = RequestAttributes(
        user=fields["user"], verb=verb, group=fields.get("group", ""), resource=fields.get("resource", ""),
        subresource=fields.get("subresource") or None, namespace=fields.get("namespace") or None,
        name=fields.get("name") or None, groups=tuple(fields.get("groups") or ()), uid=fields.get("uid", ""),
        path=fields.get("path", ""), resource_request=resource_request,
        extra={k: tuple(v) for k, v in (fields.get("extra") or {}).items()})
    allowed = True if authorizer is None else bool(authorizer(attrs))
    return {0: ["true" if allowed else "false", "", ""]}


def _service_account(authz: dict[bool, str], namespace: str, name: str) -> dict[bool, str]:
    return authorizer_value(f"system:serviceaccount:{namespace}:{name}",
                            ("system:serviceaccounts", f"system:serviceaccounts:{namespace}"))


def _member(name: str, overload: str, result: Any, params: list[Any], impl: Any) -> Any:
    return cel.FunctionDecl(name, [cel.Overload(overload, result, params, is_member=True, impl=impl)])


def functions() -> list[Any]:
    s = T.STRING
    return [
        _member("path", "authorizer_path", PATH_CHECK, [AUTHORIZER, s],
                lambda a, p: {True: json.dumps({**_load(a), "path": p}).encode()}),
        _member("group", "authorizer_group", GROUP_CHECK, [AUTHORIZER, s],
                lambda a, g: {0: json.dumps({**_load(a), "group": g}).encode()}),
        _member("serviceAccount", "authorizer_serviceaccount", AUTHORIZER, [AUTHORIZER, s, s], _service_account),
        _member("resource", "groupcheck_resource", RESOURCE_CHECK, [GROUP_CHECK, s],
                lambda g, r: _resource_check({**_load(g), "resource": r})),
        _member("subresource", "resourcecheck_subresource", RESOURCE_CHECK, [RESOURCE_CHECK, s],
                lambda c, v: _with(c, "subresource", v)),
        _member("namespace", "resourcecheck_namespace", RESOURCE_CHECK, [RESOURCE_CHECK, s],
                lambda c, v: _with(c, "namespace", v)),
        _member("name", "resourcecheck_name", RESOURCE_CHECK, [RESOURCE_CHECK, s], lambda c, v: _with(c, "name", v)),
        cel.FunctionDecl("check", [
            cel.Overload("pathcheck_check", DECISION, [PATH_CHECK, s], is_member=True,
                         impl=lambda c, verb: _decide(_load(c), verb, False)),
            cel.Overload("resourcecheck_check", DECISION, [RESOURCE_CHECK, s], is_member=True,
                         impl=lambda c, verb: _decide(_load(c), verb, True))]),
        _member("allowed", "decision_allowed", T.BOOL, [DECISION], lambda d: d[0][0] == "true"),
        _member("reason", "decision_reason", s, [DECISION], lambda d: d[0][1]),
        _member("errored", "decision_errored", T.BOOL, [DECISION], lambda d: bool(d[0][2])),
        _member("error", "decision_error", s, [DECISION], lambda d: d[0][2]),
    ]
