"""Word expansion for the container shell (XCU 2.6, IEEE Std 1003.1-2017): tilde, parameters (``$X``,
``${X:-w}``, ``${X#p}``, ``${#X}``, ``$?``, ``$#``, ``$@``, ``$1``), command substitution (``$(...)``,
backquotes), arithmetic (``$((...))``), field splitting of unquoted results, pathname expansion against the
container's files, and quote removal. A mixin of ``interpreter.Shell``: expansion can run commands, so its
methods are generators of the same ``Wait`` s."""

from __future__ import annotations

import ast
import fnmatch
import math
import operator
import posixpath
import re
from collections.abc import Callable, Generator
from typing import Any

from fakekube.pods import shelllex
from fakekube.pods.filesystem import FileSystemError
from fakekube.pods.process import ExitStatus
from fakekube.pods.shellbase import IO, Wait

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Expander:
    """Expansion over ``self.s`` (the session: env, files, cwd, status), ``self.positional`` and ``self.name``."""

    s: Any
    name: str
    positional: list[str]
    functions: dict[str, Any]

    def script(self, text: str, io: IO, *, interactive: bool = False) -> Generator[Wait, None, int]:
        raise NotImplementedError


    def expand_one(self, raw: str) -> Generator[Wait, None, str]:
        """A word expanded without field splitting or pathname expansion (assignments, ``case``, targets)."""
        fields = yield from self.expand(raw, split=False)
        return " ".join(fields)

    def expand_heredoc(self, body: str) -> Generator[Wait, None, str]:
        out: list[str] = []
        i = 0
        while i < len(body):
            c = body[i]
            if c == "\\" and i + 1 < len(body) and body[i + 1] in "$`\\\n":
                out.append("" if body[i + 1] == "\n" else body[i + 1])
                i += 2
            elif c in "$`":
                text, i = yield from self.dollar(body, i)
                out.append(text)
            else:
                out.append(c)
                i += 1
        return "".join(out)

    def expand(self, raw: str, split: bool = True) -> Generator[Wait, None, list[str]]:
        fields: list[str] = []
        current: list[str] = []
        present = False  # a quoted empty string still makes a field
        glob = False
        i, n = 0, len(raw)
        if raw.startswith("~") and (n == 1 or raw[1] == "/"):
            current.append(self.s.env.get("HOME", "/root"))
            i = 1
        while i < n:
            c = raw[i]
            if c == "'":
                end = raw.index("'", i + 1)
                current.append(raw[i + 1:end])
                present, i = True, end + 1
            elif c == '"':
                present = True
                i += 1
                while raw[i] != '"':
                    if raw[i] == "\\" and raw[i + 1] in '"\\$`':
                        current.append(raw[i + 1])
                        i += 2
                    elif raw[i] in "$`":
                        text, i = yield from self.dollar(raw, i)
                        current.append(text)
                    else:
                        current.append(raw[i])
                        i += 1
                i += 1
            elif c == "\\" and i + 1 < n:
                current.append(raw[i + 1])
                present, i = True, i + 2
            elif c in "$`":
                text, i = yield from self.dollar(raw, i)
                if not split:
                    current.append(text)
                    continue
                pieces = text.split()
                if not pieces:
                    continue
                if text[:1].isspace() and (current or present):
                    fields.append("".join(current))
                    current, present = [], False
                for index, piece in enumerate(pieces):
                    if index:
                        fields.append("".join(current))
                        current = []
                    current.append(piece)
                present = True
                if text[-1:].isspace():
                    fields.append("".join(current))
                    current, present = [], False
            else:
                glob = glob or c in "*?["
                current.append(c)
                present, i = True, i + 1
        if current or present:
            fields.append("".join(current))
        if split and glob:
            fields = [m for f in fields for m in (self.glob(f) or [f])]
        return fields

    def glob(self, pattern: str) -> list[str]:
        if not any(ch in pattern for ch in "*?["):
            return []
        directory, base = posixpath.split(pattern)
        full = self.s.path(directory or ".")
        try:
            names = self.s.files.listdir(full) if self.s.files.is_dir(full) else []
        except FileSystemError:
            return []
        hidden = base.startswith(".")
        return sorted(posixpath.join(directory, name) if directory else name for name in names
                      if fnmatch.fnmatchcase(name, base) and (hidden or not name.startswith(".")))

    def dollar(self, raw: str, i: int) -> Generator[Wait, None, tuple[str, int]]:
        """The expansion starting at ``raw[i]`` (``$`` or a backquote) and the index after it."""
        if raw[i] == "`":
            end = raw.index("`", i + 1)
            return (yield from self.substitute(raw[i + 1:end])), end + 1
        if raw.startswith("$((", i):
            end = shelllex.skip_balanced(raw, i + 3, "(", ")")
            expr = yield from self.expand_heredoc(raw[i + 3:end - 1])
            return str(self.arithmetic(expr)), end + 1
        if raw.startswith("$(", i):
            end = shelllex.skip_balanced(raw, i + 2, "(", ")")
            return (yield from self.substitute(raw[i + 2:end - 1])), end
        if raw.startswith("${", i):
            end = shelllex.skip_balanced(raw, i + 2, "{", "}")
            return (yield from self.parameter(raw[i + 2:end - 1])), end
        if i + 1 < len(raw) and raw[i + 1] in "?$#@*!0123456789-":
            return self.special(raw[i + 1]), i + 2
        m = _NAME.match(raw, i + 1)
        if m is None:
            return "$", i + 1
        return self.s.env.get(m.group(), ""), m.end()

    def special(self, c: str) -> str:
        if c == "?":
            return str(self.s.status)
        if c == "#":
            return str(len(self.positional))
        if c in "@*":
            return " ".join(self.positional)
        if c == "0":
            return self.name
        if c.isdigit():
            index = int(c) - 1
            return self.positional[index] if index < len(self.positional) else ""
        return {"$": "1", "!": "", "-": ""}.get(c, "")

    def parameter(self, inner: str) -> Generator[Wait, None, str]:
        if inner.startswith("#") and len(inner) > 1:
            return str(len(self.lookup(inner[1:])))
        m = re.match(r"([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[?#@*$!])(.*)", inner, re.S)
        if m is None:
            raise ExitStatus(2)
        name, rest = m.groups()
        value = self.lookup(name)
        is_set = name in self.s.env or not re.match(r"[A-Za-z_]", name)
        if not rest:
            return value
        op = next((o for o in (":-", ":=", ":+", ":?", "##", "%%", "-", "=", "+", "?", "#", "%")
                   if rest.startswith(o)), None)
        if op is None:
            raise ExitStatus(2)
        word = yield from self.expand_one(rest[len(op):])
        empty = not is_set or (op.startswith(":") and value == "")
        if op in (":-", "-"):
            return word if empty else value
        if op in (":=", "="):
            if empty:
                self.s.env[name] = word
                return word
            return value
        if op in (":+", "+"):
            return "" if empty else word
        if op in (":?", "?"):
            if empty:
                self.s.proc.stderr(f"{self.name}: 1: {name}: {word or 'parameter not set'}\n")
                raise ExitStatus(2)
            return value
        cuts = range(len(value) + 1)
        if op in ("#", "##"):
            order = cuts if op == "#" else reversed(cuts)
            return next((value[k:] for k in order if fnmatch.fnmatchcase(value[:k], word)), value)
        order = reversed(cuts) if op == "%" else cuts
        return next((value[:k] for k in order if fnmatch.fnmatchcase(value[k:], word)), value)

    def lookup(self, name: str) -> str:
        if name.isdigit() or name in "?#@*$!":
            return self.special(name)
        return self.s.env.get(name, "")

    def substitute(self, text: str) -> Generator[Wait, None, str]:
        captured = bytearray()
        inner = type(self)(self.s, self.name, self.positional)  # type: ignore[call-arg]
        inner.functions = dict(self.functions)
        saved = dict(self.s.env), self.s.cwd
        try:
            status = yield from inner.script(text, IO(None, captured.extend, self.s.proc.write_stderr))
        finally:
            self.s.env, self.s.cwd = saved
        self.s.status = status
        return captured.decode(errors="replace").rstrip("\n")

    def arithmetic(self, expr: str) -> int:
        text = re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda m: self.s.env.get(m.group(), "0") or "0", expr)
        text = text.replace("&&", " and ").replace("||", " or ")
        text = re.sub(r"!(?!=)", " not ", text)
        try:
            return int(_evaluate(ast.parse(text.strip() or "0", mode="eval").body))
        except (SyntaxError, ValueError, TypeError, ZeroDivisionError, KeyError, RecursionError):
            self.s.proc.stderr(f"{self.name}: 1: arithmetic expression: expecting primary: \"{expr}\"\n")
            raise ExitStatus(2) from None


_BINARY: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Mod: lambda a, b: int(
        math.fmod(a, b)), ast.Div: lambda a, b: int(a / b), ast.FloorDiv: lambda a, b: int(a / b),
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor}
_COMPARE: dict[type, Callable[[int, int], bool]] = {
    ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq,
    ast.NotEq: operator.ne}


def _evaluate(node: ast.AST) -> int:
    """Shell arithmetic over integers: the operators of XCU 2.6.4, nothing else Python would evaluate."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp):
        value = _evaluate(node.operand)
        return {ast.USub: -value, ast.UAdd: value, ast.Not: int(not value), ast.Invert: ~value}[type(node.op)]
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
        return int(_COMPARE[type(node.ops[0])](_evaluate(node.left), _evaluate(node.comparators[0])))
    if isinstance(node, ast.BoolOp):
        values = [_evaluate(v) for v in node.values]
        return int(all(values) if isinstance(node.op, ast.And) else any(values))
    if isinstance(node, ast.IfExp):
        return _evaluate(node.body) if _evaluate(node.test) else _evaluate(node.orelse)
    raise ValueError("unsupported")
