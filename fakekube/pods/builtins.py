"""The container shell's built-ins that change the shell itself (XCU 2.14 special built-ins and ``cd``,
``read``, ``wait``...): they run inside the shell, not as commands of the image."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from fakekube.pods.filesystem import FileSystemError
from fakekube.pods.process import ExitStatus
from fakekube.pods.shellbase import IO, Break, Continue, Return, Run

if TYPE_CHECKING:
    from fakekube.pods.interpreter import Shell


Builtin = Callable[["Shell", list[str], IO], Run]


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
    raise Return(int(args[0]) & 0xFF if args and args[0].isdigit() else sh.s.status)
    yield  # pragma: no cover


def _break(kind: type[Break]) -> Builtin:
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
    "exit": _exit, "return": _return, "break": _break(Break), "continue": _break(Continue), "cd": _cd,
    "export": _export, "readonly": _export, "local": _export, "unset": _unset, "set": _set, "shift": _shift,
    "read": _read, "eval": _eval, ".": _source, "source": _source, "exec": _exec, "wait": _wait,
    "trap": lambda sh, a, io: _returns(0), "umask": lambda sh, a, io: _returns(0),
    "ulimit": lambda sh, a, io: _returns(0), ":": lambda sh, a, io: _returns(0),
}
