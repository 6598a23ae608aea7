"""fakekube.server.impersonation without HTTP: reading the headers and the modes' checks (apiserver v0.37.2
pkg/endpoints/filters/impersonation/constrained_impersonation.go, mode.go)."""

from __future__ import annotations

from email.message import Message

import pytest

from fakekube import errors
from fakekube.identity import RequestAttributes, UserInfo
from fakekube.server.impersonation import Impersonator, WantedUser, requested_user


def _headers(*pairs: tuple[str, str]) -> Message:
    message = Message()
    for name, value in pairs:
        message[name] = value
    return message


def test_headers_read_as_upstream() -> None:
    assert requested_user(_headers()) is None
    assert requested_user(_headers(("Impersonate-User", ""))) is None
    wanted = requested_user(_headers(("impersonate-user", "bob"), ("Impersonate-User", "second"),
                                     ("Impersonate-Group", ""), ("IMPERSONATE-EXTRA-Example.com%2fTeam", " a "),
                                     ("Impersonate-Extra-bad%zzkey", "b")))
    assert wanted == WantedUser("bob", "", ("",))
    assert wanted is not None and wanted.extra == {"example.com/team": ("a",), "bad%zzkey": ("b",)}


def test_go_repr_quotes_as_go_does() -> None:
    assert WantedUser("", "u\"1", ("a\tb",), {"k": ("v",), "a": ("x", "y")}).go_repr() == (
        '&user.DefaultInfo{Name:"", UID:"u\\"1", Groups:[]string{"a\\tb"}, '
        'Extra:map[string][]string{"a":[]string{"x", "y"}, "k":[]string{"v"}}}')
    with pytest.raises(errors.ApiError) as caught:
        requested_user(_headers(("Impersonate-Extra-k", "")))
    assert caught.value.code == 400
    assert 'Extra:map[string][]string{"k":[]string{""}}' in caught.value.message


def _request(user: UserInfo) -> RequestAttributes:
    return RequestAttributes(user.name, "list", "", "pods", None, "default", None, groups=user.groups,
                             extra=user.extra)


def test_associated_node_mode_checks_the_wildcard_node_name() -> None:
    agent = UserInfo("system:serviceaccount:kube-system:agent", groups=("system:authenticated",),
                     extra={"authentication.kubernetes.io/node-name": ("n1",)})
    asked: list[RequestAttributes] = []

    def decide(attrs: RequestAttributes) -> tuple[bool, str]:
        asked.append(attrs)
        return True, ""

    result = Impersonator().impersonate(decide, WantedUser("system:node:n1"), _request(agent), agent)
    assert result.constraint == "impersonate:associated-node"
    assert result.user.groups == ("system:nodes", "system:authenticated")
    assert [(a.verb, a.resource, a.name) for a in asked] == [
        ("impersonate-on:associated-node:list", "pods", None), ("impersonate:associated-node", "nodes", "*")]


def test_first_refusal_wins_and_many_groups_try_a_wildcard() -> None:
    user = UserInfo("op", groups=("system:authenticated",))
    asked: list[RequestAttributes] = []

    def decide(attrs: RequestAttributes) -> tuple[bool, str]:
        asked.append(attrs)
        return attrs.verb != "impersonate" and not (attrs.resource == "groups" and attrs.name in ("*", "d")), ""

    with pytest.raises(errors.ApiError) as caught:
        Impersonator().impersonate(decide, WantedUser("bob", groups=("a", "b", "c", "d")), _request(user), user)
    assert caught.value.message.startswith('groups.authentication.k8s.io "d" is forbidden: User "op" cannot '
                                           "impersonate:user-info")
    assert [a.name for a in asked if a.resource == "groups" and a.verb == "impersonate:user-info"] == [
        "*", "a", "b", "c", "d"]


def test_mode_memory_is_bounded() -> None:
    impersonator = Impersonator(capacity=2)
    for name in ("a", "b", "c"):
        user = UserInfo(name)
        impersonator.impersonate(lambda _: (True, ""), WantedUser("bob"), _request(user), user)
    assert list(impersonator._last) == ["b", "c"]
