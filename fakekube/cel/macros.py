"""cel-go macros cel-cpp does not have, expanded in the expression's text before it is compiled.

``<list>.sortBy(e, key)`` (github.com/google/cel-go ``ext/lists.go`` version 2 and later, ``sortByMacro``,
v0.29.2; the base environment of k8s.io/apiserver v0.37.2 has lists version 3 from v1.34) becomes what
cel-go's macro makes of it, ``cel.bind(@__sortBy_input__, <list>,
@__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))``, spelled with identifiers the
parser accepts (``__sortBy_input__``, ``__sortByAssociatedKeys``): the same tree, so the same estimated cost.
Each character of the new text remembers where it came from (fakekube.cel.sourcemap), and the names are put
back in error messages.
"""

from __future__ import annotations

from fakekube.cel.sourcemap import Builder, Rewritten, Token, closing, tokens

INPUT, SORT = "__sortBy_input__", "__sortByAssociatedKeys"
RENAMES = {SORT: "@sortByAssociatedKeys", INPUT: "@__sortBy_input__"}
_OPENING = {")": "(", "]": "[", "}": "{"}


def _opening(toks: list[Token], i: int) -> int | None:
    depth = 0
    for j in range(i, -1, -1):
        if toks[j][0] == "punct" and toks[j][1] in ")]}":
            depth += 1
        elif toks[j][0] == "punct" and toks[j][1] in "([{":
            depth -= 1
            if depth == 0:
                return j
    return None


def _ends_operand(tok: Token) -> bool:
    return tok[0] in ("ident", "string", "number") or (tok[0] == "punct" and tok[1] in ")]}")


def receiver_start(toks: list[Token], dot: int) -> int | None:
    """The index of the first token of the member call's receiver that ends right before ``toks[dot]``."""
    i = dot - 1
    while i >= 0:
        kind, text, _ = toks[i]
        if kind == "punct" and text in ")]}":
            j = _opening(toks, i)
            if j is None:
                return None
            if j >= 1 and (text == ")" and toks[j - 1][0] == "ident" or text != ")" and _ends_operand(toks[j - 1])
                           and not (text == "}" and toks[j - 1][0] != "ident")):
                i = j - 1  # a call, an index, a struct: their operand comes before
                continue
            start = j
        elif kind in ("ident", "string", "number"):
            start = i
        else:
            return None
        if start >= 2 and toks[start - 1][1] == "." and _ends_operand(toks[start - 2]):
            i = start - 2
            continue
        return start
    return None


def _sort_by(source: str) -> Rewritten | None:
    """The last ``sortBy`` of ``source`` expanded, or None when there is none to expand."""
    toks = tokens(source)
    for s in range(len(toks) - 2, 0, -1):
        if toks[s][:2] != ("ident", "sortBy") or toks[s - 1][1] != "." or toks[s + 1][1] != "(":
            continue
        start = receiver_start(toks, s - 1)
        end = closing(toks, s + 1)
        if start is None or end is None:
            continue
        call_at = toks[s + 1][2]
        out = Builder(source)
        out.copy(0, toks[start][2])
        out.add(f"cel.bind({INPUT}, ", toks[start][2])
        out.copy(toks[start][2], toks[s - 1][2])
        out.add(f", {INPUT}.{SORT}({INPUT}.map(", call_at)
        out.copy(call_at + 1, toks[end][2])
        out.add(")))", toks[end][2])
        out.copy(toks[end][2] + 1, len(source))
        return out.build()
    return None


def rewrite(source: str) -> Rewritten | None:
    """``source`` with its ``sortBy`` calls expanded, or None when it has none."""
    if "sortBy" not in source:
        return None
    result: Rewritten | None = None
    text = source
    for _ in range(64):  # one macro a pass, innermost last: nested ones are expanded in later passes
        step = _sort_by(text)
        if step is None:
            break
        result = step if result is None else result.then(step)
        text = step.text
    return result


__all__ = ["INPUT", "RENAMES", "SORT", "receiver_start", "rewrite"]
