"""A container's main command, run over its in-memory files when the built-in emulation can run all of it.

The kubelet starts a container with its command and arguments (kubernetes ``pkg/kubelet/kuberuntime/
kuberuntime_container.go`` → ``pkg/kubelet/container/helpers.go`` ``ExpandContainerCommandAndArgs``, v1.37.2):
``command`` then ``args``, or ``args`` alone where the image's entrypoint is empty (the images scripts run in:
busybox, alpine, ubuntu, python have none), each with ``$(VAR)`` references to the container's environment
expanded. Here that argv runs when every command it names is one this package emulates (``sh -c`` scripts
whose commands are all known, the built-in commands, ``sleep``, the servers of ``fakekube.pods.servers``): its
stdout and stderr are the container's log, its end is the container's exit. Otherwise — no command (the image's
default entrypoint), an image program nothing here knows (``nginx``, ``perl``), a command name computed at run
time — nothing runs, and the container behaves as before: running, silent, ended by the kubelet's rules.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from fakekube.pods import shell, shelllex
from fakekube.pods.commands import Session
from fakekube.pods.filesystem import FileSystemError, expand
from fakekube.pods.interpreter import IO, SHELLS, Run, Shell, known_command
from fakekube.pods.servers import server_for


def container_argv(spec: Mapping[str, Any], env: Mapping[str, str]) -> list[str]:
    """``command`` + ``args`` (or ``args`` alone) with ``$(VAR)`` expanded, as the kubelet passes them on."""
    command = [str(a) for a in spec.get("command") or []]
    args = [str(a) for a in spec.get("args") or []]
    return [expand(a, env) for a in (command + args if command else args)]


def _nodes(node: Any) -> Iterator[Any]:
    yield node
    if dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            yield from _nodes(getattr(node, f.name))
    elif isinstance(node, list | tuple):
        for item in node:
            yield from _nodes(item)


def _script_runnable(session: Session, text: str, depth: int = 0) -> bool:
    try:
        tree = shell.parse(text)
    except shelllex.ShellSyntaxError:
        return False  # maybe a bash script in syntax this parser lacks (arrays, ``$'...'``): leave it alone
    functions = {n.name for n in _nodes(tree) if isinstance(n, shell.Function)}
    for node in _nodes(tree):
        if isinstance(node, shell.Word) and not all(_script_runnable(session, inner, depth + 1)
                                                    for inner in _substitutions(node.raw)):
            return False
        if not isinstance(node, shell.Simple) or not node.words:
            continue
        words = [w.literal for w in node.words]
        while words and words[0] in ("exec", "nohup", "env"):
            words = words[1:]
            while words and words[0] is not None and "=" in words[0]:  # env's NAME=VALUE operands
                words = words[1:]
        if not words:
            continue
        if words[0] is None:
            return False  # a command name computed at run time: nothing tells what it is
        if words[0] in functions:
            continue
        if not _argv_runnable(session, words, depth + 1):
            return False
    return True


def _substitutions(raw: str) -> list[str]:
    """The scripts of a word's command substitutions (``$(...)``, backquotes; not ``$((...))``)."""
    found, i = [], 0
    while i < len(raw):
        if raw.startswith("$((", i):
            i = raw.find("))", i) + 2 if "))" in raw[i:] else len(raw)
        elif raw.startswith("$(", i):
            try:
                end = shelllex.skip_balanced(raw, i + 2, "(", ")")
            except shelllex.ShellSyntaxError:
                return found
            found.append(raw[i + 2:end - 1])
            i = end
        elif raw[i] == "`" and "`" in raw[i + 1:]:
            end = raw.index("`", i + 1)
            found.append(raw[i + 1:end])
            i = end + 1
        elif raw[i] == "'":
            i = raw.find("'", i + 1) + 1 or len(raw)
        else:
            i += 2 if raw[i] == "\\" else 1
    return found


def _argv_runnable(session: Session, words: list[str | None], depth: int = 0) -> bool:
    name = posixpath.basename(words[0] or "")
    if name in SHELLS:
        if depth > 8:
            return False
        rest = words[1:]
        while rest and rest[0] is not None and rest[0].startswith("-") and "c" not in rest[0][1:]:
            rest = rest[1:]
        if len(rest) >= 2 and rest[0] is not None and "c" in rest[0][1:]:
            return rest[1] is not None and _script_runnable(session, rest[1], depth)
        if rest and rest[0] is not None and not rest[0].startswith("-"):
            try:
                text = session.read_file(rest[0]).decode(errors="replace")
            except FileSystemError:
                return False
            return _script_runnable(session, text, depth)
        return False  # an interactive shell with no input: left to the kubelet's rules
    if known_command(words[0] or ""):
        return True
    return None not in words and server_for(session, [w or "" for w in words]) is not None


class MainCommand:
    """One container instance's main command, ready to run (``prepare`` says whether it can)."""

    def __init__(self, session: Session, argv: list[str]) -> None:
        self.session = session
        self.argv = argv

    @classmethod
    def prepare(cls, registry: Any, pod: Mapping[str, Any], container: Mapping[str, Any],
                lookup: Callable[[str, str], Mapping[str, Any] | None], *, now: Callable[[], Any],
                listen: Callable[[int, Any], Callable[[], None]]) -> MainCommand | None:
        name = str(container.get("name", ""))
        proc = registry.process(pod, name, [], lookup, now=now, listen=listen)
        argv = container_argv(container, proc.env)
        proc.command = argv
        session = Session(proc, str(container.get("workingDir") or "/"))
        if not argv or not _argv_runnable(session, list(argv)):
            return None
        return cls(session, argv)

    def run(self, stdout: Callable[[bytes], None], stderr: Callable[[bytes], None]) -> Run:
        """The command as a generator of waits (``fakekube.pods.interpreter``); its value is the exit code."""
        proc = self.session.proc
        proc.write_stdout, proc.write_stderr = stdout, stderr
        proc.container_output = stdout  # ``> /proc/1/fd/1`` from the main process is its own stdout
        return Shell(self.session, self.argv[0]).command_line(self.argv, IO(None, stdout, stderr))

    def stop(self) -> None:
        self.session.proc.gone.set()


__all__ = ["MainCommand", "container_argv"]
