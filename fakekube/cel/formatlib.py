"""Kubernetes' format CEL library (in the base environment from v1.31), for cel-expr-python.

After k8s.io/apiserver ``pkg/cel/library/format.go`` and ``pkg/cel/format.go`` (v0.37.2): ``format.<name>()``
for each named format, ``format.named(name)`` (an optional format, none for an unknown name) and
``<format>.validate(text)`` (none when ``text`` is valid, else an optional list of error messages). The
validators are fakekube.namerules' (k8s.io/apimachinery ``NameIsDNSLabel``..., ``IsQualifiedName``,
``IsValidLabelValue``), Go's ``url.ParseRequestURI`` as fakekube.cel.k8slib reads URLs, and kube-openapi
``strfmt``'s ``uuid``, ``byte``, ``date`` and ``datetime`` checks (k8s.io/kube-openapi
``pkg/validation/strfmt``, the version v0.37.2 builds with).

A format is ``map(bool, string)`` holding its name (a type no CRD value has; equal formats are equal maps, as
upstream compares names). cel-expr-python cannot return an optional from a Python function, so
``format.named`` and ``validate`` return a list of zero or one element and :func:`rewrite` appends ``[?0]`` to
each call before the expression is compiled (an optional index: the element if there is one). Each character
of the rewritten text remembers where it came from, so compile errors keep the source's columns.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from cel_expr_python import cel

from fakekube import namerules
from fakekube.cel import k8slib
from fakekube.cel.sourcemap import Builder, Rewritten, Token, closing, tokens

T = cel.Type
FORMAT = T.Map(T.BOOL, T.STRING)
_UUID = re.compile(r"(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})")
_TIME = re.compile(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


def _is_date(text: str) -> bool:
    # time.Parse("2006-01-02", text): exact digits, a real day of a real month
    m = _DATE.fullmatch(text)
    if m is None:
        return False
    try:
        date(int(m.group(1)) or 2000,  # Go has a year 0, a leap year
             int(m.group(2)), int(m.group(3)))
    except ValueError:
        return False
    return True


def _is_datetime(text: str) -> bool:
    # strfmt.IsDateTime: split the lower-cased text at each "t"; the first piece a date, the second a time
    if len(text) < 4:
        return False
    pieces = text.lower().split("t")
    if len(pieces) < 2 or not _is_date(pieces[0]):
        return False
    m = _TIME.fullmatch(pieces[1])  # DateTimePattern is anchored with ^...$; later pieces are not read
    if m is None:
        return False
    return m.group(1) <= "23" and m.group(2) <= "59" and m.group(3) <= "59"


def _check(ok: Callable[[str], bool], message: str) -> Callable[[str], list[str]]:
    return lambda text: [] if ok(text) else [message]


def _uri(text: str) -> list[str]:
    problem = k8slib.url_problem(text)
    return [] if problem is None else [problem]


# format.go ConstantFormats: the CEL name, the name a format carries, its validator
_FORMATS: dict[str, tuple[str, Callable[[str], list[str]]]] = {
    "dns1123Label": ("DNS1123Label", lambda s: namerules.name_is_dns_label(s, False)),
    "dns1123Subdomain": ("DNS1123Subdomain", lambda s: namerules.name_is_dns_subdomain(s, False)),
    "dns1035Label": ("DNS1035Label", lambda s: namerules.name_is_dns1035_label(s, False)),
    "qualifiedName": ("QualifiedName", namerules.is_qualified_name),
    "dns1123LabelPrefix": ("DNS1123LabelPrefix", lambda s: namerules.name_is_dns_label(s, True)),
    "dns1123SubdomainPrefix": ("DNS1123SubdomainPrefix", lambda s: namerules.name_is_dns_subdomain(s, True)),
    "dns1035LabelPrefix": ("DNS1035LabelPrefix", lambda s: namerules.name_is_dns1035_label(s, True)),
    "labelValue": ("LabelValue", namerules.is_valid_label_value),
    "uri": ("URI", _uri),
    "uuid": ("uuid", _check(lambda s: _UUID.fullmatch(s) is not None, "does not match the UUID format")),
    "byte": ("byte", _check(lambda s: _BASE64.fullmatch(s) is not None, "invalid base64")),
    "date": ("date", _check(_is_date, "invalid date")),
    "datetime": ("datetime", _check(_is_datetime, "invalid datetime")),
}
_BY_NAME = {name: check for name, check in _FORMATS.values()}


def validate(format_name: str, text: str) -> list[str]:
    """The errors of ``text`` in the named format (its ``Name``, ``DNS1123Label``...); [] when valid."""
    return list(_BY_NAME[format_name](text))


def _named(name: str) -> list[dict[bool, str]]:
    known = _FORMATS.get(name)
    return [] if known is None else [{True: known[0]}]


def _validate(fmt: dict[bool, str], text: str) -> list[list[str]]:
    errors = validate(fmt[True], text)
    return [errors] if errors else []


def functions() -> list[Any]:
    """The declarations for ``cel.NewEnv(functions=...)``; the expressions go through :func:`rewrite`."""
    out = [cel.FunctionDecl(f"format.{cel_name}", [cel.Overload(
        f"format.{cel_name}", FORMAT, [], impl=lambda name=name: {True: name})])
        for cel_name, (name, _) in _FORMATS.items()]
    out.append(cel.FunctionDecl("format.named", [cel.Overload("format-named", T.List(FORMAT), [T.STRING],
                                                              impl=_named)]))
    out.append(cel.FunctionDecl("validate", [cel.Overload("format-validate", T.List(T.List(T.STRING)),
                                                          [FORMAT, T.STRING], is_member=True, impl=_validate)]))
    return out


# ----------------------------------------------------------------------------------------- the rewrite

_SUFFIX = "[?0]"


def _optional_call(toks: list[Token], i: int) -> bool:
    kind, text, _ = toks[i]
    if kind != "ident" or i + 1 >= len(toks) or toks[i + 1][1] != "(" or i < 1 or toks[i - 1][1] != ".":
        return False
    if text == "validate":
        return True
    # format.named, not x.format.named
    return (text == "named" and i >= 2 and toks[i - 2][1] == "format"
            and (i < 3 or toks[i - 3][1] != "."))


def rewrite(source: str) -> Rewritten | None:
    """``source`` with ``[?0]`` after each ``format.named(...)`` and ``.validate(...)`` call, or None when it
    has none (then it is compiled as written)."""
    if "validate" not in source and "named" not in source:
        return None
    toks = tokens(source)
    inserts = []
    for i in range(len(toks)):
        if _optional_call(toks, i):
            j = closing(toks, i + 1)
            if j is not None:
                inserts.append(toks[j][2] + 1)
    if not inserts:
        return None
    out = Builder(source)
    pos = 0
    for at in sorted(inserts):
        out.copy(pos, at)
        out.add(_SUFFIX, at - 1)
        pos = at
    out.copy(pos, len(source))
    return out.build()


__all__ = ["FORMAT", "functions", "rewrite", "validate"]
