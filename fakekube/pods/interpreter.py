"""Runs a shell syntax tree (``fakekube.pods.shell``) in a fake container, as a generator.

Every command but ``sleep`` (and what waits forever: ``tail -f``, a server) runs at once over the container's
in-memory files; a wait is a ``Wait`` the generator yields, and whoever drives it decides what waiting means:
an exec's thread sleeps until the time is up or the client leaves (``run_sync``), the kubelet actor's main
process awaits the runtime's clock (virtual time in a simulation, a timer on the wall-clock server's loop — no
thread per sleeping container). A loop that never waits yields ``Wait(0.001)`` every ``PACE`` commands, so it
cannot hold the loop it runs on (nor spin a simulation at one instant).

Expansion follows XCU 2.6 (IEEE Std 1003.1-2017) for what scripts in manifests use: parameters (``$X``,
``${X:-w}``, ``${X#p}``, ``${#X}``, ``$?``, ``$#``, ``$@``, ``$1``), ``$(...)`` and backquotes, ``$((...))``,
quote removal, field splitting of unquoted results, and pathname expansion against the container's files.
"""

from __future__ import annotations

import ast
import fnmatch
import operator
import posixpath
import re
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

from fakekube.pods import shell
from fakekube.pods.filesystem import FileSystemError
from fakekube.pods.process import ExitStatus

Out = Callable[[bytes], None]
PACE = 1000
SHELLS = ("sh", "bash", "ash", "dash")


@dataclass(frozen=True)
class Wait:
    """A request to the driver: wait ``seconds`` (None: until the process is stopped)."""

    seconds: float | None


Run = Generator[Wait, None, int]


class _Break(Exception):  # noqa: N818 - control flow
    def __init__(self, levels: int) -> None:
        self.levels = levels


class _Continue(_Break):
    pass


class _Return(Exception):  # noqa: N818 - control flow
    def __init__(self, code: int) -> None:
        self.code = code


@dataclass
class IO:
    stdin: bytes | None  # None: the process's own stdin
    out: Out
    err: Out


def _discard(data: bytes) -> None:
    return None


def run_sync(run: Run, proc: Any) -> int:
    """Drive ``run`` on the calling thread: a wait sleeps until its time is up or the client leaves."""
    try:
        request = next(run)
        while True:
            seconds = request.seconds if request.seconds is not None else 10.0**9
            if not proc.sleep(seconds):
                run.close()
                return 0
            request = run.send(None)
    except StopIteration as done:
        return int(done.value or 0)


def sleep_seconds(args: list[str]) -> float | None:
    """``sleep``'s operands (GNU and busybox suffixes s, m, h, d; ``infinity``) summed; None when invalid."""
    if not args:
        return None
    total = 0.0
    for a in args:
        if a in ("inf", "infinity"):
            return float("inf")
        unit = {"s": 1, "m": 60, "h": 3600, "d": 86400}.get(a[-1:])
        try:
            total += float(a[:-1]) * unit if unit else float(a)
        except ValueError:
            return None
    return total


class Shell:
    """One shell process over a ``commands.Session`` (its files, environment, working directory, streams)."""

    def __init__(self, session: Any, name: str = "sh", args: list[str] | None = None) -> None:
        self.s = session
        self.name = name
        self.positional = list(args or [])
        self.functions: dict[str, shell.Node] = {}
        self.errexit = False
        self.steps = 0

    # -- entry points ----------------------------------------------------------------------------------

    def script(self, text: str, io: IO, *, interactive: bool = False) -> Run:
        """Run ``text``; its status. ``exit`` ends it; in an ``interactive`` shell's line it propagates."""
        try:
            tree = shell.parse(text)
        except shell.ShellSyntaxError as exc:
            io.err(f"{self.name}: 1: {exc}\n".encode())
            return 2
        try:
            return (yield from self.sequence(tree, io))
        except ExitStatus as done:
            if interactive:
                raise
            return done.code
        except _Return as done:
            return done.code
        except _Break:
            return self.s.status

    def command_line(self, argv: list[str], io: IO) -> Run:
        """A command outside any script (an exec's or a container's argv)."""
        try:
            return (yield from self.simple_argv(argv, io))
        except ExitStatus as done:
            return done.code

    # -- lists -----------------------------------------------------------------------------------------

    def sequence(self, seq: shell.Sequence, io: IO, condition: bool = False) -> Run:
        status = 0
        for node, _background in seq.items:  # a background job runs to its end first (no job control)
            status = yield from self.and_or(node, io, condition)
            if self.s.proc.gone.is_set():
                break
        return status

    def and_or(self, node: shell.AndOr, io: IO, condition: bool) -> Run:
        status = 0
        last = len(node.parts) - 1
        for index, (op, pipeline) in enumerate(node.parts):
            if op == "&&" and status != 0 or op == "||" and status == 0:
                continue
            status = yield from self.pipeline(pipeline, io)
            self.s.status = status
            if (status and self.errexit and not condition and index == last and not pipeline.negate):
                raise ExitStatus(status)
        return status

    def pipeline(self, pipeline: shell.Pipeline, io: IO) -> Run:
        # Stages run one after another, each reading what the one before wrote: enough for the pipelines
        # clients and manifests send (``tar cf - d | tail -c+N``, ``cat f | grep x``), not for a producer that
        # never ends.
        data: bytes | None = io.stdin
        status = 0
        for index, node in enumerate(pipeline.commands):
            last = index == len(pipeline.commands) - 1
            captured = bytearray()
            stage = IO(data, io.out if last else captured.extend, io.err)
            status = yield from self.command(node, stage)
            data = bytes(captured)
        return (0 if status else 1) if pipeline.negate else status

    # -- commands --------------------------------------------------------------------------------------

    def command(self, node: shell.Node, io: IO) -> Run:
        if isinstance(node, shell.Simple):
            return (yield from self.simple(node, io))
        if isinstance(node, shell.Function):
            self.functions[node.name] = node.body
            return 0
        redirected = yield from self.redirect(node.redirects, io)
        if isinstance(redirected, int):
            return redirected
        io, done = redirected
        try:
            return (yield from self.compound(node, io))
        finally:
            done()

    def compound(self, node: shell.Node, io: IO) -> Run:
        status = 0
        if isinstance(node, shell.If):
            for condition, body in node.clauses:
                if (yield from self.sequence(condition, io, condition=True)) == 0:
                    return (yield from self.sequence(body, io))
            return (yield from self.sequence(node.otherwise, io)) if node.otherwise is not None else 0
        if isinstance(node, shell.Loop):
            while not self.s.proc.gone.is_set():
                if ((yield from self.sequence(node.condition, io, condition=True)) == 0) == node.until:
                    break
                try:
                    status = yield from self.sequence(node.body, io)
                except _Continue as c:
                    if c.levels > 1:
                        raise _Continue(c.levels - 1) from None
                except _Break as b:
                    if b.levels > 1:
                        raise _Break(b.levels - 1) from None
                    break
            return status
        if isinstance(node, shell.For):
            values = self.positional if node.words is None else []
            for word in node.words or ():
                values += (yield from self.expand(word.raw))
            for value in values:
                self.s.env[node.name] = value
                try:
                    status = yield from self.sequence(node.body, io)
                except _Continue as c:
                    if c.levels > 1:
                        raise _Continue(c.levels - 1) from None
                except _Break as b:
                    if b.levels > 1:
                        raise _Break(b.levels - 1) from None
                    break
                if self.s.proc.gone.is_set():
                    break
            return status
        if isinstance(node, shell.Case):
            subject = yield from self.expand_one(node.word.raw)
            for patterns, body in node.items:
                for pattern in patterns:
                    if fnmatch.fnmatchcase(subject, (yield from self.expand_one(pattern.raw))):
                        return (yield from self.sequence(body, io))
            return 0
        if isinstance(node, shell.Group):
            if not node.subshell:
                return (yield from self.sequence(node.body, io))
            saved = dict(self.s.env), self.s.cwd
            try:
                return (yield from self.sequence(node.body, io))
            except ExitStatus as done:
                return done.code
            finally:
                self.s.env, self.s.cwd = saved
        raise AssertionError(node)

    def simple(self, node: shell.Simple, io: IO) -> Run:
        self.steps += 1
        if self.steps >= PACE:
            self.steps = 0
            yield Wait(0.001)
        argv: list[str] = []
        for word in node.words:
            argv += (yield from self.expand(word.raw))
        assigns: list[tuple[str, str]] = []
        for name, value in node.assigns:
            assigns.append((name, (yield from self.expand_one(value.raw))))
        redirected = yield from self.redirect(node.redirects, io)
        if isinstance(redirected, int):
            return redirected
        io, done = redirected
        try:
            if not argv:
                self.s.env.update(assigns)
                return self.s.status if node.assigns else 0
            saved = {name: self.s.env.get(name) for name, _ in assigns}
            self.s.env.update(assigns)
            try:
                return (yield from self.simple_argv(argv, io))
            finally:
                if argv[0] not in SPECIAL_BUILTINS:  # a special built-in's assignments stay (XCU 2.14)
                    for name, value in saved.items():
                        if value is None:
                            self.s.env.pop(name, None)
                        else:
                            self.s.env[name] = value
        finally:
            done()

    def simple_argv(self, argv: list[str], io: IO) -> Run:
        name = posixpath.basename(argv[0]) if "/" in argv[0] else argv[0]
        args = argv[1:]
        if argv[0] in self.functions:
            saved = self.positional
            self.positional = args
            try:
                return (yield from self.command(self.functions[argv[0]], io))
            except _Return as done:
                return done.code
            finally:
                self.positional = saved
        builtin = BUILTINS.get(argv[0])
        if builtin is not None:
            return (yield from builtin(self, args, io))
        if name == "sleep":
            seconds = sleep_seconds(args)
            if seconds is None:
                io.err(f"sleep: invalid time interval '{args[0] if args else ''}'\n".encode() if args
                       else b"sleep: missing operand\n")
                return 1
            yield Wait(None if seconds == float("inf") else seconds)
            return 0
        if name in SHELLS:
            return (yield from self.nested_shell(name, args, io))
        if name == "tail" and any(a in ("-f", "-F", "--follow") for a in args):
            status = self.s.simple([argv[0], *(a for a in args if a not in ("-f", "-F", "--follow"))],
                                   io.stdin, io.out, io.err)
            if status:
                return status
            yield Wait(None)  # follows a file nobody appends to: waits until stopped
            return 0
        if name in ("exec", "nohup", "env") and args and name != "env":
            return (yield from self.simple_argv(args, io))
        from fakekube.pods.servers import server_for

        server = server_for(self.s, argv)
        if server is not None:
            removers = [self.s.proc.listen(port, handler) for port, handler in server.items()]
            try:
                yield Wait(None)
            finally:
                for remove in removers:
                    remove()
            return 0
        return self.s.simple(argv, io.stdin, io.out, io.err)

    def nested_shell(self, name: str, args: list[str], io: IO) -> Run:
        flags = [a for a in args[:1] if a.startswith("-") and a != "-c" and "c" not in a[1:]]
        args = args[len(flags):]
        errexit = any("e" in f for f in flags)
        if args and args[0].startswith("-") and "c" in args[0][1:]:
            errexit = errexit or "e" in args[0][1:]
            if len(args) < 2:
                io.err(f"{name}: -c requires an argument\n".encode())
                return 2
            inner = Shell(self.s, args[2] if len(args) > 2 else name, args[3:])
            inner.errexit = errexit
            saved = dict(self.s.env), self.s.cwd
            try:
                return (yield from inner.script(args[1], io))
            finally:
                self.s.env, self.s.cwd = saved
        if args:
            try:
                text = self.s.read_file(args[0]).decode(errors="replace")
            except FileSystemError:
                io.err(f"{name}: 0: cannot open {args[0]}: No such file\n".encode())
                return 2
            inner = Shell(self.s, args[0], args[1:])
            inner.errexit = errexit
            return (yield from inner.script(text, io))
        # An interactive shell reads its commands line by line until end of input (``kubectl exec -i -- sh``).
        status = 0
        inner = Shell(self.s, name)
        pending = io.stdin
        while True:
            if self.s.proc.tty and pending is None:
                io.out(b"# ")  # a shell on a terminal prompts (dash's and busybox's root prompt)
            if pending is not None:
                line, _, rest = pending.partition(b"\n")
                pending = rest if rest else b""
                if not line and not rest:
                    return status
            else:
                line = self.s.proc.stdin.readline()
                if not line:
                    return status
            try:
                status = yield from inner.script(line.decode(errors="replace"), IO(None, io.out, io.err),
                                                 interactive=True)
            except ExitStatus as done:
                return done.code

    # -- redirections ----------------------------------------------------------------------------------

    def redirect(self, redirects: list[shell.Redirect], io: IO) -> Generator[Wait, None,
                                                                           tuple[IO, Callable[[], None]] | int]:
        if not redirects:
            return io, lambda: None
        fds: dict[int, Any] = {0: io.stdin, 1: io.out, 2: io.err}
        for r in redirects:
            if r.op == "<<":
                body = r.body or ""
                fds[r.fd] = (body if r.quoted else (yield from self.expand_heredoc(body))).encode()
                continue
            target = yield from self.expand_one(r.target.raw)
            if r.op in (">&", "<&"):
                if target == "-":
                    fds[r.fd] = _discard if r.fd else b""
                elif target.isdigit() and int(target) in fds:
                    fds[r.fd] = fds[int(target)]
                else:
                    io.err(f"{self.name}: 1: Syntax error: Bad fd number\n".encode())
                    return 2
                continue
            try:
                if r.op == "<":
                    fds[r.fd] = self.s.read_file(target)
                    continue
                writer = self.open_output(target, append=r.op == ">>", io=io)
            except FileSystemError as exc:
                io.err(f"{self.name}: 1: cannot {'open' if r.op == '<' else 'create'} {exc}\n".encode())
                return 2
            fds[r.fd] = writer
            if r.op == "&>":
                fds[1] = fds[2] = writer
        stdin = fds.get(0)
        return IO(stdin if isinstance(stdin, bytes | None) else None, _writer(fds.get(1)),
                  _writer(fds.get(2))), lambda: None

    def open_output(self, target: str, *, append: bool, io: IO) -> Out:
        if target == "/dev/null":
            return _discard
        if target in ("/dev/stdout", "/proc/self/fd/1"):
            return io.out
        if target in ("/dev/stderr", "/proc/self/fd/2"):
            return io.err
        if target in ("/proc/1/fd/1", "/proc/1/fd/2"):
            return self.s.proc.container_output  # the main process's own output: the container's log
        path = self.s.path(target)
        if not append:
            self.s.files.write(path, b"")
        else:
            self.s.files.write(path, b"", append=True)
        return lambda data: self.s.files.write(path, data, append=True)

    # -- expansion -------------------------------------------------------------------------------------

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
            end = shell._skip_balanced(raw, i + 3, "(", ")")
            expr = yield from self.expand_heredoc(raw[i + 3:end - 1])
            return str(self.arithmetic(expr)), end + 1
        if raw.startswith("$(", i):
            end = shell._skip_balanced(raw, i + 2, "(", ")")
            return (yield from self.substitute(raw[i + 2:end - 1])), end
        if raw.startswith("${", i):
            end = shell._skip_balanced(raw, i + 2, "{", "}")
            return (yield from self.parameter(raw[i + 2:end - 1])), end
        if i + 1 < len(raw) and raw[i + 1] in "?$#@*!0123456789-":
            return self.special(raw[i + 1]), i + 2
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(raw, i + 1)
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
        inner = Shell(self.s, self.name, self.positional)
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


def _writer(target: Any) -> Out:
    return target if callable(target) else _discard


_BINARY: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Mod: lambda a, b: int(
        __import__("math").fmod(a, b)), ast.Div: lambda a, b: int(a / b), ast.FloorDiv: lambda a, b: int(a / b),
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


# -- built-ins that change the shell itself --------------------------------------------------------------------

Builtin = Callable[[Shell, list[str], IO], Run]


def _returns(code: int) -> Run:
    return code
    yield  # pragma: no cover - makes this a generator


def _exit(sh: Shell, args: list[str], io: IO) -> Run:
    try:
        code = int(args[0]) if args else sh.s.status
    except ValueError:
        io.err(f"{sh.name}: 1: exit: Illegal number: {args[0]}\n".encode())
        code = 2
    raise ExitStatus(code & 0xFF)
    yield  # pragma: no cover


def _return(sh: Shell, args: list[str], io: IO) -> Run:
    raise _Return(int(args[0]) & 0xFF if args and args[0].isdigit() else sh.s.status)
    yield  # pragma: no cover


def _break(kind: type[_Break]) -> Builtin:
    def run(sh: Shell, args: list[str], io: IO) -> Run:
        raise kind(int(args[0]) if args and args[0].isdigit() else 1)
        yield  # pragma: no cover
    return run


def _cd(sh: Shell, args: list[str], io: IO) -> Run:
    target = sh.s.path(args[0] if args else sh.s.env.get("HOME", "/"))
    if not sh.s.files.is_dir(target):
        io.err(f"{sh.name}: 1: cd: can't cd to {args[0] if args else target}\n".encode())
        return (yield from _returns(2))
    sh.s.cwd = target
    return (yield from _returns(0))


def _export(sh: Shell, args: list[str], io: IO) -> Run:
    for a in args:
        if a.startswith("-"):
            continue
        key, eq, value = a.partition("=")
        if eq:
            sh.s.env[key] = value
    return (yield from _returns(0))


def _unset(sh: Shell, args: list[str], io: IO) -> Run:
    for a in args:
        if not a.startswith("-"):
            sh.s.env.pop(a, None)
            sh.functions.pop(a, None)
    return (yield from _returns(0))


def _set(sh: Shell, args: list[str], io: IO) -> Run:
    for index, a in enumerate(args):
        if a == "--":
            sh.positional = args[index + 1:]
            break
        if a[:1] in "-+" and len(a) > 1:
            if "e" in a[1:] and a[1:] != "o":
                sh.errexit = a[0] == "-"
            continue  # -x, -u, -o pipefail: accepted, not emulated
        sh.positional = args[index:]
        break
    return (yield from _returns(0))


def _shift(sh: Shell, args: list[str], io: IO) -> Run:
    count = int(args[0]) if args and args[0].isdigit() else 1
    if count > len(sh.positional):
        return (yield from _returns(1))
    sh.positional = sh.positional[count:]
    return (yield from _returns(0))


def _read(sh: Shell, args: list[str], io: IO) -> Run:
    names = [a for a in args if not a.startswith("-")] or ["REPLY"]
    if io.stdin is not None:
        line = io.stdin.split(b"\n", 1)[0] if io.stdin else b""
        ended = not io.stdin
    else:
        line = sh.s.proc.stdin.readline()
        ended = not line
    if ended:
        return (yield from _returns(1))
    fields = line.decode(errors="replace").rstrip("\n").split(None, len(names) - 1)
    for index, name in enumerate(names):
        sh.s.env[name] = fields[index] if index < len(fields) else ""
    return (yield from _returns(0))


def _eval(sh: Shell, args: list[str], io: IO) -> Run:
    return (yield from sh.script(" ".join(args), io))


def _source(sh: Shell, args: list[str], io: IO) -> Run:
    if not args:
        return (yield from _returns(0))
    try:
        text = sh.s.read_file(args[0]).decode(errors="replace")
    except FileSystemError:
        io.err(f"{sh.name}: 1: .: cannot open {args[0]}: No such file\n".encode())
        return (yield from _returns(2))
    return (yield from sh.script(text, io))


def _exec(sh: Shell, args: list[str], io: IO) -> Run:
    if not args:
        return (yield from _returns(0))  # only redirections: they apply to this command here
    raise ExitStatus((yield from sh.simple_argv(args, io)))


def _wait(sh: Shell, args: list[str], io: IO) -> Run:
    return (yield from _returns(0))  # background jobs ran to their end already


SPECIAL_BUILTINS = frozenset({"exit", "return", "break", "continue", "export", "unset", "set", "shift", "eval",
                              ".", "exec", "readonly", "trap", ":"})
BUILTINS: dict[str, Builtin] = {
    "exit": _exit, "return": _return, "break": _break(_Break), "continue": _break(_Continue), "cd": _cd,
    "export": _export, "readonly": _export, "local": _export, "unset": _unset, "set": _set, "shift": _shift,
    "read": _read, "eval": _eval, ".": _source, "source": _source, "exec": _exec, "wait": _wait,
    "trap": lambda sh, a, io: _returns(0), "umask": lambda sh, a, io: _returns(0),
    "ulimit": lambda sh, a, io: _returns(0), ":": lambda sh, a, io: _returns(0),
}


def known_command(name: str) -> bool:
    """Whether a command by this name runs here: a built-in of the shell or a command of the fake image."""
    from fakekube.pods.commands import COMMANDS

    base = posixpath.basename(name) if "/" in name else name
    return name in BUILTINS or base in COMMANDS or base in ("sleep", "exec", "nohup")


__all__ = ["BUILTINS", "IO", "Shell", "Wait", "known_command", "run_sync", "sleep_seconds"]
