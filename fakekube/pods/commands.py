"""The commands a fake container answers when no handler is registered: what client suites, operators and
``kubectl cp`` send (``echo``, ``cat``, ``ls``, ``env``, ``true``, ``false``, ``exit N``, ``sleep``, ``dd`` from
``/dev/zero`` and ``/dev/urandom``, ``sh -c``, ``date``, ``hostname``, ``tar``, ``test`` ...), over the
container's in-memory files (``fakekube.pods.filesystem``).

A command the image does not have fails as a container started by containerd/runc does: the OCI runtime's
``executable file not found in $PATH`` on the output and exit status 126; inside ``sh -c`` the shell's own
``sh: NAME: not found`` and 127.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
from collections.abc import Callable
from datetime import UTC

from fakekube.pods.filesystem import FileSystemError
from fakekube.pods.interpreter import IO, Run, Shell, run_sync, sleep_seconds
from fakekube.pods.process import ExitStatus, Process

Out = Callable[[bytes], None]
SHELLS = ("sh", "bash", "ash", "dash")
DEVICES = ("/dev/zero", "/dev/urandom", "/dev/random", "/dev/null")


def not_found_message(name: str) -> bytes:
    """runc's start failure as containerd reports it (``kubectl exec pod -- nosuch``)."""
    return (f'OCI runtime exec failed: exec failed: unable to start container process: exec: "{name}": '
            "executable file not found in $PATH: unknown\r\n").encode()


class Session:
    """One exec's view of its container: working directory, environment, files, and the process's streams."""

    def __init__(self, proc: Process, cwd: str = "/") -> None:
        self.proc = proc
        self.files = proc.files
        self.env = dict(proc.env)
        self.cwd = cwd
        self.status = 0

    # -- running ---------------------------------------------------------------------------------------

    def run(self, argv: list[str]) -> int:
        """The exec's own command (not inside a shell), to its end on the calling thread."""
        return run_sync(self.start(argv), self.proc)

    def start(self, argv: list[str]) -> Run:
        """The exec's own command as a generator of waits (``fakekube.pods.interpreter``): its exit status."""
        name = _command_name(argv[0]) if argv else ""
        if name not in COMMANDS:
            self.proc.stdout(not_found_message(argv[0] if argv else ""))
            return 126
        return (yield from Shell(self).command_line(argv, IO(None, self.proc.stdout, self.proc.stderr)))

    def simple(self, argv: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
        """One command of the image (not a shell built-in), run at once."""
        name = _command_name(argv[0])
        command = COMMANDS.get(name)
        if command is None:
            err(f"sh: {argv[0]}: not found\n".encode())
            return 127
        try:
            return command(self, argv[1:], stdin, out, err)
        except FileSystemError as exc:
            err(f"{name}: {exc}\n".encode())
            return 1

    def script(self, text: str, out: Out, err: Out, name: str = "sh") -> int:
        """Run a shell script to its end on the calling thread (a ``sleep`` sleeps it)."""
        return run_sync(Shell(self, name).script(text, IO(None, out, err)), self.proc)

    # -- helpers ---------------------------------------------------------------------------------------

    def path(self, p: str) -> str:
        return self.files.resolve(p, self.cwd)

    def read_file(self, p: str) -> bytes:
        if p == "/dev/null":
            return b""
        return self.files.read(self.path(p))

    def read_stdin(self, stdin: bytes | None) -> bytes:
        return stdin if stdin is not None else self.proc.stdin.read()


def _command_name(arg0: str) -> str:
    return posixpath.basename(arg0) if "/" in arg0 else arg0


# -- the commands ---------------------------------------------------------------------------------------

def _echo(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    newline = True
    while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
        newline = newline and "n" not in args[0]
        args = args[1:]
    out((" ".join(args) + ("\n" if newline else "")).encode())
    return 0


def _printf(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    """POSIX printf: the format is reused while arguments remain (``%s %d %i %x %o %c %b %%`` and escapes)."""
    if not args:
        err(b"printf: usage: printf format [arguments]\n")
        return 2
    fmt, rest = _escapes(args[0]), args[1:]
    spec = re.compile(r"%([-+ #0]*\d*(?:\.\d+)?)([sdiuxXocb%])")
    pieces: list[str] = []
    while True:
        used = 0
        operands = rest

        def convert(m: re.Match[str], operands: list[str] = operands) -> str:
            nonlocal used
            flags, kind = m.groups()
            if kind == "%":
                return "%"
            value = operands[used] if used < len(operands) else ""
            used += 1
            if kind in "diuxXo":
                number = int(value) if value.lstrip("-+").isdigit() else 0
                return ("%" + flags + ("d" if kind in "iu" else kind)) % number
            if kind == "c":
                return value[:1]
            return ("%" + flags + "s") % (_escapes(value) if kind == "b" else value)

        pieces.append(spec.sub(convert, fmt))
        rest = rest[used:]
        if not rest or not used:
            break
    out("".join(pieces).encode())
    return 0


def _escapes(text: str) -> str:
    return re.sub(r"\\(\\|n|t|r|0[0-7]{0,3}|a|b|f|v)", lambda m: {
        "\\": "\\", "n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}.get(
        m.group(1)) or chr(int(m.group(1), 8)), text)


def _cat(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    status = 0
    for name in [a for a in args if a != "-"] or ["-"]:
        if name == "-":
            if stdin is not None:
                out(stdin)
                continue
            while chunk := s.proc.stdin.read(64 * 1024):  # streams: an interactive cat echoes as it reads
                out(chunk)
            continue
        try:
            out(s.read_file(name))
        except FileSystemError as exc:
            err(f"cat: {exc}\n".encode())
            status = 1
    return status


def _ls(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    flags = "".join(a[1:] for a in args if a.startswith("-") and a != "-")
    paths = [a for a in args if not a.startswith("-") or a == "-"] or ["."]
    status = 0
    for index, p in enumerate(paths):
        full = s.path(p)
        if not s.files.exists(full):
            err(f"ls: cannot access '{p}': No such file or directory\n".encode())
            status = 2
            continue
        names = s.files.listdir(full) if s.files.is_dir(full) else [p]
        if "a" in flags and s.files.is_dir(full):
            names = [".", "..", *names]
        if len(paths) > 1 and s.files.is_dir(full):
            out(f"{'' if index == 0 else chr(10)}{p}:\n".encode())
        for name in names:
            if "l" in flags:
                entry = full if name == p else posixpath.join(full, name)
                is_dir = s.files.is_dir(entry) or name in (".", "..")
                size = 4096 if is_dir else len(s.files.read(entry))
                out(f"{'d' if is_dir else '-'}rw{'x' if is_dir else '-'}r-{'x' if is_dir else '-'}r-"
                    f"{'x' if is_dir else '-'}    1 root     root  {size:>10} Jan  1 00:00 {name}\n".encode())
            else:
                out(f"{name}\n".encode())
    return status


def _env(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    env = dict(s.env)
    while args and "=" in args[0]:
        key, _, value = args.pop(0).partition("=")
        env[key] = value
    if args:
        saved, s.env = s.env, env
        try:
            return s.simple(args, stdin, out, err)
        finally:
            s.env = saved
    out("".join(f"{k}={v}\n" for k, v in env.items()).encode())
    return 0


def _printenv(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    if not args:
        return _env(s, [], stdin, out, err)
    missing = [a for a in args if a not in s.env]
    out("".join(f"{s.env[a]}\n" for a in args if a in s.env).encode())
    return 1 if missing else 0


def _sleep(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    seconds = sleep_seconds(args)
    if seconds is None:
        err(f"sleep: invalid time interval '{args[0]}'\n".encode() if args else b"sleep: missing operand\n")
        return 1
    s.proc.sleep(seconds if seconds != float("inf") else 10**9)
    return 0


def _dd(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    opts = dict(a.split("=", 1) for a in args if "=" in a)
    bs = _size(opts.get("bs", "512"))
    count = int(opts["count"]) if "count" in opts else None
    source = opts.get("if")
    if source is None:
        data = s.read_stdin(stdin)
    elif source in ("/dev/zero", "/dev/urandom", "/dev/random"):
        if count is None:
            err(b"dd: an endless source needs count= here\n")
            return 1
        data = bytes(bs * count) if source == "/dev/zero" else os.urandom(bs * count)
    else:
        data = s.read_file(source)
    if count is not None:
        data = data[:bs * count]
    blocks = (len(data) + bs - 1) // bs
    target = opts.get("of")
    if target is None:
        out(data)
    elif target != "/dev/null":
        s.files.write(s.path(target), data)
    err(f"{blocks}+0 records in\n{blocks}+0 records out\n{len(data)} bytes copied\n".encode())
    return 0


def _size(text: str) -> int:
    units = {"k": 1024, "K": 1024, "M": 1024**2, "G": 1024**3}
    return int(text[:-1]) * units[text[-1]] if text and text[-1] in units else int(text)


def _date(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    now = s.proc.now().astimezone(UTC)
    args = [a for a in args if a not in ("-u", "--utc")]
    if args and not args[0].startswith(("+", "-")):
        err(f"date: invalid date '{args[0]}'\n".encode())  # GNU date (C locale): an operand is a date to set
        return 1
    if args and args[0].startswith("+"):
        out((now.strftime(args[0][1:]) + "\n").encode())
    else:
        out(f"{now.strftime('%a %b')} {now.day:>2} {now.strftime('%H:%M:%S UTC %Y')}\n".encode())
    return 0


def _hostname(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    out(f"{s.env.get('HOSTNAME') or s.proc.pod_name}\n".encode())
    return 0


def _test(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    if args and args[-1] == "]":
        args = args[:-1]
    negate = bool(args) and args[0] == "!"
    args = args[1:] if negate else args
    if len(args) == 2 and args[0] in ("-r", "-w", "-x", "-L", "-h"):
        args = ["-e" if args[0] != "-x" else "-f", args[1]]  # root may read and write what exists
    if len(args) == 2 and args[0] in ("-d", "-f", "-e", "-z", "-n", "-s"):
        op, value = args
        result = {"-d": lambda: s.files.is_dir(s.path(value)), "-f": lambda: s.files.is_file(s.path(value)),
                  "-e": lambda: s.files.exists(s.path(value)), "-z": lambda: value == "",
                  "-n": lambda: value != "",
                  "-s": lambda: s.files.is_file(s.path(value)) and bool(s.files.read(s.path(value)))}[op]()
    elif len(args) == 3 and args[1] in ("=", "==", "!="):
        result = (args[0] == args[2]) != (args[1] == "!=")
    elif len(args) == 3 and args[1] in _INTEGER_TESTS:
        try:
            result = _INTEGER_TESTS[args[1]](int(args[0]), int(args[2]))
        except ValueError:
            bad = args[0] if not args[0].lstrip("-").isdigit() else args[2]
            err(f"sh: 1: [: Illegal number: {bad}\n".encode())
            return 2
    elif len(args) == 1:
        result = args[0] != ""
    else:
        result = False
    return 0 if result != negate else 1


_INTEGER_TESTS: dict[str, Callable[[int, int], bool]] = {
    "-eq": lambda a, b: a == b, "-ne": lambda a, b: a != b, "-lt": lambda a, b: a < b,
    "-le": lambda a, b: a <= b, "-gt": lambda a, b: a > b, "-ge": lambda a, b: a >= b}


def _pwd(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    out(f"{s.cwd}\n".encode())
    return 0


def _mkdir(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    parents = "-p" in args
    for p in [a for a in args if not a.startswith("-")]:
        try:
            s.files.mkdir(s.path(p), parents=parents)
        except FileSystemError as exc:
            err(f"mkdir: {exc}\n".encode())
            return 1
    return 0


def _rm(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    flags = "".join(a[1:] for a in args if a.startswith("-"))
    status = 0
    for p in [a for a in args if not a.startswith("-")]:
        try:
            s.files.remove(s.path(p), recursive="r" in flags or "R" in flags)
        except FileSystemError as exc:
            if "f" not in flags or "Is a directory" in str(exc):
                err(f"rm: {exc}\n".encode())
                status = 1
    return status


def _touch(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    for p in [a for a in args if not a.startswith("-")]:
        if not s.files.exists(s.path(p)):
            s.files.write(s.path(p), b"")
    return 0


def _head_tail(tail: bool) -> Callable[[Session, list[str], bytes | None, Out, Out], int]:
    def run(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
        mode, amount, files = "n", "10", []
        i = 0
        while i < len(args):
            a = args[i]
            if a in ("-c", "-n") and i + 1 < len(args):
                mode, amount = a[1], args[i + 1]
                i += 1
            elif a.startswith(("-c", "-n")) and len(a) > 2:
                mode, amount = a[1], a[2:]
            else:
                files.append(a)
            i += 1
        data = s.read_file(files[0]) if files else s.read_stdin(stdin)
        from_start = amount.startswith("+")
        count = int(amount.lstrip("+-"))
        if mode == "c":
            part = (data[count - 1:] if from_start else data[-count:] if count else b"") if tail else data[:count]
        else:
            lines = data.splitlines(keepends=True)
            part = b"".join((lines[count - 1:] if from_start else lines[-count:] if count else [])
                            if tail else lines[:count])
        out(part)
        return 0
    return run


def _wc(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    files = [a for a in args if not a.startswith("-")]
    data = s.read_file(files[0]) if files else s.read_stdin(stdin)
    counts = {"-c": len(data), "-l": data.count(b"\n"), "-w": len(data.split())}
    flags = [a for a in args if a in counts] or ["-l", "-w", "-c"]
    out((" ".join(str(counts[f]) for f in flags) + (f" {files[0]}" if files else "") + "\n").encode())
    return 0


def _digest(algorithm: str) -> Callable[[Session, list[str], bytes | None, Out, Out], int]:
    def run(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
        for name in args or ["-"]:
            data = s.read_stdin(stdin) if name == "-" else s.read_file(name)
            out(f"{hashlib.new(algorithm, data).hexdigest()}  {name}\n".encode())
        return 0
    return run


def _simple_output(text: str) -> Callable[[Session, list[str], bytes | None, Out, Out], int]:
    def run(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
        out(text.encode())
        return 0
    return run


def _shell(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    return run_sync(Shell(s).nested_shell("sh", args, IO(stdin, out, err)), s.proc)


def _seq(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    try:
        nums = [int(a) for a in args]
    except ValueError:
        err(f"seq: invalid argument: '{args[0] if args else ''}'\n".encode())
        return 1
    first, step, last = (1, 1, nums[0]) if len(nums) == 1 else (nums[0], 1, nums[1]) if len(nums) == 2 else tuple(nums[:3])
    out("".join(f"{i}\n" for i in range(first, last + (1 if step > 0 else -1), step or 1)).encode())
    return 0


def _gzip(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    import gzip

    flags = "".join(a[1:] for a in args if a.startswith("-"))
    files = [a for a in args if not a.startswith("-")]
    data = s.read_file(files[0]) if files else s.read_stdin(stdin)
    try:
        out(gzip.decompress(data) if "d" in flags else gzip.compress(data))
    except OSError as exc:
        err(f"gzip: stdin: {exc}\n".encode())
        return 1
    return 0


def _uptime(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    out(f" {s.proc.now().astimezone(UTC).strftime('%H:%M:%S')} up 1 day,  0 users,  load average: 0.00, 0.00, "
        "0.00\n".encode())
    return 0


def _tar(s: Session, args: list[str], stdin: bytes | None, out: Out, err: Out) -> int:
    from fakekube.pods.tarball import tar_command

    return tar_command(s, args, stdin, out, err)


Command = Callable[[Session, list[str], "bytes | None", Out, Out], int]

COMMANDS: dict[str, Command] = {
    "echo": _echo, "printf": _printf, "cat": _cat, "ls": _ls, "env": _env, "printenv": _printenv,
    "true": lambda s, a, i, o, e: 0, "false": lambda s, a, i, o, e: 1, "sleep": _sleep, "dd": _dd, "date": _date,
    "hostname": _hostname, "test": _test, "[": _test, "pwd": _pwd, "mkdir": _mkdir, "rm": _rm, "touch": _touch,
    "head": _head_tail(False), "tail": _head_tail(True), "wc": _wc, "md5sum": _digest("md5"),
    "sha256sum": _digest("sha256"), "whoami": _simple_output("root\n"),
    "id": _simple_output("uid=0(root) gid=0(root) groups=0(root)\n"), "uname": _simple_output("Linux\n"),
    "tar": _tar, "seq": _seq, "gzip": _gzip, "uptime": _uptime, **{name: _shell for name in SHELLS},
}


def run_builtin(proc: Process, cwd: str = "/") -> int:
    """Run ``proc.command`` with the built-in commands; its exit status."""
    session = Session(proc, cwd)
    try:
        return session.run(proc.command)
    except ExitStatus as done:
        return done.code


__all__ = ["COMMANDS", "Session", "run_builtin", "not_found_message"]
