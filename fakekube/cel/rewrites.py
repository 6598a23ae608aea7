"""The rewrites an expression goes through before cel-expr-python compiles it: cel-go macros cel-cpp lacks
(fakekube.cel.macros), then the format library's optional results (fakekube.cel.formatlib); and the
compiler's issues put back at the source's positions, in the source's words."""

from __future__ import annotations

import re

from fakekube.cel import formatlib, macros
from fakekube.cel.sourcemap import Rewritten
from fakekube.cel.sourcemap import map_errors as _map_errors

_RENAMES = {**macros.RENAMES, "_[?_]": "_[_]"}


def rewrite(source: str) -> Rewritten | None:
    """``source`` rewritten, or None when it needs no rewrite."""
    first = macros.rewrite(source)
    second = formatlib.rewrite(first.text if first is not None else source)
    if first is None:
        return second
    return first.then(second)


def issues(source: str) -> str:
    """What cel-go's macros refuse in ``source`` (a parse error: nothing else is reported), or ""."""
    blocks = []
    for offset, message in macros.issues(source):
        line_start = source.rfind("\n", 0, offset) + 1
        line_end = source.find("\n", offset)
        text = source[line_start: line_end if line_end >= 0 else len(source)]
        line, column = source.count("\n", 0, offset) + 1, offset - line_start + 1
        blocks.append(f"ERROR: <input>:{line}:{column}: {message}\n | {text}\n | {'.' * (column - 1)}^")
    return "\n".join(blocks)


_NOT_A_RANGE = re.compile(rf"found no matching overload for '{macros.KEYS}' applied to '\((.*)\)'")


def rename(text: str) -> str:
    """``text`` with the rewrites' names put back as cel-go names them (a two-variable comprehension over
    what is neither a list nor a map: cel-go's checker's words for the range)."""
    text = _NOT_A_RANGE.sub(lambda m: f"expression of type '{m.group(1)}' cannot be range of a comprehension "
                            "(must be list, map, or dynamic)", text)
    for old, new in _RENAMES.items():
        text = text.replace(old, new)
    return text


def map_errors(text: str, rewritten: Rewritten, source: str) -> str:
    """The compiler's issues on ``rewritten`` as issues on ``source``."""
    return rename(_map_errors(text, rewritten, source))


__all__ = ["Rewritten", "issues", "map_errors", "rename", "rewrite"]
