"""Runs a shell syntax tree (``fakekube.pods.shell``) in a fake container, as a generator.

Every command but ``sleep`` (and what waits forever: ``tail -f``, a server) runs at once over the container's
in-memory files; a wait is a ``Wait`` the generator yields, and whoever drives it decides what waiting means:
an exec's thread sleeps until the time is up or the client leaves (``run_sync``), the kubelet actor's main
process awaits the runtime's clock (virtual time in a simulation, a timer on the wall-clock server's loop — no
thread per sleeping container). A loop that never waits yields ``Wait(0.001)`` every ``PACE`` commands, so it
cannot hold the loop it runs on (nor spin a simulation at one instant).

Words are expanded by ``fakekube.pods.expansion``; the shell's own built-ins are ``fakekube.pods.builtins``.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Callable, Generator
from typing import Any

from fakekube.pods import shell, shelllex
from fakekube.pods.builtins import BUILTINS, SPECIAL_BUILTINS
from fakekube.pods.expansion import Expander
from fakekube.pods.filesystem import FileSystemError
from fakekube.pods.process import ExitStatus
from fakekube.pods.shellbase import IO, Break, Continue, Out, Return, Run, Wait, discard

PACE = 1000
SHELLS = ("sh", "bash", "ash", "dash")


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


class Shell(Expander):
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
        except shelllex.ShellSyntaxError as exc:
            io.err(f"{self.name}: 1: {exc}\n".encode())
            return 2
        try:
            return (yield from self.sequence(tree, io))
        except ExitStatus as done:
            if interactive:
                raise
            return done.code
        except Return as done:
            return done.code
        except Break:
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

    def iteration(self, body: shell.Sequence, io: IO) -> Generator[Wait, None, tuple[int | None, bool]]:
        """One pass of a loop's body: its status (None when ``continue`` or ``break`` cut it short) and whether
        the loop ends there. ``break N``/``continue N`` for N > 1 go on to the enclosing loop, one level less."""
        try:
            return (yield from self.sequence(body, io)), False
        except Continue as c:  # before Break: Continue is a Break
            if c.levels > 1:
                raise Continue(c.levels - 1) from None
            return None, False
        except Break as b:
            if b.levels > 1:
                raise Break(b.levels - 1) from None
            return None, True

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
                ran, stop = yield from self.iteration(node.body, io)
                status = status if ran is None else ran
                if stop:
                    break
            return status
        if isinstance(node, shell.For):
            values = self.positional if node.words is None else []
            for word in node.words or ():
                values += (yield from self.expand(word.raw))
            for value in values:
                self.s.env[node.name] = value
                ran, stop = yield from self.iteration(node.body, io)
                status = status if ran is None else ran
                if stop:
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
            except Return as done:
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
                    fds[r.fd] = discard if r.fd else b""
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
            return discard
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


def _writer(target: Any) -> Out:
    return target if callable(target) else discard


def known_command(name: str) -> bool:
    """Whether a command by this name runs here: a built-in of the shell or a command of the fake image."""
    from fakekube.pods.commands import COMMANDS

    base = posixpath.basename(name) if "/" in name else name
    return name in BUILTINS or base in COMMANDS or base in ("sleep", "exec", "nohup")


__all__ = ["BUILTINS", "IO", "Shell", "Wait", "known_command", "run_sync", "sleep_seconds"]
