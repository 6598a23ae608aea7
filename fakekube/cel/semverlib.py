"""Kubernetes' semver CEL library (version 1, as the base environment enables it from v1.33), for
cel-expr-python.

After k8s.io/apiserver ``pkg/cel/library/semverlib.go`` and ``pkg/cel/semver.go`` (v0.37.2), which parse with
github.com/blang/semver/v4 (v4.0.0) ``Parse``: ``semver(s[, normalize])``, ``isSemver(s[, normalize])``,
``major()``, ``minor()``, ``patch()``, ``compareTo``, ``isGreaterThan``, ``isLessThan`` and ``==`` (which, as
blang's ``Version.EQ``, ignores build metadata). Parse errors are blang's words.

As fakekube.cel.k8slib does for URLs and quantities, a version is a container of a type no CRD value has:
``list(map(bool, string))``, one entry ``[{true: "<major>.<minor>.<patch>[-<pre-release>]"}]``. Build metadata
is dropped (nothing reads it), so two equal versions are equal lists. It is a list where a quantity is a map:
cel-cpp picks an implementation by the arguments' kinds, and ``isGreaterThan``, ``isLessThan`` and
``compareTo`` serve both.
"""

from __future__ import annotations

from typing import Any

from cel_expr_python import cel

from fakekube.cel.library import CelError
from fakekube.gotext import go_quote

T = cel.Type
SEMVER = T.List(T.Map(T.BOOL, T.STRING))
_NUMBERS = frozenset("0123456789")
_ALPHANUM = _NUMBERS | frozenset("-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_UINT64 = 2**64


def _only(text: str, allowed: frozenset[str]) -> bool:
    return all(ch in allowed for ch in text)


def _uint(text: str) -> int:
    # strconv.ParseUint(text, 10, 64) after the digit check: only "" and overflow can fail
    if not text:
        raise CelError('strconv.ParseUint: parsing "": invalid syntax')
    value = int(text)
    if value >= _UINT64:
        raise CelError(f'strconv.ParseUint: parsing "{text}": value out of range')
    return value


def _number(text: str, what: str) -> int:
    if not _only(text, _NUMBERS):
        raise CelError(f'Invalid character(s) found in {what} number {go_quote(text)}')
    if len(text) > 1 and text[0] == "0":
        raise CelError(f'{what.capitalize()} number must not contain leading zeroes {go_quote(text)}')
    return _uint(text)


def parse(text: str) -> tuple[int, int, int, list[int | str]]:
    """blang/semver ``Parse``: (major, minor, patch, pre-release identifiers), or CelError with its words."""
    if not text:
        raise CelError("Version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise CelError("No Major.Minor.Patch elements found")
    major = _number(parts[0], "major")
    minor = _number(parts[1], "minor")
    patch_text = parts[2]
    build: list[str] = []
    pre: list[str] = []
    if "+" in patch_text:
        patch_text, _, rest = patch_text.partition("+")
        build = rest.split(".")
    if "-" in patch_text:
        patch_text, _, rest = patch_text.partition("-")
        pre = rest.split(".")
    patch = _number(patch_text, "patch")
    identifiers: list[int | str] = []
    for item in pre:
        if not item:
            raise CelError("Prerelease is empty")
        if _only(item, _NUMBERS):
            if len(item) > 1 and item[0] == "0":
                raise CelError(f'Numeric PreRelease version must not contain leading zeroes "{item}"')
            identifiers.append(_uint(item))
        elif _only(item, _ALPHANUM):
            identifiers.append(item)
        else:
            raise CelError(f'Invalid character(s) found in prerelease {go_quote(item)}')
    for item in build:
        if not item:
            raise CelError("Build meta data is empty")
        if not _only(item, _ALPHANUM):
            raise CelError(f'Invalid character(s) found in build meta data {go_quote(item)}')
    return major, minor, patch, identifiers


def normalize(text: str) -> str:
    """semverlib.go ``normalizeAndParse``'s rewriting: no ``v`` prefix, no leading zeroes, missing parts 0."""
    text = text.removeprefix("v")
    parts = text.split(".", 2)
    for i, part in enumerate(parts):
        if len(part) > 1:
            part = part.lstrip("0")
            if not part or part[0] not in _NUMBERS:
                part = "0" + part
            parts[i] = part
    if len(parts) < 3:
        if any(ch in parts[-1] for ch in "+-"):
            raise CelError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return ".".join(parts)


def _parsed(text: str, normalized: bool) -> tuple[int, int, int, list[int | str]]:
    return parse(normalize(text) if normalized else text)


def _value(version: tuple[int, int, int, list[int | str]]) -> list[dict[bool, str]]:
    major, minor, patch, pre = version
    text = f"{major}.{minor}.{patch}"
    if pre:
        text += "-" + ".".join(str(p) for p in pre)
    return [{True: text}]


def _semver(text: str, normalized: bool = False) -> list[dict[bool, str]]:
    return _value(_parsed(text, normalized))


def _is_semver(text: str, normalized: bool = False) -> bool:
    try:
        _parsed(text, normalized)
    except CelError:
        return False
    return True


def _read(value: list[dict[bool, str]]) -> tuple[int, int, int, list[int | str]]:
    return parse(value[0][True])


def _int64(n: int) -> int:
    # types.Int(uint64): Go's conversion wraps
    return n - _UINT64 if n >= 2**63 else n


def _pre_compare(a: int | str, b: int | str) -> int:
    if isinstance(a, int) != isinstance(b, int):
        return -1 if isinstance(a, int) else 1
    return (a > b) - (a < b)  # type: ignore[operator]


def compare(a: tuple[int, int, int, list[int | str]], b: tuple[int, int, int, list[int | str]]) -> int:
    """blang/semver ``Version.Compare``: -1, 0 or 1 (a version without pre-release is the greater)."""
    for x, y in zip(a[:3], b[:3], strict=True):
        if x != y:
            return 1 if x > y else -1
    pa, pb = a[3], b[3]
    if not pa or not pb:
        return (not pa) - (not pb)
    for x, y in zip(pa, pb, strict=False):
        c = _pre_compare(x, y)
        if c:
            return c
    return (len(pa) > len(pb)) - (len(pa) < len(pb))


def _compare(a: list[dict[bool, str]], b: list[dict[bool, str]]) -> int:
    return compare(_read(a), _read(b))


def overloads() -> dict[str, list[Any]]:
    """The library's overloads by function name; fakekube.cel.k8slib declares them with the functions of the
    same names (``isGreaterThan``, ``isLessThan``, ``compareTo``: a function is declared once)."""
    def member(overload: str, result: Any, params: list[Any], impl: Any) -> Any:
        return cel.Overload(overload, result, params, is_member=True, impl=impl)

    return {
        "semver": [cel.Overload("string_to_semver", SEMVER, [T.STRING], impl=_semver),
                   cel.Overload("string_bool_to_semver", SEMVER, [T.STRING, T.BOOL], impl=_semver)],
        "isSemver": [cel.Overload("is_semver_string", T.BOOL, [T.STRING], impl=_is_semver),
                     cel.Overload("is_semver_string_bool", T.BOOL, [T.STRING, T.BOOL], impl=_is_semver)],
        "isGreaterThan": [member("semver_is_greater_than", T.BOOL, [SEMVER, SEMVER],
                                 lambda a, b: _compare(a, b) == 1)],
        "isLessThan": [member("semver_is_less_than", T.BOOL, [SEMVER, SEMVER], lambda a, b: _compare(a, b) == -1)],
        "compareTo": [member("semver_compare_to", T.INT, [SEMVER, SEMVER], _compare)],
        "major": [member("semver_major", T.INT, [SEMVER], lambda v: _int64(_read(v)[0]))],
        "minor": [member("semver_minor", T.INT, [SEMVER], lambda v: _int64(_read(v)[1]))],
        "patch": [member("semver_patch", T.INT, [SEMVER], lambda v: _int64(_read(v)[2]))],
    }


__all__ = ["SEMVER", "compare", "normalize", "overloads", "parse"]
