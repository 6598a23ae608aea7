"""cel-cpp's "found no matching overload" issue in cel-go's words.

cel-go (``checker/errors.go`` ``noMatchingOverload``, v0.29.2) prints a member call's argument types as
``'<target>.(<args>)'`` and Kubernetes' types by name; cel-cpp prints every call as ``'(<target>, <args>)'``
and fakekube's stand-ins for those types (fakekube.cel.k8slib, semverlib, formatlib) as the container types
they are. A call is a member call when its name follows a ``.`` in the issue's source line, right before the
``(`` the caret points at (a qualified global function, ``format.named``, has the dots in its name).
"""

from __future__ import annotations

import re

_ISSUE = re.compile(r"(ERROR: <input>:\d+:(\d+): found no matching overload for '([^']*)' applied to )"
                    r"'\((.*)\)'(\n \| ([^\n]*))")
# Only types no CRD value can have are renamed (object keys are strings): a CIDR, list(list(string)), keeps
# its stand-in name.
_NAMES = (("list(map(bool, string))", "kubernetes.Semver"), ("map(bool, string)", "kubernetes.NamedFormat"),
          ("map(uint, string)", "kubernetes.URL"), ("map(int, string)", "net.IP"),
          ("map(uint, bytes)", "kubernetes.Quantity"))


def _split(types: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(types):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(types[start:i].strip())
            start = i + 1
    out.append(types[start:].strip())
    return [t for t in out if t]


def _named(t: str) -> str:
    for stand_in, name in _NAMES:
        t = t.replace(stand_in, name)
    return t


def _fix(m: re.Match[str]) -> str:
    column, function, line = int(m.group(2)), m.group(3), m.group(6)
    types = [_named(t) for t in _split(m.group(4))]
    before = line[:column - 1].rstrip()
    member = "." not in function and types and re.search(r"\.\s*" + re.escape(function) + r"$", before)
    shown = f"{types[0]}.({', '.join(types[1:])})" if member else f"({', '.join(types)})"
    return f"{m.group(1)}'{shown}'{m.group(5)}"


def as_cel_go(text: str) -> str:
    """``text`` (a compiler's issues) with its overload errors worded as cel-go words them."""
    if "found no matching overload" not in text:
        return text
    return _ISSUE.sub(_fix, text)


__all__ = ["as_cel_go"]
