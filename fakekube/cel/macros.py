"""cel-go macros cel-cpp does not have, expanded in the expression's text before it is compiled.

``<list>.sortBy(e, key)`` (github.com/google/cel-go ``ext/lists.go`` version 2 and later, ``sortByMacro``,
v0.29.2; the base environment of k8s.io/apiserver v0.37.2 has lists version 3 from v1.34) becomes what
cel-go's macro makes of it, ``cel.bind(@__sortBy_input__, <list>,
@__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key)))``, spelled with identifiers the
parser accepts (``__sortBy_input__``, ``__sortByAssociatedKeys``): the same tree, so the same estimated cost.
Each character of the new text remembers where it came from (fakekube.cel.sourcemap), and the names are put
back in error messages.

The two-variable comprehensions (cel-go ``ext/comprehensions.go``, in the base environment from v1.32):
``<range>.all(i, v, p)``, ``exists``, ``existsOne`` (and ``exists_one``), ``transformList(i, v, [filter,] e)``,
``transformMap`` and ``transformMapEntry``. They become one-variable macros over the range's keys (a list's
indexes, a map's keys: ``__keys``), with ``v`` bound to the element, inside ``cel.bind(__cv<n>_<macro>,
<range>, ...)``; fakekube.cel.twovar puts cel-go's tree back together from that binding for the cost
estimator. A map's keys are ``dyn`` to the type checker (a list's indexes are ints, elements keep their type),
and ``transformMap`` and ``transformMapEntry`` build ``map(dyn, dyn)`` (``__merge_maps``).
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


_TWO_VAR = {"all": (3,), "exists": (3,), "existsOne": (3,), "exists_one": (3,), "transformList": (3, 4),
            "transformMap": (3, 4), "transformMapEntry": (3, 4)}
KEYS, MERGE = "__keys", "__merge_maps"


def _arguments(toks: list[Token], open_at: int, close_at: int) -> list[tuple[int, int]]:
    """The (first, last) token indexes of each top-level argument between the brackets."""
    out, depth, first = [], 0, open_at + 1
    for j in range(open_at + 1, close_at):
        kind, text, _ = toks[j]
        if kind == "punct" and text in "([{":
            depth += 1
        elif kind == "punct" and text in ")]}":
            depth -= 1
        elif kind == "punct" and text == "," and depth == 0:
            out.append((first, j - 1))
            first = j + 1
    if first <= close_at - 1:
        out.append((first, close_at - 1))
    return out


def _candidates(toks: list[Token]) -> list[tuple[int, int, int, list[tuple[int, int]]]]:
    """(name index, receiver start, closing index, arguments) of each two-variable comprehension, last first."""
    out = []
    for s in range(len(toks) - 2, 0, -1):
        kind, name, _ = toks[s]
        if kind != "ident" or name not in _TWO_VAR or toks[s - 1][1] != "." or toks[s + 1][1] != "(":
            continue
        end = closing(toks, s + 1)
        start = receiver_start(toks, s - 1)
        if end is None or start is None:
            continue
        args = _arguments(toks, s + 1, end)
        if len(args) in _TWO_VAR[name]:
            out.append((s, start, end, args))
    return out


def _simple(toks: list[Token], arg: tuple[int, int]) -> bool:
    return arg[0] == arg[1] and toks[arg[0]][0] == "ident"


def _position(toks: list[Token], arg: tuple[int, int]) -> int:
    """Where cel-go's parser puts an argument's node: a selection at its last dot, else at its start."""
    if arg[1] > arg[0] and toks[arg[1]][0] == "ident" and toks[arg[1] - 1][1] == ".":
        return toks[arg[1] - 1][2]
    return toks[arg[0]][2]


def _node_position(toks: list[Token], first: int, last: int) -> int:
    """Where cel-go's parser puts the node of the expression ``toks[first..last]`` (a postfix chain): a
    selection at its dot, a member call at its ``(``, an index at its ``[``, else its first token."""
    kind, text, offset = toks[last]
    if last > first and kind == "ident" and toks[last - 1][1] == ".":
        return toks[last - 1][2]
    if text in ")]" and last > first:
        j = _opening(toks, last)
        if j is not None and j > first and (text == "]" or j >= 2 and toks[j - 2][1] == "."):
            return toks[j][2]
    return toks[first][2]


def range_position(source: str, offset: int) -> int:
    """Where cel-go reports the range of the two-variable comprehension whose receiver starts at ``offset``
    of ``source`` (``offset`` itself when there is none)."""
    toks = tokens(source)
    for s, start, _, _ in _candidates(toks):
        if toks[start][2] == offset:
            return _node_position(toks, start, s - 2)
    return offset


def issues(source: str) -> list[tuple[int, str]]:
    """(offset, message) of what cel-go's macros refuse in the two-variable comprehensions' variables
    (``extractIterVars``): a variable that is not a simple name, the same name twice."""
    if not any(name in source for name in _TWO_VAR):
        return []
    toks = tokens(source)
    found = []
    for _, _, _, args in _candidates(toks):
        first, second = args[0], args[1]
        if not _simple(toks, first):
            found.append((_position(toks, first), "argument must be a simple name"))
        elif not _simple(toks, second):
            found.append((_position(toks, second), "argument must be a simple name"))
        elif toks[first[0]][1] == toks[second[0]][1]:
            found.append((toks[second[0]][2], f"duplicate variable name: {toks[first[0]][1]}"))
    return sorted(found)


def _two_var(source: str, serial: int) -> Rewritten | None:
    """The last two-variable comprehension of ``source`` expanded, or None when there is none."""
    toks = tokens(source)
    for s, start, end, args in _candidates(toks):
        if _simple(toks, args[0]) and _simple(toks, args[1]) and toks[args[0][0]][1] != toks[args[1][0]][1]:
            return _expand(source, toks, (s, start, end), args, serial)
    return None


def _expand(source: str, toks: list[Token], where: tuple[int, int, int], args: list[tuple[int, int]],
            serial: int) -> Rewritten:
    s, start, end = where
    name = toks[s][1]
    i_name, v_name = toks[args[0][0]][1], toks[args[1][0]][1]
    bound = f"__cv{serial}_{name}"
    call_at = toks[s + 1][2]
    out = Builder(source)

    def body(arg: tuple[int, int]) -> None:
        at = toks[arg[0]][2]
        out.add(f"cel.bind({v_name}, {bound}[{i_name}], ", at)
        out.copy(at, toks[arg[1]][2] + len(toks[arg[1]][1]))
        out.add(")", toks[arg[1]][2])

    out.copy(0, toks[start][2])
    out.add(f"cel.bind({bound}, ", toks[start][2])
    out.copy(toks[start][2], toks[s - 1][2])
    out.add(", ", call_at)
    if name.startswith("transformMap"):
        out.add(f"{MERGE}(", call_at)
    single = {"existsOne": "exists_one", "transformList": "map", "transformMap": "map",
              "transformMapEntry": "map"}.get(name, name)
    out.add(f"{KEYS}(", _node_position(toks, start, s - 2))  # where cel-go reports a range of a wrong type
    out.add(f"{bound}).{single}(", call_at)
    out.copy(toks[args[0][0]][2], toks[args[0][1]][2] + len(i_name))
    for arg in args[2:]:
        out.add(", ", toks[arg[0]][2])
        if name == "transformMap" and arg is args[-1]:
            out.add(f"{{{i_name}: ", toks[arg[0]][2])
            body(arg)
            out.add("}", toks[arg[1]][2])
        else:
            body(arg)
    out.add(")" + (")" if name.startswith("transformMap") else "") + ")", toks[end][2])
    out.copy(toks[end][2] + 1, len(source))
    return out.build()


def rewrite(source: str) -> Rewritten | None:
    """``source`` with its ``sortBy`` calls and two-variable comprehensions expanded, or None when it has
    none."""
    if "sortBy" not in source and not any(name in source for name in _TWO_VAR):
        return None
    result: Rewritten | None = None
    text = source
    for serial in range(64):  # one macro a pass: nested ones are expanded in later passes
        step = _sort_by(text) if "sortBy" in text else None
        if step is None:
            step = _two_var(text, serial)
        if step is None:
            break
        result = step if result is None else result.then(step)
        text = step.text
    return result


__all__ = ["INPUT", "KEYS", "MERGE", "RENAMES", "SORT", "issues", "range_position", "receiver_start", "rewrite"]
