"""Expressions rewritten before cel-expr-python compiles them, with each character's origin in the source, so
that compile errors are reported at the source's lines and columns with its lines (fakekube.cel.formatlib's
``[?0]``, fakekube.cel.macros' expansions of cel-go macros cel-cpp lacks)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TOKEN = re.compile(r"""
    (?P<comment>//[^\n]*)
  | (?P<string>[rRbB]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<number>\d[\w.]*)
  | (?P<space>\s+)
  | (?P<punct>.)
""", re.VERBOSE | re.DOTALL)

Token = tuple[str, str, int]  # kind, text, offset


def tokens(text: str) -> list[Token]:
    """(kind, text, offset) of each token of ``text`` but spaces and comments."""
    return [(m.lastgroup or "punct", m.group(), m.start()) for m in _TOKEN.finditer(text)
            if m.lastgroup not in ("space", "comment")]


def closing(toks: list[Token], i: int) -> int | None:
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


@dataclass
class Rewritten:
    text: str
    origin: list[int]  # for each character of ``text``, the offset in the source it stands for
    made: list[bool] = field(default_factory=list)  # for each character, whether the rewrite wrote it

    def written(self, offset: int) -> bool:
        """Whether the character at ``offset`` of ``text`` is the rewrite's, not the source's."""
        return 0 <= offset < len(self.made) and self.made[offset]

    def text_offset(self, line: int, column: int) -> int:
        lines = self.text.split("\n")
        return sum(len(x) + 1 for x in lines[:line - 1]) + column - 1

    def source_offset(self, line: int, column: int) -> int:
        """The source offset of the rewritten text's 1-based ``line`` and ``column``."""
        lines = self.text.split("\n")
        offset = sum(len(x) + 1 for x in lines[:line - 1]) + column - 1
        if not self.origin:
            return 0
        return self.origin[min(max(offset, 0), len(self.origin) - 1)]

    def then(self, later: Rewritten | None) -> Rewritten:
        """This rewrite followed by ``later`` (a rewrite of this one's text)."""
        if later is None:
            return self
        return Rewritten(later.text, [self.origin[o] if o < len(self.origin) else len(self.origin)
                                      for o in later.origin],
                         [m or self.written(o) for m, o in zip(later.made, later.origin, strict=True)])


class Builder:
    """Pieces of new text, each character with the source offset it stands for."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.text: list[str] = []
        self.origin: list[int] = []
        self.made: list[bool] = []

    def copy(self, start: int, end: int) -> None:
        self.text.append(self.source[start:end])
        self.origin.extend(range(start, end))
        self.made.extend([False] * (end - start))

    def add(self, text: str, origin: int) -> None:
        self.text.append(text)
        self.origin.extend([origin] * len(text))
        self.made.extend([True] * len(text))

    def build(self) -> Rewritten:
        return Rewritten("".join(self.text), self.origin, self.made)


# What cel-cpp reports on the rewrite's own text after an error the user's text caused: the range of an
# erroneous type, an element taken from a range that is neither a list nor a map.
_CASCADE = re.compile(r"expression of type '\*error\*'|found no matching overload for '_\[_\]'")
_ERROR = re.compile(r"ERROR: <input>:(\d+):(\d+): (.*?)\n \| [^\n]*\n \| [.]*\^", re.DOTALL)


def map_errors(text: str, rewritten: Rewritten, source: str, rename: dict[str, str] | None = None) -> str:
    """The compiler's issues on the rewritten text at the source's lines and columns, with its lines;
    ``rename``: words of the rewritten text to put back in the messages."""
    def fix(m: re.Match[str]) -> str:
        if rewritten.written(rewritten.text_offset(int(m.group(1)), int(m.group(2)))) and _CASCADE.match(m.group(3)):
            return ""
        offset = rewritten.source_offset(int(m.group(1)), int(m.group(2)))
        line_start = source.rfind("\n", 0, offset) + 1
        line_end = source.find("\n", offset)
        line_text = source[line_start: line_end if line_end >= 0 else len(source)]
        line, column = source.count("\n", 0, offset) + 1, offset - line_start + 1
        message = m.group(3)
        for old, new in (rename or {}).items():
            message = message.replace(old, new)
        return f"ERROR: <input>:{line}:{column}: {message}\n | {line_text}\n | {'.' * (column - 1)}^"
    return re.sub(r"\n{2,}", "\n", _ERROR.sub(fix, text)).strip("\n")


__all__ = ["Builder", "Rewritten", "Token", "closing", "map_errors", "tokens"]
