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
from dataclasses import dataclass
from datetime import date
from typing import Any

from cel_expr_python import cel

from fakekube import namerules
from fakekube.cel import k8slib

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

_TOKEN = re.compile(r"""
    (?P<comment>//[^\n]*)
  | (?P<string>[rRbB]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>\d[\w.]*)
  | (?P<space>\s+)
  | (?P<punct>.)
""", re.VERBOSE | re.DOTALL)
_SUFFIX = "[?0]"


@dataclass
class Rewritten:
    text: str
    origin: list[int]  # for each character of ``text``, the offset in the source it stands for

    def source_offset(self, line: int, column: int) -> int:
        """The source offset of the rewritten text's 1-based ``line`` and ``column``."""
        lines = self.text.split("\n")
        offset = sum(len(x) + 1 for x in lines[:line - 1]) + column - 1
        if not self.origin:
            return 0
        return self.origin[min(max(offset, 0), len(self.origin) - 1)]


def _tokens(text: str) -> list[tuple[str, str, int]]:
    return [(m.lastgroup or "punct", m.group(), m.start()) for m in _TOKEN.finditer(text)
            if m.lastgroup not in ("space", "comment")]


def _closing(toks: list[tuple[str, str, int]], i: int) -> int | None:
    """The index of the token closing the bracket at ``toks[i]``."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j][0] == "punct" and toks[j][1] in "([{":
            depth += 1
        elif toks[j][0] == "punct" and toks[j][1] in ")]}":
            depth -= 1
            if depth == 0:
                return j
    return None


def _optional_call(toks: list[tuple[str, str, int]], i: int) -> bool:
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
    toks = _tokens(source)
    inserts = []
    for i in range(len(toks)):
        if _optional_call(toks, i):
            j = _closing(toks, i + 1)
            if j is not None:
                inserts.append(toks[j][2] + 1)
    if not inserts:
        return None
    text: list[str] = []
    origin: list[int] = []
    pos = 0
    for at in sorted(inserts):
        text.append(source[pos:at])
        origin.extend(range(pos, at))
        text.append(_SUFFIX)
        origin.extend([at - 1] * len(_SUFFIX))
        pos = at
    text.append(source[pos:])
    origin.extend(range(pos, len(source)))
    return Rewritten("".join(text), origin)


_ERROR = re.compile(r"ERROR: <input>:(\d+):(\d+): (.*?)\n \| [^\n]*\n \| [.]*\^", re.DOTALL)


def map_errors(text: str, rewritten: Rewritten, source: str) -> str:
    """The compiler's issues on the rewritten text at the source's lines and columns, with its lines."""
    def fix(m: re.Match[str]) -> str:
        offset = rewritten.source_offset(int(m.group(1)), int(m.group(2)))
        line_start = source.rfind("\n", 0, offset) + 1
        line_end = source.find("\n", offset)
        line_text = source[line_start: line_end if line_end >= 0 else len(source)]
        line, column = source.count("\n", 0, offset) + 1, offset - line_start + 1
        message = m.group(3).replace("_[?_]", "_[_]")
        return f"ERROR: <input>:{line}:{column}: {message}\n | {line_text}\n | {'.' * (column - 1)}^"
    return _ERROR.sub(fix, text)


__all__ = ["FORMAT", "Rewritten", "functions", "map_errors", "rewrite", "validate"]
